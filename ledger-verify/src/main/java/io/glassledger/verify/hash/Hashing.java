package io.glassledger.verify.hash;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Every hash GlassLedger computes, with its domain tag. docs/FORMAT.md §Hashes is the normative description;
 * a tag byte never appears in two roles, so no hash of one kind can be passed off as another.
 */
public final class Hashing {
    public static final String ALGORITHM = "SHA-256";

    public static final byte TAG_ENTRY = 0x00;
    public static final byte TAG_INNER = 0x01;
    public static final byte TAG_NODE = 0x02;
    public static final byte TAG_VALUE = 0x03;
    public static final byte TAG_KEY_CUT = 0x04;
    public static final byte TAG_BLOCK = 0x10;
    public static final byte TAG_BODY = 0x11;
    public static final byte TAG_DIGEST = 0x20;
    public static final byte TAG_DIGEST_TAIL = 0x21;
    public static final byte TAG_UPPER_INNER = 0x31;
    public static final byte TAG_TXS = 0x40;

    /**
     * Per thread: the digest and a scratch buffer in which a small hash input is assembled, so that it reaches the
     * digest in one update call (a call per field, and above all per tag byte, cost more than the compression).
     */
    private static final class Scratch {
        final MessageDigest md;
        byte[] buf = new byte[256];

