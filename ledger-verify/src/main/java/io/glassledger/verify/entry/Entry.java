package io.glassledger.verify.entry;

import static io.glassledger.verify.format.FormatRule.KEY_EMPTY;
import static io.glassledger.verify.format.FormatRule.KEY_TOO_LONG;
import static io.glassledger.verify.format.FormatRule.VALUE_TOO_LONG;

import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import java.util.Arrays;
import java.util.Objects;

/**
 * One item of a leaf: a key, its value (or a tombstone) and the block that wrote this version.
 *
 * <p>Canonical (storage) encoding (FORMAT §3):
 * {@code varint(len key) key varint(tombstone ? 0 : len value + 1) value varint(version)}.
 *
 * <p>The entry hash commits to the value only through its hash (FORMAT §3):
 * {@code H(0x00 || varint(len key) key valueRef varint(version))}, with {@code valueRef} = {@code 00} for a
 * tombstone, else {@code 01 || H(0x03 || value)}. So a proof can show an entry it does not claim by its key and
 * hashes alone ({@link #hashOf}), whatever the size of its value.
 *
 * <p>The methods that work on the encoding in place ({@link #view}, {@link #skip}, {@link #array}, {@link #start},
 * {@link #keyOffsetAt}, {@link #keyLengthAt}, {@link #knownHash}) serve the POS-tree's leaves, which hold their
 * entries as views of one array: they copy nothing, and a caller must not modify what they expose.
 */
public final class Entry {
    /**
     * The container an entry may be a view of (the tree's leaf node), which may already hold the hashes of its
     * items. Not for verifiers: an entry they decode owns its bytes.
     */
    public interface Owner {
        /** The hash of item {@code index} if this owner holds it, else null; never computes it. */
        Hash knownItemHash(int index);
    }

    public static final int MAX_KEY_BYTES = 1024;
    public static final int MAX_VALUE_BYTES = 1 << 20;

    /**
     * The canonical encoding is the only copy of the data: key, value and version are read out of it on demand. It is
     * {@code enc[start, end)}: an entry made on its own owns its array, an entry handed out by a leaf is a view of
     * the leaf's one array of entries (the tree's leaf node, an {@link Owner}), so that a cached leaf is a few objects, not a few per
     * entry.
     */
    private final byte[] enc;
    private final int start;
    private final int end;
    /** Offset of the key in {@code enc}. */
    private final int keyOff;
    private final int keyLen;
    /** Offset of the value in {@code enc}, or -1 for a tombstone. */
    private final int valOff;
    private final int valLen;
    private final long version;
    /** The leaf this entry is a view of, and its index there, whose routing tree may hold its hash; else null. */
    private final Owner owner;
    private final int index;
    private Bytes key;
    private Hash hash;

    private Entry(byte[] enc, int start, int end, int keyOff, int keyLen, int valOff, int valLen, long version,
            Owner owner, int index) {
        this.enc = enc;
        this.start = start;
        this.end = end;
        this.keyOff = keyOff;
        this.keyLen = keyLen;
        this.valOff = valOff;
        this.valLen = valLen;
        this.version = version;
        this.owner = owner;
        this.index = index;
    }

    /**
     * A view of the well-formed entry encoding at {@code a[start, end)} (already checked, as a leaf's entries are
     * when it is decoded), item {@code index} of {@code owner}.
     */
    public static Entry view(byte[] a, int start, int end, Owner owner, int index) {
        int p = start;
        int keyLen = a[p++];
        if (keyLen < 0) {
            keyLen = (keyLen & 0x7f) | (a[p++] & 0x7f) << 7;
        }
        int keyOff = p;
        p += keyLen;
        long vlen = 0;
        for (int shift = 0; ; shift += 7) {
            int b = a[p++];
            vlen |= (long) (b & 0x7f) << shift;
            if (b >= 0) {
                break;
            }
        }
        int valOff = vlen == 0 ? -1 : p;
        p += vlen == 0 ? 0 : (int) vlen - 1;
        long version = 0;
        for (int shift = 0; ; shift += 7) {
            int b = a[p++];
            version |= (long) (b & 0x7f) << shift;
            if (b >= 0) {
                break;
            }
        }
        return new Entry(a, start, end, keyOff, keyLen, valOff, vlen == 0 ? 0 : (int) vlen - 1, version, owner,
                index);
    }

    /**
     * Checks the entry encoding that starts at the reader's position and moves past it, without copying it: the
     * same checks as {@link #read}. Returns the key's offset in {@code r.array()}; its length is
     * {@link #keyLengthAt}.
     */
    public static int skip(ByteReader r) {
        int keyLen = r.varint(MAX_KEY_BYTES, KEY_TOO_LONG);
        if (keyLen == 0 && KEY_EMPTY.enforced()) {
            throw new MalformedException("empty key");
        }
        int keyOff = r.position();
        r.skip(keyLen);
        int vlen = r.varint(MAX_VALUE_BYTES + 1, VALUE_TOO_LONG);
        if (vlen > 0) {
            r.skip(vlen - 1);
        }
        r.varint();
        return keyOff;
    }

