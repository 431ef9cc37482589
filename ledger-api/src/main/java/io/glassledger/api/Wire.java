package io.glassledger.api;

import io.glassledger.core.hash.Bytes;
import io.glassledger.core.hash.Hash;
import io.glassledger.core.proof.Digest;
import java.util.Base64;
import java.util.List;

/** Conversions between wire strings and ledger-core values. Malformed input throws {@link BadWireException}. */
public final class Wire {
    /** The request header naming the shard map version a client routed with (docs/API.md "Shards"). */
    public static final String SHARD_MAP_HEADER = "GlassLedger-Shard-Map";

    private Wire() {
    }

    /** A request body field that cannot be decoded; the server answers 400 with its name. */
    public static final class BadWireException extends IllegalArgumentException {
        private final String field;

        public BadWireException(String field, String message) {
            super(field + ": " + message);
            this.field = field;
        }

        public String field() {
            return field;
        }
    }

    public static String b64(Bytes b) {
        return b == null ? null : Base64.getEncoder().encodeToString(b.unsafeArray());
    }

    public static String b64(byte[] b) {
        return b == null ? null : Base64.getEncoder().encodeToString(b);
    }

    /** Null stays null (an absent value). */
    public static Bytes bytes(String field, String b64) {
        if (b64 == null) {
            return null;
        }
        try {
            return Bytes.wrap(Base64.getDecoder().decode(b64));
        } catch (IllegalArgumentException e) {
            throw new BadWireException(field, "not base64");
        }
    }

    public static Bytes requiredBytes(String field, String b64) {
        if (b64 == null) {
            throw new BadWireException(field, "missing");
        }
        return bytes(field, b64);
    }

    public static List<Bytes> keys(String field, List<String> b64s) {
        if (b64s == null) {
            throw new BadWireException(field, "missing");
        }
        return b64s.stream().map(s -> requiredBytes(field, s)).toList();
    }

    public static Hash hash(String field, String hex) {
        if (hex == null || hex.length() != 2 * Hash.LENGTH) {
            throw new BadWireException(field, "expected " + 2 * Hash.LENGTH + " hex digits");
        }
        try {
            return Hash.fromHex(hex);
        } catch (RuntimeException e) {
            throw new BadWireException(field, "not hex");
        }
    }

    public static Bytes hex(String field, String hex, int length) {
        if (hex == null || hex.length() != 2 * length) {
            throw new BadWireException(field, "expected " + 2 * length + " hex digits");
        }
        try {
            return Bytes.fromHex(hex);
        } catch (RuntimeException e) {
            throw new BadWireException(field, "not hex");
        }
    }

    public static Dto.DigestDto digest(Digest d) {
        return new Dto.DigestDto(d.blockNo(), d.root().hex());
    }

    public static Digest digest(String field, Dto.DigestDto d) {
        if (d == null) {
            throw new BadWireException(field, "missing");
        }
        if (d.block() < 0) {
            throw new BadWireException(field, "negative block");
        }
        return new Digest(d.block(), hash(field + ".hash", d.hash()));
    }

    public static Dto.SignedHeadDto signedHead(io.glassledger.core.proof.SignedHead h) {
        return new Dto.SignedHeadDto(h.shard(), h.digest().blockNo(), h.digest().root().hex(), h.timestamp(),
                h.serverKey().hex(), h.signature().hex());
    }

    /** Decodes (does not verify) a signed head; malformed fields throw {@link BadWireException}. */
    public static io.glassledger.core.proof.SignedHead signedHead(String field, Dto.SignedHeadDto d) {
        if (d == null) {
            throw new BadWireException(field, "missing");
        }
        if (d.shard() < 0) {
            throw new BadWireException(field + ".shard", "negative");
        }
        return new io.glassledger.core.proof.SignedHead(d.shard(), digest(field, new Dto.DigestDto(d.block(),
                d.hash())), d.timestamp(), hex(field + ".serverKey", d.serverKey(),
                io.glassledger.core.crypto.Ed25519.PUBLIC_KEY_BYTES), hex(field + ".signature", d.signature(),
                io.glassledger.core.crypto.Ed25519.SIGNATURE_BYTES));
    }
}
