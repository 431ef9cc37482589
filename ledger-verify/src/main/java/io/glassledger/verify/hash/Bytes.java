package io.glassledger.verify.hash;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * An immutable byte string, ordered as unsigned bytes, lexicographically (a proper prefix sorts first).
 * Copies in and out so a record may hold it safely.
 */
public final class Bytes implements Comparable<Bytes> {
    public static final Bytes EMPTY = new Bytes(new byte[0]);

    private final byte[] data;
    private int hash;

    private Bytes(byte[] data) {
        this.data = data;
    }

    public static Bytes of(byte[] data) {
        return new Bytes(data.clone());
    }

    public static Bytes of(byte[] data, int from, int to) {
        return new Bytes(Arrays.copyOfRange(data, from, to));
    }

    public static Bytes utf8(String s) {
        return new Bytes(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    public static Bytes fromHex(String hex) {
        return new Bytes(HexFormat.of().parseHex(hex));
    }

    /** Takes ownership of {@code data}; the caller must not change it afterwards. */
    public static Bytes wrap(byte[] data) {
        return new Bytes(data);
    }

    public int length() {
        return data.length;
    }

    public byte at(int i) {
        return data[i];
    }

    public byte[] toByteArray() {
        return data.clone();
    }

    /** The backing array, for hashing and encoding without a copy. Must not be modified. */
    public byte[] unsafeArray() {
        return data;
    }

    public Bytes prefix(int n) {
        return n == data.length ? this : new Bytes(Arrays.copyOf(data, n));
    }

    public String hex() {
        return HexFormat.of().formatHex(data);
    }

    public String utf8String() {
        return new String(data, java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public int compareTo(Bytes o) {
        return Arrays.compareUnsigned(data, o.data);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Bytes b && Arrays.equals(data, b.data);
    }

    @Override
    public int hashCode() {
        int h = hash;
        if (h == 0) {
            h = Arrays.hashCode(data);
            hash = h;
        }
        return h;
    }

    @Override
    public String toString() {
        return data.length <= 64 ? hex() : hex().substring(0, 128) + "…(" + data.length + " bytes)";
    }
}