    /** Length of the key of the well-formed entry encoding at {@code a[start]}. */
    public static int keyLengthAt(byte[] a, int start) {
        int k = a[start];
        return k >= 0 ? k : (k & 0x7f) | (a[start + 1] & 0x7f) << 7;
    }

    /** Offset of the key of the well-formed entry encoding at {@code a[start]}. */
    public static int keyOffsetAt(byte[] a, int start) {
        return a[start] >= 0 ? start + 1 : start + 2;
    }

    /** §3: a key has 1 to {@link #MAX_KEY_BYTES} bytes. */
    private static void checkKey(Bytes key) {
        if (key.length() == 0 && KEY_EMPTY.enforced()) {
            throw new IllegalArgumentException("key must be 1.." + MAX_KEY_BYTES + " bytes, got 0");
        }
        if (key.length() > MAX_KEY_BYTES && KEY_TOO_LONG.enforced()) {
            throw new IllegalArgumentException("key must be 1.." + MAX_KEY_BYTES + " bytes, got " + key.length());
        }
    }

    public static Entry of(Bytes key, Bytes value, long version) {
        Objects.requireNonNull(key, "key");
        checkKey(key);
        if (value != null && value.length() > MAX_VALUE_BYTES && VALUE_TOO_LONG.enforced()) {
            throw new IllegalArgumentException("value exceeds " + MAX_VALUE_BYTES + " bytes");
        }
        if (version < 0) {
            throw new IllegalArgumentException("negative version");
        }
        ByteWriter w = new ByteWriter(key.length() + (value == null ? 0 : value.length()) + 16);
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
        byte[] encoded = w.toByteArray();
        Entry e = new Entry(encoded, 0, encoded.length, keyOff, key.length(), valOff, value == null ? 0 : value.length(),
                version, null, 0);
        e.key = key;
        return e;
    }

    public static Entry tombstone(Bytes key, long version) {
        return of(key, null, version);
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
    public static Bytes separator(Entry a, Entry b) {
        return Separators.shortest(a.enc, a.keyOff, a.keyLen, b.enc, b.keyOff, b.keyLen);
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

    /** The canonical encoding; callers must not modify it. */
    public byte[] encoded() {
        return start == 0 && end == enc.length ? enc : Arrays.copyOfRange(enc, start, end);
    }

    /** The array holding the canonical encoding at {@link #start()}; callers must not modify it. */
    public byte[] array() {
        return enc;
    }

    /** Offset of the canonical encoding in {@link #array()}. */
    public int start() {
        return start;
    }

    /** Length of the key, without making it. */
    public int keyLength() {
        return keyLen;
    }

    public int encodedLength() {
        return end - start;
    }

    /** H(0x03 || value), or null for a tombstone: what the entry hash commits to in place of the value. */
    public Hash valueHash() {
        return valOff < 0 ? null : Hashing.value(enc, valOff, valLen);
    }

    public Hash hash() {
        Hash h = knownHash();
        if (h == null) {
            h = Hashing.entry(enc, keyOff, keyLen, valueHash(), version);
            hash = h;
        }
        return h;
    }

    /** The entry's hash if it is at hand (made already, or held by its leaf), else null: never computes it. */
    public Hash knownHash() {
        Hash h = hash;
        if (h == null && owner != null) {
            h = owner.knownItemHash(index);
            hash = h;
        }
        return h;
    }

    /**
     * The hash of the entry {@code (key, value, version)} given only {@code H(0x03 || value)}: how a verifier
     * hashes an entry that a proof shows without its value.
     *
     * @param valueHash the value's hash, or null for a tombstone
     * @throws IllegalArgumentException if the key is empty or over {@link #MAX_KEY_BYTES}, or the version negative
     */
    public static Hash hashOf(Bytes key, Hash valueHash, long version) {
        checkKey(key);
        if (version < 0) {
            throw new IllegalArgumentException("negative version");
        }
        return Hashing.entry(key.unsafeArray(), 0, key.length(), valueHash, version);
    }

    public void write(ByteWriter w) {
        w.raw(enc, start, end - start);
    }

    public static Entry read(ByteReader r) {
        int start = r.position();
        int keyLen = r.varint(MAX_KEY_BYTES, KEY_TOO_LONG);
        if (keyLen == 0 && KEY_EMPTY.enforced()) {
            throw new MalformedException("empty key");
        }
        int keyOff = r.position() - start;
        r.skip(keyLen);
        int vlen = r.varint(MAX_VALUE_BYTES + 1, VALUE_TOO_LONG);
        int valOff = vlen == 0 ? -1 : r.position() - start;
        if (vlen > 0) {
            r.skip(vlen - 1);
        }
        long version = r.varint();
        byte[] enc = Arrays.copyOfRange(r.array(), start, r.position());
        return new Entry(enc, 0, enc.length, keyOff, keyLen, valOff, vlen == 0 ? 0 : vlen - 1, version, null, 0);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Entry e && Arrays.equals(enc, start, end, e.enc, e.start, e.end);
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
        return "Entry[" + key() + "=" + (isTombstone() ? "<tombstone>" : value()) + " @" + version + "]";
    }
}
