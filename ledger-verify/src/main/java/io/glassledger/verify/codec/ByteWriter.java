package io.glassledger.verify.codec;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import java.util.Arrays;

/** A growable big-endian writer for the canonical encodings of docs/FORMAT.md. */
public final class ByteWriter {
    private byte[] buf;
    private int len;

    public ByteWriter() {
        this(64);
    }

    public ByteWriter(int capacity) {
        buf = new byte[Math.max(16, capacity)];
    }

    private void ensure(int extra) {
        if (len + extra > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + extra));
        }
    }

    /** Bytes written so far. */
    public int size() {
        return len;
    }

    public ByteWriter u8(int v) {
        ensure(1);
        buf[len++] = (byte) v;
        return this;
    }

    public ByteWriter u32(int v) {
        ensure(4);
        for (int s = 24; s >= 0; s -= 8) {
            buf[len++] = (byte) (v >>> s);
        }
        return this;
    }

    public ByteWriter u64(long v) {
        ensure(8);
        for (int s = 56; s >= 0; s -= 8) {
            buf[len++] = (byte) (v >>> s);
        }
        return this;
    }

    /** Unsigned LEB128, minimal length. */
    public ByteWriter varint(long v) {
        if (v < 0) {
            throw new IllegalArgumentException("varint must be non-negative: " + v);
        }
        ensure(10);
        while ((v & ~0x7FL) != 0) {
            buf[len++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[len++] = (byte) v;
        return this;
    }

    public ByteWriter raw(byte[] b) {
        return raw(b, 0, b.length);
    }

    public ByteWriter raw(byte[] b, int off, int n) {
        ensure(n);
        System.arraycopy(b, off, buf, len, n);
        len += n;
        return this;
    }

    public ByteWriter hash(Hash h) {
        return raw(h.unsafeArray());
    }

    /** varint(length) || bytes */
    public ByteWriter lengthPrefixed(Bytes b) {
        varint(b.length());
        return raw(b.unsafeArray());
    }

    public ByteWriter lengthPrefixed(byte[] b) {
        varint(b.length);
        return raw(b);
    }

    public int length() {
        return len;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(buf, len);
    }

    public static int varintSize(long v) {
        int n = 1;
        while ((v & ~0x7FL) != 0) {
            n++;
            v >>>= 7;
        }
        return n;
    }
}
