package io.glassledger.client;

import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
import io.glassledger.verify.crypto.Ed25519;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.SignedHead;
import io.glassledger.verify.proof.VerificationException;
import java.io.IOException;
import java.util.Objects;

/**
 * What a client trusts about one shard: the server's Ed25519 key (pinned on first use), the shard, the trusted
 * digest, and the newest signed head it holds for that trust. The head is at the digest's block when trust came
 * from a head (or from a proof at the head's digest), and older when it came from an unsigned proof digest.
 *
 * <p>State file (JSON, UTF-8), written by {@link TrustStore}:
 * <pre>{@code
 * {
 *   "format": "glassledger-client-state/1",
 *   "serverKey": "<64 hex: Ed25519 public key>",
 *   "shard": 0,
 *   "trusted": {"block": 42, "hash": "<64 hex>"},
 *   "signedHead": {"shard": 0, "block": 42, "hash": "<64 hex>", "timestamp": 1732000000000,
 *                  "serverKey": "<64 hex>", "signature": "<128 hex>"},
 *   "updatedMillis": 1732000000123
 * }
 * }</pre>
 * {@code signedHead} may be null; when present it must verify under {@code serverKey}, be of {@code shard}, and not be
 * newer than {@code trusted} (equal to it at the same block).
 */
public record TrustedState(Bytes serverKey, int shard, Digest digest, SignedHead signedHead) {
    public static final String FORMAT = "glassledger-client-state/1";

    /** The file's JSON form. */
    record File(String format, String serverKey, int shard, Dto.DigestDto trusted, Dto.SignedHeadDto signedHead,
                Long updatedMillis) {
    }

    public TrustedState {
        Objects.requireNonNull(serverKey, "serverKey");
        Objects.requireNonNull(digest, "digest");
        if (serverKey.length() != Ed25519.PUBLIC_KEY_BYTES) {
            throw new IllegalArgumentException("server key must be 32 bytes");
        }
        if (signedHead != null) {
            if (signedHead.shard() != shard || !signedHead.serverKey().equals(serverKey)) {
                throw new IllegalArgumentException("signed head is of another shard or server key");
            }
            long hb = signedHead.digest().blockNo();
            if (hb > digest.blockNo() || hb == digest.blockNo() && !signedHead.digest().equals(digest)) {
                throw new IllegalArgumentException("signed head at block " + hb + " does not back digest " + digest);
            }
        }
    }

    /** The same trust with {@code next} as digest; the signed head moves along only if it signs {@code next}. */
    TrustedState advancedTo(Digest next, SignedHead head) {
        SignedHead h = head != null && head.digest().equals(next) ? head : signedHead;
        return new TrustedState(serverKey, shard, next, h);
    }

    byte[] toJson(long nowMillis) {
        try {
            return Json.FILES.writeValueAsBytes(new File(FORMAT, serverKey.hex(), shard, Wire.digest(digest),
                    signedHead == null ? null : Wire.signedHead(signedHead), nowMillis));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Parses and checks a state file's contents, including the signed head's signature.
     *
     * @throws IllegalStateException if the file is not a valid state; the client then refuses to start rather than
     *                               silently trusting anew
     */
    public static TrustedState fromJson(byte[] json) {
        File f;
        try {
            f = Json.FILES.readValue(json, File.class);
        } catch (IOException e) {
            throw new IllegalStateException("state file is not valid JSON: " + e.getMessage(), e);
        }
        if (f == null || !FORMAT.equals(f.format())) {
            throw new IllegalStateException("state file format is " + (f == null ? "null" : f.format())
                    + ", expected " + FORMAT);
        }
        try {
            Bytes key = Wire.hex("serverKey", f.serverKey(), Ed25519.PUBLIC_KEY_BYTES);
            SignedHead head = f.signedHead() == null ? null : Wire.signedHead("signedHead", f.signedHead());
            if (head != null) {
                head.verify(key);
            }
            return new TrustedState(key, f.shard(), Wire.digest("trusted", f.trusted()), head);
        } catch (VerificationException | IllegalArgumentException e) {
            throw new IllegalStateException("state file is invalid: " + e.getMessage(), e);
        }
    }

    /** Reads a state file; for tools and tests that inspect what a client trusts. */
    public static TrustedState load(java.nio.file.Path file) throws IOException {
        return fromJson(java.nio.file.Files.readAllBytes(file));
    }

    @Override
    public String toString() {
        return "TrustedState[shard " + shard + ", " + digest + ", server key " + serverKey.hex()
                + (signedHead == null ? "" : ", signed head at block " + signedHead.digest().blockNo()) + "]";
    }
}
