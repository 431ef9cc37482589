package io.glassledger.server.api;

import io.glassledger.api.Wire;
import io.glassledger.core.hash.Bytes;
import io.glassledger.server.LedgerProperties;
import java.util.List;
import org.springframework.stereotype.Component;

/** Decodes and bounds request fields; every refusal is a 400 or 413 that changes nothing. */
@Component
class Requests {
    private final LedgerProperties.Limits limits;

    Requests(LedgerProperties props) {
        this.limits = props.limits();
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
        return b64.stream().map(k -> key(field, k)).toList();
    }

    Bytes key(String field, String b64) {
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

    Bytes optionalKey(String field, String b64) {
        return b64 == null ? null : key(field, b64);
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
