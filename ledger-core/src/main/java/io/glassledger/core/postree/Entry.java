package io.glassledger.core.postree;

import io.glassledger.core.codec.ByteReader;
import io.glassledger.core.codec.ByteWriter;
import io.glassledger.core.codec.MalformedException;
import io.glassledger.core.hash.Bytes;
import io.glassledger.core.hash.Hash;
import io.glassledger.core.hash.Hashing;
import java.util.Objects;

/**
 * One item of a leaf: a key, its value (or a tombstone), the block that wrote this version, and the hash of
 * the leaf node that held the previous version ({@link Hash#ZERO} if none).
 *
 * <p>Canonical encoding, hashed as H(0x00 || encoding):
 * {@code varint(len key) key varint(tombstone ? 0 : len value + 1) value varint(version) prev[32]}.
 */
public final class Entry {
    public static final int MAX_KEY_BYTES = 1024;
    public static final int MAX_VALUE_BYTES = 1 << 20;

    private final Bytes key;
    private final Bytes value;
    private final long version;
    private final Hash prev;
    private byte[] encoded;
    private Hash hash;

    private Entry(Bytes key, Bytes value, long version, Hash prev, byte[] encoded) {
        this.key = key;
        this.value = value;
        this.version = version;
        this.prev = prev;
        this.encoded = encoded;
    }

    public static Entry of(Bytes key, Bytes value, long version, Hash prev) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(prev, "prev");
        if (key.length() == 0 || key.length() > MAX_KEY_BYTES) {
            throw new IllegalArgumentException("key must be 1.." + MAX_KEY_BYTES + " bytes, got " + key.length());
        }
        if (value != null && value.length() > MAX_VALUE_BYTES) {
            throw new IllegalArgumentException("value exceeds " + MAX_VALUE_BYTES + " bytes");
        }
        if (version < 0) {
            throw new IllegalArgumentException("negative version");
        }
        return new Entry(key, value, version, prev, null);
    }

    public static Entry tombstone(Bytes key, long version, Hash prev) {
        return of(key, null, version, prev);
    }

    public Bytes key() {
        return key;
    }

    /** The value, or null for a tombstone. */
    public Bytes value() {
        return value;
    }

    public boolean isTombstone() {
        return value == null;
    }

    public long version() {
        return version;
    }

    public Hash prev() {
        return prev;
    }

    public byte[] encoded() {
        byte[] e = encoded;
        if (e == null) {
            ByteWriter w = new ByteWriter(key.length() + (value == null ? 0 : value.length()) + 48);
            write(w);
            e = w.toByteArray();
            encoded = e;
        }
        return e;
    }

    public int encodedLength() {
        return encoded().length;
    }

    public Hash hash() {
        Hash h = hash;
        if (h == null) {
            byte[] e = encoded();
            h = Hashing.entry(e, 0, e.length);
            hash = h;
        }
        return h;
    }

    public void write(ByteWriter w) {
        if (encoded != null) {
            w.raw(encoded);
            return;
        }
        w.lengthPrefixed(key);
        if (value == null) {
            w.varint(0);
        } else {
            w.varint(value.length() + 1L);
            w.raw(value.unsafeArray());
        }
        w.varint(version);
        w.hash(prev);
    }

    public static Entry read(ByteReader r) {
        int start = r.position();
        Bytes key = r.lengthPrefixed(MAX_KEY_BYTES);
        if (key.length() == 0) {
            throw new MalformedException("empty key");
        }
        int vlen = r.varint(MAX_VALUE_BYTES + 1);
        Bytes value = vlen == 0 ? null : r.bytes(vlen - 1);
        long version = r.varint();
        Hash prev = r.hash();
        byte[] enc = java.util.Arrays.copyOfRange(r.array(), start, r.position());
        return new Entry(key, value, version, prev, enc);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Entry e && key.equals(e.key) && Objects.equals(value, e.value)
                && version == e.version && prev.equals(e.prev);
    }

    @Override
    public int hashCode() {
        return key.hashCode() * 31 + Long.hashCode(version);
    }

    @Override
    public String toString() {
        return "Entry[" + key + "=" + (value == null ? "<tombstone>" : value) + " @" + version + " prev=" + prev + "]";
    }
}