        Scratch() {
            try {
                md = MessageDigest.getInstance(ALGORITHM);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }

        byte[] buffer(int size) {
            byte[] b = buf;
            if (b.length < size) {
                b = new byte[Math.max(size, 2 * b.length)];
                buf = b;
            }
            return b;
        }
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private Hashing() {
    }

    public static MessageDigest sha() {
        MessageDigest md = SCRATCH.get().md;
        md.reset();
        return md;
    }

    public static Hash finish(MessageDigest md) {
        return Hash.wrap(md.digest());
    }

    /** SHA-256 of raw bytes, without a tag. Used only for derived constants, never for tree content. */
    public static Hash raw(byte[] data) {
        MessageDigest md = sha();
        md.update(data);
        return finish(md);
    }

    /** H(0x03 || value): how an entry commits to its value (FORMAT §3), so a proof can show a value by hash. */
    public static Hash value(byte[] value, int off, int len) {
        Scratch sc = SCRATCH.get();
        if (len > 4096) {
            MessageDigest md = sc.md;
            md.reset();
            md.update(TAG_VALUE);
            md.update(value, off, len);
            return finish(md);
        }
        byte[] b = sc.buffer(len + 1);
        b[0] = TAG_VALUE;
        System.arraycopy(value, off, b, 1, len);
        return Hash.wrap(digest(sc.md, b, len + 1));
    }

    /**
     * H(0x00 || lp(key) || valueRef || varint version): the entry hash, over the entry's hashed form
     * (FORMAT §3). {@code valueRef} is 0x00 for a tombstone ({@code valueHash == null}), else 0x01 || valueHash.
     */
    public static Hash entry(byte[] key, int keyOff, int keyLen, Hash valueHash, long version) {
        Scratch sc = SCRATCH.get();
        byte[] b = sc.buffer(keyLen + Hash.LENGTH + 22);
        int p = 0;
        b[p++] = TAG_ENTRY;
        p = putVarint(b, p, keyLen);
        System.arraycopy(key, keyOff, b, p, keyLen);
        p += keyLen;
        if (valueHash == null) {
            b[p++] = 0;
        } else {
            b[p++] = 1;
            System.arraycopy(valueHash.unsafeArray(), 0, b, p, Hash.LENGTH);
            p += Hash.LENGTH;
        }
        p = putVarint(b, p, version);
        return Hash.wrap(digest(sc.md, b, p));
    }

    /**
     * The first 8 bytes, big-endian, of H(0x04 || lp(key)): the number whose low bits decide whether a leaf ends after
     * this key (FORMAT §5.2). It depends on the key alone, so a new value never moves a leaf boundary.
     */
    public static long keyCut(byte[] key, int keyOff, int keyLen) {
        Scratch sc = SCRATCH.get();
        byte[] b = sc.buffer(keyLen + 4);
        int p = 0;
        b[p++] = TAG_KEY_CUT;
        p = putVarint(b, p, keyLen);
        System.arraycopy(key, keyOff, b, p, keyLen);
        p += keyLen;
        byte[] h = digest(sc.md, b, p);
        long x = 0;
        for (int i = 0; i < 8; i++) {
            x = x << 8 | (h[i] & 0xff);
        }
        return x;
    }

    /** H(0x01 || varint(len sep) || sep || left || right): a binary step inside a node, routing by sep. */
    public static Hash inner(byte[] sep, Hash left, Hash right) {
        byte[] out = new byte[Hash.LENGTH];
        byte[] lr = new byte[2 * Hash.LENGTH];
        System.arraycopy(left.unsafeArray(), 0, lr, 0, Hash.LENGTH);
        System.arraycopy(right.unsafeArray(), 0, lr, Hash.LENGTH, Hash.LENGTH);
        inner(sep, lr, 0, Hash.LENGTH, out, 0);
        return Hash.wrap(out);
    }

    /** {@link #inner} reading left and right from {@code src} and writing the result into {@code dst}. */
    public static void inner(byte[] sep, byte[] src, int leftOff, int rightOff, byte[] dst, int dstOff) {
        inner(sep, 0, sep.length, src, leftOff, src, rightOff, dst, dstOff);
    }

    /**
     * {@link #inner} with the separator {@code sep[sepOff, sepOff + sepLen)}, the left hash at {@code left[leftOff]}
     * and the right at {@code right[rightOff]}, the result written to {@code dst[dstOff]}.
     */
    public static void inner(byte[] sep, int sepOff, int sepLen, byte[] left, int leftOff, byte[] right,
            int rightOff, byte[] dst, int dstOff) {
        Scratch sc = SCRATCH.get();
        byte[] b = sc.buffer(sepLen + 2 * Hash.LENGTH + 6);
        int p = 0;
        b[p++] = TAG_INNER;
        p = putVarint(b, p, sepLen);
        System.arraycopy(sep, sepOff, b, p, sepLen);
        p += sepLen;
        System.arraycopy(left, leftOff, b, p, Hash.LENGTH);
        System.arraycopy(right, rightOff, b, p + Hash.LENGTH, Hash.LENGTH);
        p += 2 * Hash.LENGTH;
        digestInto(sc.md, b, p, dst, dstOff);
    }

    /** SHA-256 of b[0, len) into dst[dstOff], with {@code md} reset first. */
    private static void digestInto(MessageDigest md, byte[] b, int len, byte[] dst, int dstOff) {
        md.reset();
        md.update(b, 0, len);
        try {
            md.digest(dst, dstOff, Hash.LENGTH);
        } catch (java.security.DigestException e) {
            throw new IllegalStateException(e);
        }
    }

    /** SHA-256 of b[0, len), with {@code md} reset first. */
    private static byte[] digest(MessageDigest md, byte[] b, int len) {
        md.reset();
        md.update(b, 0, len);
        return md.digest();
    }

    /** Writes v as an unsigned LEB128 varint at b[p], returning the position after it. */
    private static int putVarint(byte[] b, int p, long v) {
        while ((v & ~0x7FL) != 0) {
            b[p++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        b[p++] = (byte) v;
        return p;
    }

    /** {@link #node(int, Hash)} with the items' root at {@code root[rootOff]}, the result written to {@code dst[dstOff]}. */
    public static void node(int level, byte[] root, int rootOff, byte[] dst, int dstOff) {
        Scratch sc = SCRATCH.get();
        byte[] b = sc.buffer(2 + Hash.LENGTH);
        b[0] = TAG_NODE;
        b[1] = (byte) level;
        System.arraycopy(root, rootOff, b, 2, Hash.LENGTH);
        digestInto(sc.md, b, 2 + Hash.LENGTH, dst, dstOff);
    }

    /** H(0x02 || u8 level || merkle root of the node's items). */
    public static Hash node(int level, Hash itemsRoot) {
        byte[] out = new byte[Hash.LENGTH];
        node(level, itemsRoot.unsafeArray(), 0, out, 0);
        return Hash.wrap(out);
    }

    /** H(0x10 || u64 blockNo || lowerRoot || bodyHash). */
    public static Hash block(long blockNo, Hash lowerRoot, Hash bodyHash) {
        MessageDigest md = sha();
        md.update(TAG_BLOCK);
        updateU64(md, blockNo);
        md.update(lowerRoot.unsafeArray());
        md.update(bodyHash.unsafeArray());
        return finish(md);
    }

    /** H(0x40 || record): binds a block's signed-transaction record into the block's meta. */
    public static Hash transactions(byte[] record) {
        MessageDigest md = sha();
        md.update(TAG_TXS);
        md.update(record);
        return finish(md);
    }

    /** H(0x11 || body encoding). */
    public static Hash body(byte[] body) {
        MessageDigest md = sha();
        md.update(TAG_BODY);
        md.update(body);
        return finish(md);
    }

    /**
     * H(0x20 || u64 blockNo || lowerRoot(blockNo) || tail): the digest root. It binds the head block's lower root
     * directly, so a proof at the head carries one hash (the tail) above the lower tree.
     */
    public static Hash digest(long blockNo, Hash lowerRoot, Hash tail) {
        MessageDigest md = sha();
        md.update(TAG_DIGEST);
        updateU64(md, blockNo);
        md.update(lowerRoot.unsafeArray());
        md.update(tail.unsafeArray());
        return finish(md);
    }

    /** H(0x21 || upperRoot(blocks 0..blockNo-1) || bodyHash(blockNo)): the rest of what a digest binds. */
    public static Hash digestTail(Hash upperRoot, Hash bodyHash) {
        MessageDigest md = sha();
        md.update(TAG_DIGEST_TAIL);
        md.update(upperRoot.unsafeArray());
        md.update(bodyHash.unsafeArray());
        return finish(md);
    }

    /** The digest root of block {@code blockNo} from its parts. */
    public static Hash digest(long blockNo, Hash lowerRoot, Hash upperRoot, Hash bodyHash) {
        return digest(blockNo, lowerRoot, digestTail(upperRoot, bodyHash));
    }

    /** H(0x31 || left || right): an interior node of the upper (block) tree. */
    public static Hash upperInner(Hash left, Hash right) {
        MessageDigest md = sha();
        md.update(TAG_UPPER_INNER);
        md.update(left.unsafeArray());
        md.update(right.unsafeArray());
        return finish(md);
    }

    private static void updateU64(MessageDigest md, long v) {
        for (int s = 56; s >= 0; s -= 8) {
            md.update((byte) (v >>> s));
        }
    }

    private static void updateVarint(MessageDigest md, long v) {
        while ((v & ~0x7FL) != 0) {
            md.update((byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        md.update((byte) v);
    }
}
