package io.glassledger.api;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.KeyClaim;
import io.glassledger.verify.proof.SignedHead;
import io.glassledger.verify.proof.Version;
import io.glassledger.verify.txn.BlockProof;
import io.glassledger.verify.txn.Promise;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Conversions between the API's JSON records ({@link Dto}) and ledger-verify's values, both ways: the one place the
 * server and the SDK translate. Malformed input throws {@link BadWireException}.
 */
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

    public static Dto.SignedHeadDto signedHead(SignedHead h) {
        return new Dto.SignedHeadDto(h.shard(), h.digest().blockNo(), h.digest().root().hex(), h.timestamp(),
                h.serverKey().hex(), h.signature().hex());
    }

    /** Decodes (does not verify) a signed head; malformed fields throw {@link BadWireException}. */
    public static SignedHead signedHead(String field, Dto.SignedHeadDto d) {
        if (d == null) {
            throw new BadWireException(field, "missing");
        }
        if (d.shard() < 0) {
            throw new BadWireException(field + ".shard", "negative");
        }
        return new SignedHead(d.shard(), digest(field, new Dto.DigestDto(d.block(),
                d.hash())), d.timestamp(), hex(field + ".serverKey", d.serverKey(),
                io.glassledger.verify.crypto.Ed25519.PUBLIC_KEY_BYTES), hex(field + ".signature", d.signature(),
                io.glassledger.verify.crypto.Ed25519.SIGNATURE_BYTES));
    }

    public static Dto.PromiseDto promise(Promise p) {
        return new Dto.PromiseDto(p.txId().hex(), p.shard(), p.blockNo(), digest(p.served()));
    }

    /** @param encodedProof {@code bp.proof().encode()}, which the caller has already made and charged */
    public static Dto.KeysProofDto keysProof(BlockProof bp, byte[] encodedProof, SignedHead head) {
        return new Dto.KeysProofDto(bp.blockNo(), "READY", digest(bp.digest()), claims(bp.claims()),
                b64(encodedProof), head == null ? null : signedHead(head));
    }

    public static Dto.KeysProofDto pendingProof(long block) {
        return new Dto.KeysProofDto(block, "PENDING", null, null, null, null);
    }

    public static Dto.ClaimDto claim(KeyClaim c) {
        return new Dto.ClaimDto(b64(c.key()), b64(c.value()));
    }

    public static List<Dto.ClaimDto> claims(List<KeyClaim> claims) {
        return claims.stream().map(Wire::claim).toList();
    }

    public static List<KeyClaim> claims(String field, List<Dto.ClaimDto> claims) {
        if (claims == null) {
            throw new BadWireException(field, "missing");
        }
        List<KeyClaim> out = new ArrayList<>(claims.size());
        for (Dto.ClaimDto c : claims) {
            if (c == null) {
                throw new BadWireException(field, "null claim");
            }
            out.add(new KeyClaim(requiredBytes(field + ".key", c.key()), bytes(field + ".value", c.value())));
        }
        return out;
    }

    /** A history's versions, newest first; a null value is a deletion. */
    public static List<Version> versions(String field, List<Dto.VersionDto> versions) {
        if (versions == null) {
            throw new BadWireException(field, "missing");
        }
        List<Version> out = new ArrayList<>(versions.size());
        for (Dto.VersionDto v : versions) {
            if (v == null) {
                throw new BadWireException(field, "null version");
            }
            out.add(new Version(bytes(field + ".value", v.value()), v.block()));
        }
        return out;
    }

    /** The bytes of a required base64 field, without a copy (callers must not modify them). */
    public static byte[] base64(String field, String b64) {
        return requiredBytes(field, b64).unsafeArray();
    }
}
