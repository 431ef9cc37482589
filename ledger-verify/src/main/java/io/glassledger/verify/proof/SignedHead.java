package io.glassledger.verify.proof;

import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.crypto.Ed25519;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.format.FormatRule;
import io.glassledger.verify.hash.Bytes;
import java.util.Objects;

/**
 * A shard's statement "my ledger's digest at block b is d" signed with the shard's Ed25519 key (FORMAT.md §16).
 * Two signed heads of one shard that disagree (same block, different roots, or not append-only) are evidence of a
 * fork that anyone holding the server key can check.
 *
 * @param timestamp the block's timestamp (milliseconds); signed, so a head also dates the block
 */
public record SignedHead(int shard, Digest digest, long timestamp, Bytes serverKey, Bytes signature) {
    private static final byte[] DOMAIN = {'G', 'L', 'H', 'E', 'A', 'D', '1'};

    public SignedHead {
        Objects.requireNonNull(digest, "digest");
        Objects.requireNonNull(serverKey, "serverKey");
        Objects.requireNonNull(signature, "signature");
        if (shard < 0) {
            throw new IllegalArgumentException("negative shard");
        }
    }

    /** {@code "GLHEAD1" ‖ u32 shard ‖ u64 block ‖ root(32) ‖ u64 timestamp}. */
    public static byte[] message(int shard, Digest d, long timestamp) {
        return new ByteWriter(64).raw(DOMAIN).u32(shard).u64(d.blockNo()).hash(d.root()).u64(timestamp).toByteArray();
    }

    public static SignedHead sign(SigningKey key, int shard, Digest d, long timestamp) {
        return new SignedHead(shard, d, timestamp, key.publicKey(), Bytes.wrap(key.sign(message(shard, d, timestamp))));
    }

    /** Throws unless the signature is the server key's over this head. */
    public void verify() throws VerificationException {
        byte[] msg = message(shard, digest, timestamp);
        if (signature.length() != Ed25519.SIGNATURE_BYTES && FormatRule.SIGNATURE_LENGTH.enforced()
                || !Ed25519.verify(serverKey, msg, 0, msg.length, signature.unsafeArray(), 0)) {
            throw new VerificationException("signed head of shard " + shard + " at block " + digest.blockNo()
                    + " does not verify against server key " + serverKey.hex());
        }
    }

    /** Throws unless signed by {@code expectedKey} (a pinned server key). */
    public void verify(Bytes expectedKey) throws VerificationException {
        if (!serverKey.equals(expectedKey)) {
            throw new VerificationException("signed head is by key " + serverKey.hex() + ", expected "
                    + expectedKey.hex());
        }
        verify();
    }
}
