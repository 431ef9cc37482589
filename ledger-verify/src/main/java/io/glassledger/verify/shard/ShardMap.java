package io.glassledger.verify.shard;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hashing;
import java.security.MessageDigest;

/**
 * Which shard holds a key (FORMAT.md §17): jump consistent hash (Lamping and Veach, 2014) of the first 8 bytes of
 * SHA-256(key) over {@code shards} buckets. Growing from n to n+1 shards moves only about 1/(n+1) of the keys, and
 * each request names the map {@code version} it routed with, so a server can refuse a client whose map is stale.
 */
public record ShardMap(long version, int shards) {
    public static final int MAX_SHARDS = 1024;

    public ShardMap {
        if (version < 1) {
            throw new IllegalArgumentException("shard map version must be at least 1");
        }
        if (shards < 1 || shards > MAX_SHARDS) {
            throw new IllegalArgumentException("shards must be 1.." + MAX_SHARDS);
        }
    }

    /** One shard, version 1: a standalone server. */
    public static ShardMap single() {
        return new ShardMap(1, 1);
    }

    public int shardOf(Bytes key) {
        return shards == 1 ? 0 : jump(hash64(key), shards);
    }

    /** The first 8 bytes of SHA-256(key), big-endian. */
    static long hash64(Bytes key) {
        MessageDigest md = Hashing.sha();
        md.update(key.unsafeArray());
        byte[] h = md.digest();
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (h[i] & 0xff);
        }
        return v;
    }

    /** Jump consistent hash; Java's double arithmetic is IEEE 754 binary64 everywhere, so the result is portable. */
    static int jump(long key, int buckets) {
        long b = -1;
        long j = 0;
        while (j < buckets) {
            b = j;
            key = key * 2862933555777941757L + 1;
            j = (long) ((b + 1) * ((double) (1L << 31) / (double) ((key >>> 33) + 1)));
        }
        return (int) b;
    }
}
