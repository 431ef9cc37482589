package io.glassledger.core.postree;

import io.glassledger.core.codec.ByteReader;
import io.glassledger.core.codec.ByteWriter;
import io.glassledger.core.codec.MalformedException;
import io.glassledger.core.hash.Bytes;
import io.glassledger.core.hash.Hash;
import io.glassledger.core.hash.Hashing;

/**
 * An immutable POS-tree node: a leaf (level 0) of entries, or an index node of child hashes.
 *
 * <p>Its hash is H(0x02 || u8 level || R), where R is a binary Merkle tree over the node's items that also
 * routes: an interior step is H(0x01 || varint(len s) || s || left || right), where s separates the last key
 * of the left half from the first key of the right half. A proof therefore carries one path through each node
 * rather than the whole node.
 *
 * <p>Storage encoding (the value under the node's hash): {@code u8 level, varint count, items}; a leaf item is
 * an {@link Entry} encoding, an index item is {@code [varint(len sep) sep] child[32]}, with no separator for
 * the first child.
 */
public abstract sealed class Node permits LeafNode, IndexNode {
    private Hash hash;
    private Bytes firstKey;
    private Bytes lastKey;

    public abstract int level();

    public abstract int size();

    /** Hash of item i: the entry hash in a leaf, the child hash in an index node. */
    public abstract Hash itemHash(int i);

    /** The separator before item i (i &gt;= 1). */
    public abstract Bytes separator(int i);

    public abstract void writeItems(ByteWriter w);

    /** Split point of the item range [lo, hi), hi - lo &gt;= 2: the left half gets the larger share. */
    public static int split(int lo, int hi) {
        return lo + (hi - lo + 1) / 2;
    }

    public final Hash hash() {
        Hash h = hash;
        if (h == null) {
            h = Hashing.node(level(), subtreeHash(0, size()));
            hash = h;
        }
        return h;
    }

    /** The Merkle hash of items [lo, hi). */
    public final Hash subtreeHash(int lo, int hi) {
        if (hi - lo == 1) {
            return itemHash(lo);
        }
        int m = split(lo, hi);
        return Hashing.inner(separator(m).unsafeArray(), subtreeHash(lo, m), subtreeHash(m, hi));
    }

    final void knownKeys(Bytes first, Bytes last) {
        firstKey = first;
        lastKey = last;
    }

    /** Smallest key in this subtree. */
    public final Bytes firstKey(NodeSource src) {
        Bytes k = firstKey;
        if (k == null) {
            k = this instanceof LeafNode l ? l.entry(0).key() : src.node(itemHash(0)).firstKey(src);
            firstKey = k;
        }
        return k;
    }

    /** Largest key in this subtree. */
    public final Bytes lastKey(NodeSource src) {
        Bytes k = lastKey;
        if (k == null) {
            k = this instanceof LeafNode l ? l.entry(size() - 1).key() : src.node(itemHash(size() - 1)).lastKey(src);
            lastKey = k;
        }
        return k;
    }

    public final byte[] encode() {
        ByteWriter w = new ByteWriter(256);
        w.u8(level()).varint(size());
        writeItems(w);
        return w.toByteArray();
    }

    public static Node decode(byte[] data) {
        ByteReader r = new ByteReader(data);
        int level = r.u8();
        int count = r.varint(1 << 20);
        if (count == 0) {
            throw new MalformedException("empty node");
        }
        Node n;
        if (level == 0) {
            Entry[] es = new Entry[count];
            for (int i = 0; i < count; i++) {
                es[i] = Entry.read(r);
                if (i > 0 && es[i - 1].key().compareTo(es[i].key()) >= 0) {
                    throw new MalformedException("leaf keys not strictly increasing at " + i);
                }
            }
            n = new LeafNode(es);
        } else {
            Hash[] cs = new Hash[count];
            Bytes[] seps = new Bytes[count];
            seps[0] = Bytes.EMPTY;
            for (int i = 0; i < count; i++) {
                if (i > 0) {
                    seps[i] = r.lengthPrefixed(Entry.MAX_KEY_BYTES);
                    if (seps[i].length() == 0 || (i > 1 && seps[i - 1].compareTo(seps[i]) >= 0)) {
                        throw new MalformedException("index separators not strictly increasing at " + i);
                    }
                }
                cs[i] = r.hash();
            }
            n = new IndexNode(level, cs, seps);
        }
        r.expectEnd();
        return n;
    }

    /**
     * Shortest prefix p of {@code right} with left &lt; p &lt;= right. Requires left &lt; right.
     */
    public static Bytes shortestSeparator(Bytes left, Bytes right) {
        byte[] a = left.unsafeArray();
        byte[] b = right.unsafeArray();
        int i = java.util.Arrays.mismatch(a, b);
        if (i < 0 || i >= b.length || (i < a.length && (b[i] & 0xff) <= (a[i] & 0xff))) {
            throw new IllegalArgumentException("separator needs left < right: " + left + " vs " + right);
        }
        return right.prefix(i + 1);
    }
}
