package io.glassledger.core.store;

import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import java.util.Arrays;

/**
 * The byte layout of a {@link FlatStore} row (FORMAT.md §19.2), which sorts every version of every key so that a
 * key's versions are adjacent, newest first, and keys in the tree's order (unsigned bytes, a prefix first).
 * <pre>
 * row key   = escaped(key) ‖ 00 00 ‖ u64 (2^63 − 1 − block)       big-endian, so the newest version sorts first
 * escaped   = the key with every 00 byte written 00 ff           (order-preserving: the terminator 00 00 sorts
 *                                                                 below every continuation of the key)
 * row value = 00                                                 a delete (tombstone)
 *           | 01 ‖ valueHash[32] ‖ locator                       a put: H(03 ‖ value) and its ValueLocator
 * </pre>
 */
public final class FlatRows {
    static final int VERSION_BYTES = 8;

    /** One version of a key as its row holds it: the block that wrote it, and its value's hash and place. */
    public record Version(long block, Hash valueHash, ValueLocator at) {
        public boolean isDelete() {
            return valueHash == null;
        }
    }

    private FlatRows() {
    }

    /** {@code escaped(key) ‖ 00 00}: the prefix every row of {@code key} starts with. */
    static byte[] keyPrefix(Bytes key) {
        byte[] k = key.unsafeArray();
        int zeros = 0;
        for (byte b : k) {
            if (b == 0) {
                zeros++;
            }
        }
        byte[] out = new byte[k.length + zeros + 2];
        int o = 0;
        for (byte b : k) {
            out[o++] = b;
            if (b == 0) {
                out[o++] = (byte) 0xff;
            }
        }
        return out;  // the last two bytes are the terminator 00 00
    }

    /** The row key of {@code key}'s version written by {@code block}; with a prefix from {@link #keyPrefix}. */
    static byte[] rowKey(byte[] prefix, long block) {
        if (block < 0) {
            throw new IllegalArgumentException("block " + block);
        }
        byte[] rk = Arrays.copyOf(prefix, prefix.length + VERSION_BYTES);
        long inv = Long.MAX_VALUE - block;
        for (int i = 0; i < VERSION_BYTES; i++) {
            rk[prefix.length + i] = (byte) (inv >>> (56 - 8 * i));
        }
        return rk;
    }

    /** The smallest row key above every row of the key whose prefix this is. */
    static byte[] pastKey(byte[] prefix) {
        byte[] p = prefix.clone();
        p[p.length - 1] = 1;
        return p;
    }

    /** The prefix ({@link #keyPrefix}) of a row key. */
    static byte[] prefixOf(byte[] rowKey) {
        return Arrays.copyOf(rowKey, rowKey.length - VERSION_BYTES);
    }

    static boolean hasPrefix(byte[] rowKey, byte[] prefix) {
        return rowKey.length == prefix.length + VERSION_BYTES
                && Arrays.equals(rowKey, 0, prefix.length, prefix, 0, prefix.length);
    }

    static long blockOf(byte[] rowKey) {
        long inv = 0;
        for (int i = rowKey.length - VERSION_BYTES; i < rowKey.length; i++) {
            inv = (inv << 8) | (rowKey[i] & 0xff);
        }
        return Long.MAX_VALUE - inv;
    }

    /** The key of a row key (the escape undone). */
    static Bytes keyOf(byte[] rowKey) {
        int end = rowKey.length - VERSION_BYTES - 2;
        byte[] out = new byte[end];
        int n = 0;
        for (int i = 0; i < end; i++) {
            out[n++] = rowKey[i];
            if (rowKey[i] == 0) {
                i++;  // the escape's ff
            }
        }
        return Bytes.wrap(Arrays.copyOf(out, n));
    }

    static byte[] encodeValue(Hash valueHash, ValueLocator at) {
        if (valueHash == null) {
            return new byte[]{0};
        }
        ByteWriter w = new ByteWriter(1 + Hash.LENGTH + at.encodedSize()).u8(1).hash(valueHash);
        return at.encode(w).toByteArray();
    }

    static Version decodeValue(long block, byte[] value) {
        ByteReader r = new ByteReader(value);
        int kind = r.u8();
        Version v = switch (kind) {
            case 0 -> new Version(block, null, null);
            case 1 -> new Version(block, r.hash(), ValueLocator.decode(r));
            default -> throw new StoreException("a flat row of kind " + kind, null);
        };
        r.expectEnd();
        return v;
    }
}
