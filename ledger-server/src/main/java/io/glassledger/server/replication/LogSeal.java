package io.glassledger.server.replication;

import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.crypto.SigningKey;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The origin seal on every entry of a shard's Raft log (FORMAT.md §15.5): only the shard's replicas hold its key, so
 * an entry that did not come from one of them is refused before it reaches a follower's log ({@code MemberGate}) and
 * before it is applied ({@link ShardStateMachine}).
 * <pre>
 *   sealed = u8 0x02 || tag[32] || entry
 *   tag    = HMAC-SHA256(K, entry)
 *   K      = HMAC-SHA256(seed, "glassledger shard log seal v1" || u32 shard)
 * </pre>
 * where {@code seed} is the shard's Ed25519 signing-key seed, which every replica of a shard shares (they sign one
 * ledger), and {@code entry} is the engine's entry ({@code ReplicatedLog.encode}, starting with its own version 1).
 * Thread-safe: each call takes its own {@link Mac}.
 */
public final class LogSeal {
    /** The first byte of a sealed entry. */
    public static final int SEALED = 0x02;
    static final int TAG_BYTES = 32;
    private static final byte[] DOMAIN = "glassledger shard log seal v1".getBytes(StandardCharsets.US_ASCII);

    private final SecretKeySpec key;

    private LogSeal(byte[] key) {
        this.key = new SecretKeySpec(key, "HmacSHA256");
    }

    /** The seal of shard {@code shard}'s log, keyed from its signing key. */
    public static LogSeal of(SigningKey shardKey, int shard) {
        byte[] info = Arrays.copyOf(DOMAIN, DOMAIN.length + 4);
        info[DOMAIN.length] = (byte) (shard >>> 24);
        info[DOMAIN.length + 1] = (byte) (shard >>> 16);
        info[DOMAIN.length + 2] = (byte) (shard >>> 8);
        info[DOMAIN.length + 3] = (byte) shard;
        return new LogSeal(hmac(new SecretKeySpec(shardKey.seed(), "HmacSHA256"), info, 0, info.length));
    }

    /** {@code entry} sealed. */
    public byte[] seal(byte[] entry) {
        byte[] out = new byte[1 + TAG_BYTES + entry.length];
        out[0] = SEALED;
        System.arraycopy(hmac(key, entry, 0, entry.length), 0, out, 1, TAG_BYTES);
        System.arraycopy(entry, 0, out, 1 + TAG_BYTES, entry.length);
        return out;
    }

    /** The entry inside {@code sealed}; throws {@link MalformedException} unless it is sealed with this key. */
    public byte[] open(byte[] sealed) {
        if (sealed.length < 1 + TAG_BYTES || (sealed[0] & 0xff) != SEALED) {
            throw new MalformedException("not a sealed log entry (" + sealed.length + " bytes"
                    + (sealed.length > 0 ? ", first byte " + (sealed[0] & 0xff) : "") + ")");
        }
        byte[] tag = hmac(key, sealed, 1 + TAG_BYTES, sealed.length - 1 - TAG_BYTES);
        if (!MessageDigest.isEqual(tag, Arrays.copyOfRange(sealed, 1, 1 + TAG_BYTES))) {
            throw new MalformedException("the entry's seal does not verify under the shard's key: it did not come "
                    + "from a replica of this shard");
        }
        return Arrays.copyOfRange(sealed, 1 + TAG_BYTES, sealed.length);
    }

    private static byte[] hmac(SecretKeySpec k, byte[] data, int off, int len) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(k);
            m.update(data, off, len);
            return m.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
