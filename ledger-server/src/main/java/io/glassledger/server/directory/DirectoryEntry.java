package io.glassledger.server.directory;

import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.crypto.Ed25519;
import io.glassledger.verify.hash.Bytes;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * One entry of the cluster directory's log (docs/FORMAT.md §15.6): a batch of changes to the cluster's identities and
 * shard map, applied together, with a random id (an entry applies once: a replayed copy is refused) and an
 * HMAC-SHA256 under the cluster's peer key (only cluster members propose entries).
 *
 * <pre>
 * entry  = u8 version (1) ‖ 16-byte id ‖ u8 seed (0 or 1) ‖ varint n ‖ n × change ‖ 32-byte HMAC
 * change = u8 type ‖ fields:
 *   1 API key       lp(SHA-256 of the key, 32 bytes) ‖ lp(identity) ‖ lp(role)
 *   2 revoke        lp(key id, 16 hex digits)
 *   3 client key    lp(identity) ‖ 32-byte Ed25519 public key
 *   4 shard         varint shard ‖ varint m ‖ m × lp(replica's HTTPS URL)
 * HMAC = HMAC-SHA256(key = the peer key's UTF-8 bytes, "glassledger-directory-v1" ‖ every byte before it)
 * </pre>
 * {@code lp} is a varint length then that many bytes (UTF-8 for text). A seed entry (seed = 1) is the directory's
 * first content, proposed by its first leader from what that member holds; it applies only to an empty directory.
 */
public record DirectoryEntry(Bytes id, boolean seed, List<Change> changes) {
    static final int VERSION = 1;
    static final int ID_BYTES = 16;
    static final int MAC_BYTES = 32;
    private static final int MAX_TEXT = 256;
    private static final int MAX_URL = 2048;
    private static final int MAX_CHANGES = 100_000;
    private static final int MAX_REPLICAS = 7;
    private static final byte[] DOMAIN = "glassledger-directory-v1".getBytes(StandardCharsets.UTF_8);
    private static final SecureRandom RANDOM = new SecureRandom();

    public DirectoryEntry {
        changes = List.copyOf(changes);
        if (id.length() != ID_BYTES) {
            throw new IllegalArgumentException("an entry id has " + ID_BYTES + " bytes");
        }
    }

    /** A change to the directory. */
    public sealed interface Change permits ApiKey, Revoke, ClientKey, ShardReplicas {
    }

    /** An API key, by the SHA-256 (hex) of the key: the key itself is never in the log. */
    public record ApiKey(String hashHex, String clientId, String role) implements Change {
    }

    /** Revokes the API key whose id (the first 16 hex digits of its SHA-256) this is. */
    public record Revoke(String keyId) implements Change {
    }

    /** GlassDB's Init(pk): an identity's Ed25519 key. */
    public record ClientKey(String clientId, Bytes publicKey) implements Change {
    }

    /** Shard {@code shard}'s replicas, by HTTPS URL: the shard map's entry for it. */
    public record ShardReplicas(int shard, List<String> urls) implements Change {
        public ShardReplicas {
            urls = List.copyOf(urls);
        }
    }

    /** An entry with a fresh random id. */
    public static DirectoryEntry of(boolean seed, List<Change> changes) {
        byte[] id = new byte[ID_BYTES];
        RANDOM.nextBytes(id);
        return new DirectoryEntry(Bytes.wrap(id), seed, changes);
    }

    /** The entry's bytes, sealed with the peer key. */
    public byte[] encode(String peerKey) {
        ByteWriter w = new ByteWriter(64).u8(VERSION).raw(id.toByteArray()).u8(seed ? 1 : 0).varint(changes.size());
        for (Change c : changes) {
            if (c instanceof ApiKey k) {
                w.u8(1).lengthPrefixed(Bytes.fromHex(k.hashHex()).toByteArray()).lengthPrefixed(utf8(k.clientId()))
                        .lengthPrefixed(utf8(k.role()));
            } else if (c instanceof Revoke r) {
                w.u8(2).lengthPrefixed(utf8(r.keyId()));
            } else if (c instanceof ClientKey k) {
                w.u8(3).lengthPrefixed(utf8(k.clientId())).raw(k.publicKey().toByteArray());
            } else if (c instanceof ShardReplicas s) {
                w.u8(4).varint(s.shard()).varint(s.urls().size());
                s.urls().forEach(u -> w.lengthPrefixed(utf8(u)));
            }
        }
        byte[] body = w.toByteArray();
        return new ByteWriter(body.length + MAC_BYTES).raw(body).raw(mac(peerKey, body, body.length))
                .toByteArray();
    }

    /**
     * The entry these bytes encode, if sealed with {@code peerKey}.
     *
     * @throws MalformedException not an entry in its one encoding, or not sealed with the peer key
     */
    public static DirectoryEntry decode(byte[] data, String peerKey) {
        if (data.length < 1 + ID_BYTES + 2 + MAC_BYTES) {
            throw new MalformedException("a directory entry of " + data.length + " bytes is too short");
        }
        int bodyEnd = data.length - MAC_BYTES;
        byte[] expected = mac(peerKey, data, bodyEnd);
        byte[] got = java.util.Arrays.copyOfRange(data, bodyEnd, data.length);
        if (!MessageDigest.isEqual(expected, got)) {
            throw new MalformedException("the directory entry is not sealed with the cluster's peer key");
        }
        ByteReader in = new ByteReader(data, 0, bodyEnd);
        int version = in.u8();
        if (version != VERSION) {
            throw new MalformedException("unknown directory entry version " + version);
        }
        Bytes id = in.bytes(ID_BYTES);
        int seedByte = in.u8();
        if (seedByte > 1) {
            throw new MalformedException("seed flag " + seedByte);
        }
        int n = in.count(MAX_CHANGES, 2);
        List<Change> changes = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int type = in.u8();
            changes.add(switch (type) {
                case 1 -> new ApiKey(hash(in), text(in, MAX_TEXT), text(in, MAX_TEXT));
                case 2 -> new Revoke(text(in, MAX_TEXT));
                case 3 -> new ClientKey(text(in, MAX_TEXT), in.bytes(Ed25519.PUBLIC_KEY_BYTES));
                case 4 -> {
                    int shard = in.varint(1023);
                    int m = in.count(MAX_REPLICAS, 1);
                    List<String> urls = new ArrayList<>(m);
                    for (int j = 0; j < m; j++) {
                        urls.add(text(in, MAX_URL));
                    }
                    yield new ShardReplicas(shard, urls);
                }
                default -> throw new MalformedException("unknown directory change type " + type);
            });
        }
        in.expectEnd();
        DirectoryEntry e = new DirectoryEntry(id, seedByte == 1, changes);
        if (!java.util.Arrays.equals(e.encode(peerKey), data)) {
            throw new MalformedException("not the canonical encoding of a directory entry");
        }
        return e;
    }

    private static String hash(ByteReader in) {
        Bytes h = in.lengthPrefixed(32);
        if (h.length() != 32) {
            throw new MalformedException("an API key's hash has 32 bytes, not " + h.length());
        }
        return h.hex();
    }

    private static String text(ByteReader in, int max) {
        byte[] b = in.lengthPrefixed(max).toByteArray();
        String s = new String(b, StandardCharsets.UTF_8);
        if (!java.util.Arrays.equals(s.getBytes(StandardCharsets.UTF_8), b)) {
            throw new MalformedException("text that is not UTF-8");
        }
        return s;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] mac(String peerKey, byte[] body, int length) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(peerKey.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            m.update(DOMAIN);
            m.update(body, 0, length);
            return m.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
