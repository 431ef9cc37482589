package io.glassledger.server.api;

import io.glassledger.api.Wire;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.shard.ShardMap;
import io.glassledger.server.LedgerProperties;
import java.util.List;
import org.springframework.http.HttpStatusCode;
import org.springframework.stereotype.Component;

/** Decodes and bounds request fields; every refusal is a 400 or 413 that changes nothing. */
@Component
class Requests {
    private final LedgerProperties.Limits limits;
    private final ShardMap map;
    private final int shard;

    Requests(LedgerProperties props) {
        this.limits = props.limits();
        this.map = props.cluster().map();
        this.shard = props.shard();
    }

    /** Refuses a key that the shard map places on another shard: 421 {@code wrong_shard}. */
    Bytes owned(String field, Bytes key) {
        int home = map.shardOf(key);
        if (home != shard) {
            throw new ApiException("wrong_shard", HttpStatusCode.valueOf(421), field + ": key " + Wire.b64(key)
                    + " belongs to shard " + home + " in shard map version " + map.version() + ", this is shard "
                    + shard);
        }
        return key;
    }

    LedgerProperties.Limits limits() {
        return limits;
    }

    List<Bytes> keys(String field, List<String> b64) {
        if (b64 == null || b64.isEmpty()) {
            throw ApiException.malformed(field + ": at least one key");
        }
        if (b64.size() > limits.maxKeysPerRequest()) {
            throw ApiException.tooLarge(field + ": " + b64.size() + " keys, the limit is " + limits.maxKeysPerRequest());
        }
        return b64.stream().map(k -> key(field, k)).toList();  // key() checks the shard
    }

    /** A key this shard holds. */
    Bytes key(String field, String b64) {
        return owned(field, anyKey(field, b64));
    }

    private Bytes anyKey(String field, String b64) {
        Bytes k = decode(field, b64);
        if (k.length() == 0) {
            throw ApiException.malformed(field + ": empty key");
        }
        if (k.length() > limits.maxKeyBytes()) {
            throw ApiException.tooLarge(field + ": key of " + k.length() + " bytes, the limit is " + limits.maxKeyBytes());
        }
        return k;
    }

    /** An optional count: {@code dflt} when absent, at least 1, at most {@code max} (else 413). */
    int limit(String field, Integer value, int dflt, int max) {
        int n = value == null ? dflt : value;
        if (n < 1) {
            throw ApiException.malformed(field + ": at least 1");
        }
        if (n > max) {
            throw ApiException.tooLarge(field + ": at most " + max);
        }
        return n;
    }

    /** A range bound: any key, since a range spans every shard. */
    Bytes optionalKey(String field, String b64) {
        return b64 == null ? null : anyKey(field, b64);
    }

    Bytes decode(String field, String b64) {
        try {
            return Wire.requiredBytes(field, b64);
        } catch (Wire.BadWireException e) {
            throw ApiException.malformed(e.getMessage());
        }
    }

    <T> T body(T body) {
        if (body == null) {
            throw ApiException.malformed("missing request body");
        }
        return body;
    }
}
