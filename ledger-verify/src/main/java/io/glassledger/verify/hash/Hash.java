package io.glassledger.verify.hash;

import java.util.Arrays;
import java.util.HexFormat;

/** An immutable 32-byte digest. {@link #ZERO} stands for "nothing": the empty tree, no previous version. */
public final class Hash implements Comparable<Hash> {
    public static final int LENGTH = 32;
    public static final Hash ZERO = new Hash(new byte[LENGTH]);

    private final byte[] data;

    private Hash(byte[] data) {
        this.data = data;
    }

    public static Hash of(byte[] data) {
        if (data.length != LENGTH) {
            throw new IllegalArgumentException("a hash is 32 bytes, got " + data.length);
        }
        return new Hash(data.clone());
    }

    public static Hash of(byte[] data, int offset) {
        if (offset < 0 || offset + LENGTH > data.length) {
            throw new IllegalArgumentException("not enough bytes for a hash at offset " + offset);
        }
        return new Hash(Arrays.copyOfRange(data, offset, offset + LENGTH));
    }

    public static Hash fromHex(String hex) {
        return of(HexFormat.of().parseHex(hex));
    }

    /** Takes ownership of a fresh 32-byte array. */
    static Hash wrap(byte[] data) {
        return new Hash(data);
    }

    public boolean isZero() {
        return this.equals(ZERO);
    }

    public byte[] toByteArray() {
        return data.clone();
    }

    /** The backing array, for hashing and encoding without a copy. Must not be modified. */
    public byte[] unsafeArray() {
        return data;
    }

    public String hex() {
        return HexFormat.of().formatHex(data);
    }

    /** First 8 bytes as a big-endian long, used by the index-node boundary pattern. */
    public long prefixLong() {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (data[i] & 0xff);
        }
        return v;
    }

    @Override
    public int compareTo(Hash o) {
        return Arrays.compareUnsigned(data, o.data);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Hash h && Arrays.equals(data, h.data);
    }

    @Override
    public int hashCode() {
        return (data[0] & 0xff) << 24 | (data[1] & 0xff) << 16 | (data[2] & 0xff) << 8 | (data[3] & 0xff);
    }

    @Override
    public String toString() {
        return hex();
    }
}
