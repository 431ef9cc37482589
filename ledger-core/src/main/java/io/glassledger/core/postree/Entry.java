package io.glassledger.core.postree;

import io.glassledger.core.codec.ByteReader;
import io.glassledger.core.codec.ByteWriter;
import io.glassledger.core.codec.MalformedException;
import io.glassledger.core.hash.Bytes;
import io.glassledger.core.hash.Hash;
import io.glassledger.core.hash.Hashing;
import java.util.Arrays;
import java.util.Objects;

/**
 * One item of a leaf: a key, its value (or a tombstone), the block that wrote this version, and the hash of
 * the leaf node that held the previous version ({@link Hash#ZERO} if none).
 *
 * <p>Canonical (storage) encoding, which also decides chunking (FORMAT §5.3):
 * {@code varint(len key) key varint(tombstone ? 0 : len value + 1) value varint(version) prev[32]}.
 *
 * <p>The entry hash commits to the value only through its hash (FORMAT §3):
 * {@code H(0x00 || varint(len key) key valueRef varint(version) prev[32])}, with {@code valueRef} = {@code 00} for a
 * tombstone, else {@code 01 || H(0x03 || value)}. So a proof can show an entry it does not claim by its key and
 * hashes alone ({@link #hashOf}), whatever the size of its value.
 */
public final class Entry {
    public static final int MAX_KEY_BYTES = 1024;
    public static final int MAX_VALUE_BYTES = 1 << 20;

    /**
     * The canonical encoding is the only copy of the data: key, value and prev are read out of it on demand. A
     * decoded leaf then holds two objects per entry rather than eight, which is what the node cache and the
     * garbage collector pay for.
     */
    private final byte[] enc;
    private final int keyOff;
    private final int keyLen;
    /** Offset of the value, or -1 for a tombstone. */
    private final int valOff;
    private final int valLen;
    private final long version;
    private Bytes key;
    private Hash hash;

    private Entry(byte[] enc, int keyOff, int keyLen, int valOff, int valLen, long version) {
        this.enc = enc;
        this.keyOff = keyOff;
        this.keyLen = keyLen;
        this.valOff = valOff;
        this.valLen = valLen;
        this.version = version;
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
        ByteWriter w = new ByteWriter(key.length() + (value == null ? 0 : value.length()) + 48);
        w.lengthPrefixed(key);
        int keyOff = ByteWriter.varintSize(key.length());
        int valOff = -1;
        if (value == null) {
            w.varint(0);
        } else {
            w.varint(value.length() + 1L);
            valOff = keyOff + key.length() + ByteWriter.varintSize(value.length() + 1L);
            w.raw(value.unsafeArray());
        }
        w.varint(version);
        w.hash(prev);
        Entry e = new Entry(w.toByteArray(), keyOff, key.length(), valOff, value == null ? 0 : value.length(),
                version);
        e.key = key;
        return e;
    }

    public static Entry tombstone(Bytes key, long version, Hash prev) {
        return of(key, null, version, prev);
    }

    public Bytes key() {
        Bytes k = key;
        if (k == null) {
            k = Bytes.wrap(Arrays.copyOfRange(enc, keyOff, keyOff + keyLen));
            key = k;
        }
        return k;
    }

    /** Compares this entry's key with {@code k}, unsigned lexicographic, without materialising the key. */
    public int compareKeyTo(Bytes k) {
        byte[] o = k.unsafeArray();
        return Arrays.compareUnsigned(enc, keyOff, keyOff + keyLen, o, 0, o.length);
    }

    /** Compares the keys of two entries. */
    public static int compareKeys(Entry a, Entry b) {
        return Arrays.compareUnsigned(a.enc, a.keyOff, a.keyOff + a.keyLen, b.enc, b.keyOff, b.keyOff + b.keyLen);
    }

    public boolean keyEquals(Entry o) {
        return Arrays.equals(enc, keyOff, keyOff + keyLen, o.enc, o.keyOff, o.keyOff + o.keyLen);
    }

    /** The shortest prefix p of b's key with a.key &lt; p &lt;= b.key; requires a.key &lt; b.key. */
    static Bytes separator(Entry a, Entry b) {
        return Node.shortestSeparator(a.enc, a.keyOff, a.keyLen, b.enc, b.keyOff, b.keyLen);
    }

    /** The value, or null for a tombstone. */
    public Bytes value() {
        return valOff < 0 ? null : Bytes.wrap(Arrays.copyOfRange(enc, valOff, valOff + valLen));
    }

    public boolean isTombstone() {
        return valOff < 0;
    }

    public long version() {
        return version;
    }

    public Hash prev() {
        return Hash.of(enc, enc.length - Hash.LENGTH);
    }

    /** The canonical encoding; callers must not modify it. */
    public byte[] encoded() {
        return enc;
    }

    /** Length of the key, without making it. */
    int keyLength() {
        return keyLen;
    }

    public int encodedLength() {
        return enc.length;
    }

    /** H(0x03 || value), or null for a tombstone: what the entry hash commits to in place of the value. */
    public Hash valueHash() {
        return valOff < 0 ? null : Hashing.value(enc, valOff, valLen);
    }

    public Hash hash() {
        Hash h = hash;
        if (h == null) {
            h = Hashing.entry(enc, keyOff, keyLen, valueHash(), version, prev());
            hash = h;
        }
        return h;
    }

    /**
     * The hash of the entry {@code (key, value, version, prev)} given only {@code H(0x03 || value)}: how a verifier
     * hashes an entry that a proof shows without its value.
     *
     * @param valueHash the value's hash, or null for a tombstone
     * @throws IllegalArgumentException if the key is empty or over {@link #MAX_KEY_BYTES}, or the version negative
     */
    public static Hash hashOf(Bytes key, Hash valueHash, long version, Hash prev) {
        Objects.requireNonNull(prev, "prev");
        if (key.length() == 0 || key.length() > MAX_KEY_BYTES) {
            throw new IllegalArgumentException("key must be 1.." + MAX_KEY_BYTES + " bytes, got " + key.length());
        }
        if (version < 0) {
            throw new IllegalArgumentException("negative version");
        }
        return Hashing.entry(key.unsafeArray(), 0, key.length(), valueHash, version, prev);
    }

    public void write(ByteWriter w) {
        w.raw(enc);
    }

    public static Entry read(ByteReader r) {
        int start = r.position();
        int keyLen = r.varint(MAX_KEY_BYTES);
        if (keyLen == 0) {
            throw new MalformedException("empty key");
        }
        int keyOff = r.position() - start;
        r.skip(keyLen);
        int vlen = r.varint(MAX_VALUE_BYTES + 1);
        int valOff = vlen == 0 ? -1 : r.position() - start;
        if (vlen > 0) {
            r.skip(vlen - 1);
        }
        long version = r.varint();
        r.skip(Hash.LENGTH);
        byte[] enc = Arrays.copyOfRange(r.array(), start, r.position());
        return new Entry(enc, keyOff, keyLen, valOff, vlen == 0 ? 0 : vlen - 1, version);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Entry e && Arrays.equals(enc, e.enc);
    }

    @Override
    public int hashCode() {
        int h = 1;
        for (int i = keyOff; i < keyOff + keyLen; i++) {
            h = 31 * h + enc[i];
        }
        return h * 31 + Long.hashCode(version);
    }

    @Override
    public String toString() {
        return "Entry[" + key() + "=" + (isTombstone() ? "<tombstone>" : value()) + " @" + version + " prev=" + prev()
                + "]";
    }
}
