package io.glassledger.core.postree;

import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.format.FormatRule;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;

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
    private byte[] tree;
    private int weight;
    private Node base;
    /** The node this one replaced, until it is stored: the base of its delta record. */
    private Node derivedFrom;
    /** Length of the delta chain of this node's stored record: 0 for a full record, -1 if not known. */
    private int storedDepth = -1;
    /** Total bytes of the delta records in this node's stored chain (0 for a full record). */
    private int storedChain;
    private Bytes firstKey;
    private Bytes lastKey;
    private boolean fresh;

    public abstract int level();

    public abstract int size();

    /** Hash of item i: the entry hash in a leaf, the child hash in an index node. */
    public abstract Hash itemHash(int i);

    /** The separator before item i (i &gt;= 1). */
    public abstract Bytes separator(int i);

    public abstract void writeItems(ByteWriter w);

    /** Split point of the item range [lo, hi), hi - lo &gt;= 2: the left half gets the larger share of items. */
    public static int countSplit(int lo, int hi) {
        return lo + (hi - lo + 1) / 2;
    }

    /**
     * Split point of the item range [lo, hi), hi - lo &gt;= 2, for this node's routing Merkle tree. Leaves split by
     * item count; index nodes by the entries under each child (see {@link IndexNode#split}).
     */
    public int split(int lo, int hi) {
        return countSplit(lo, hi);
    }

    /** Entries in this subtree. */
    public abstract long count();

    public final Hash hash() {
        Hash h = hash;
        if (h == null) {
            h = Hashing.node(level(), Hash.of(tree(), 0));
            hash = h;
        }
        return h;
    }

    /**
     * An older node this one was derived from. When it has the same size, the Merkle subtrees over unchanged
     * item ranges are copied from it instead of rehashed: an update rehashes one path per node, not the node.
     */
    final void deriveFrom(Node old) {
        derivedFrom = old;
        if (tree == null) {
            base = old;
        }
    }

    /** First byte of a delta record; a full record starts with the node's level, which is at most 254. */
    public static final int DELTA_TAG = 0xFF;
    /** A delta record's base chain never grows longer than this. */
    public static final int MAX_DELTA_DEPTH = 64;
    /** How far ahead the delta writer looks for the next unchanged item after a change. */
    private static final int SYNC_WINDOW = 8;

    /**
     * The bytes to store under this node's hash: a delta against the node it replaced (the one given to
     * {@link #deriveFrom}), or the full encoding. A delta (FORMAT.md §4.4) is {@code u8 0xFF, base hash[32],
     * u8 depth, varint n, n × (varint skip, varint removed, varint added, added × item)}: runs of the base's items
     * kept, removed and inserted, so a child split or merge is as cheap as a replacement. It is written when the
     * base's chain is shorter than {@link #MAX_DELTA_DEPTH} and the chain's deltas, this one included, total at
     * most the node's full size, so that reading a node never costs more than twice its size. Storage only: hashes
     * never see this.
     *
     * @param deltaAllowed false forces the full encoding. A delta may only be written under a hash never stored
     *                     before: writing one over an existing record could close a cycle of bases.
     */
    /** The node this one replaced in its tree, until {@link #record} is called; null if none. */
    public final Node replaced() {
        return derivedFrom;
    }

    public final byte[] record(boolean deltaAllowed) {
        Node b = derivedFrom;
        derivedFrom = null;
        if (deltaAllowed && b != null && b.storedDepth >= 0 && b.storedDepth < MAX_DELTA_DEPTH
                && b.level() == level()) {
            int full = encodedSizeHint() + 8;
            byte[] d = delta(b, full - b.storedChain);
            if (d != null) {
                storedDepth = b.storedDepth + 1;
                storedChain = b.storedChain + d.length;
                return d;
            }
        }
        storedDepth = 0;
        storedChain = 0;
        return encode();
    }

    /** The delta of this node against {@code b}, or null if it would exceed {@code budget} bytes. */
    private byte[] delta(Node b, int budget) {
        int nb = b.size();
        int nn = size();
        ByteWriter ops = new ByteWriter(256);
        int count = 0;
        int i = 0;
        int j = 0;
        int kept = 0;
        while (i < nb || j < nn) {
            if (i < nb && j < nn && sameItemAt(b, i, j)) {
                i++;
                j++;
                kept++;
                continue;
            }
            int di = nb - i;
            int dj = nn - j;
            long sync = syncByKey(b, i, j);
            if (sync >= 0) {
                di = (int) (sync >>> 32);
                dj = (int) sync;
            } else {
            search:
            for (int d = 1; d <= 2 * SYNC_WINDOW; d++) {
                for (int x = Math.max(0, d - SYNC_WINDOW); x <= Math.min(d, SYNC_WINDOW); x++) {
                    if (i + x < nb && j + d - x < nn && sameItemAt(b, i + x, j + d - x)) {
                        di = x;
                        dj = d - x;
                        break search;
                    }
                }
            }
            }
            ops.varint(kept).varint(di).varint(dj);
            for (int k = 0; k < dj; k++) {
                writeOpItem(ops, j + k);
            }
            count++;
            if (ops.size() + 40 > budget) {
                return null;
            }
            i += di;
            j += dj;
            kept = 0;
        }
        if (count == 0 || ops.size() + 40 > budget) {
            return null;
        }
        ByteWriter w = new ByteWriter(ops.size() + 40);
        w.u8(DELTA_TAG).hash(b.hash()).u8(b.storedDepth + 1).varint(count).raw(ops.toByteArray());
        return w.toByteArray();
    }

    /**
     * Decodes a stored record, full or delta; a delta's base is read through {@code src}. The node is taken to have
     * hash {@code h}, the key it was stored under, so that it is not rehashed on load: the store is trusted here
     * (auditors and verifiers recompute hashes from content).
     */
    public static Node decodeRecord(Hash h, byte[] rec, NodeSource src) {
        Node n = decodeRecord(rec, src);
        n.hash = h;
        return n;
    }

    private static Node decodeRecord(byte[] rec, NodeSource src) {
        if (rec.length == 0 || (rec[0] & 0xff) != DELTA_TAG) {
            Node n = decode(rec);
            n.storedDepth = 0;
            return n;
        }
        ByteReader r = new ByteReader(rec);
        r.u8();
        Node b = src.node(r.hash());
        int depth = r.u8();
        if (depth < 1 || depth > MAX_DELTA_DEPTH) {
            throw new MalformedException("delta depth " + depth + " out of range");
        }
        int ops = r.varint(1 << 20);
        if (ops == 0) {
            throw new MalformedException("delta without edits");
        }
        Node n = b.withOps(r, ops);
        r.expectEnd();
        n.storedDepth = depth;
        n.storedChain = b.storedChain + rec.length;
        return n;
    }

    /**
     * For nodes whose items are ordered by key (leaves): from a mismatch at base item i and item j, the next point
     * where the two agree again, as (base items skipped &lt;&lt; 32 | items skipped), found by merging on keys; -1 if
     * this node type cannot tell, in which case a bounded search by identity is used.
     */
    long syncByKey(Node b, int i, int j) {
        return -1;
    }

    /** Item j of this node equals item i of {@code b}, separator included (index nodes). */
    abstract boolean sameItemAt(Node b, int i, int j);

    /** Item i as a delta writes it: a leaf entry; for an index node {@code lp(sep) varint count child[32]}. */
    abstract void writeOpItem(ByteWriter w, int i);

    /**
     * This node with {@code n} delta runs read from {@code r} applied: each keeps {@code skip} items, drops
     * {@code removed} and inserts {@code added} new ones. Rejects runs past the end, empty runs, and a result that
     * breaks the node's rules.
     */
    abstract Node withOps(ByteReader r, int n);

    /** The routing Merkle tree in preorder, 32 bytes per hash: [lo,hi) at i has children at i+1 and i+2(m-lo). */
    private byte[] tree() {
        byte[] t = tree;
        if (t == null) {
            int n = size();
            Node b = base;
            if (b != null && b.tree != null && b.size() == n && b.level() == level()) {
                t = b.tree.clone();
                Dirt d = new Dirt(n);
                for (int i = 0; i < n; i++) {
                    d.items[i + 1] = d.items[i] + (sameItem(b, i) ? 0 : 1);
                    d.seps[i + 1] = d.seps[i] + (i > 0 && !sameSeparator(b, i) ? 1 : 0);
                }
                if (sameShape(b)) {
                    refill(0, n, 0, t, d);
                } else {
                    fill(0, n, 0, t, b, d);
                }
            } else {
                t = new byte[(2 * n - 1) * Hash.LENGTH];
                fill(0, n, 0, t, null, null);
            }
            tree = t;
            base = null;
            treeBuilt();
        }
        return t;
    }

    /** Called once the routing tree is built: what was kept to build it can go. */
    void treeBuilt() {
    }

    /** Item i's hash as the routing tree holds it, if the tree is built; else null (never builds it). */
    final Hash builtItemHash(int i) {
        byte[] t = tree;
        return t == null ? null : Hash.of(t, slot(i) * Hash.LENGTH);
    }

    /** Position of item i's leaf in the routing tree's preorder layout. */
    final int slot(int i) {
        int idx = 0;
        int lo = 0;
        int hi = size();
        while (hi - lo > 1) {
            int m = split(lo, hi);
            if (i < m) {
                idx += 1;
                hi = m;
            } else {
                idx += 2 * (m - lo);
                lo = m;
            }
        }
        return idx;
    }

    /**
     * What changed against the base, as prefix counts so that a range is checked in constant time: items[i] is the
     * number of changed items before i, seps[i] the number of changed separators before item i.
     */
    private static final class Dirt {
        final int[] items;
        final int[] seps;

        Dirt(int n) {
            items = new int[n + 1];
            seps = new int[n + 1];
        }

        /** No item in [lo, hi) changed, nor any separator between two of them. */
        boolean clean(int lo, int hi) {
            return items[hi] == items[lo] && seps[hi] == seps[lo + 1];
        }
    }

    /** Item i equals item i of {@code b}. */
    abstract boolean sameItem(Node b, int i);

    /** The separator before item i equals that of {@code b}. */
    abstract boolean sameSeparator(Node b, int i);

    /**
     * Every split of this node's routing tree falls where it falls in {@code b}'s, a node of the same size: then
     * {@code b}'s tree, copied whole, needs only the paths over changed items recomputed.
     */
    boolean sameShape(Node b) {
        return true;
    }

    /** Recomputes, in {@code t} (a copy of the same-shaped base's tree), the hashes over changed items or separators. */
    private void refill(int lo, int hi, int idx, byte[] t, Dirt d) {
        if (d.clean(lo, hi)) {
            return;
        }
        if (hi - lo == 1) {
            System.arraycopy(itemHash(lo).unsafeArray(), 0, t, idx * Hash.LENGTH, Hash.LENGTH);
            return;
        }
        int m = split(lo, hi);
        int l = idx + 1;
        int r = idx + 2 * (m - lo);
        refill(lo, m, l, t, d);
        refill(m, hi, r, t, d);
        Hashing.inner(separator(m).unsafeArray(), t, l * Hash.LENGTH, r * Hash.LENGTH, t, idx * Hash.LENGTH);
    }

    private void fill(int lo, int hi, int idx, byte[] t, Node b, Dirt d) {
        // b is non-null only while every split above agreed with b's, so [lo, hi) sits at idx in b's tree too.
        if (b != null && d.clean(lo, hi)) {
            System.arraycopy(b.tree, idx * Hash.LENGTH, t, idx * Hash.LENGTH, (2 * (hi - lo) - 1) * Hash.LENGTH);
            return;
        }
        if (hi - lo == 1) {
            System.arraycopy(itemHash(lo).unsafeArray(), 0, t, idx * Hash.LENGTH, Hash.LENGTH);
            return;
        }
        int m = split(lo, hi);
        Node below = b != null && b.split(lo, hi) == m ? b : null;
        int l = idx + 1;
        int r = idx + 2 * (m - lo);
        fill(lo, m, l, t, below, d);
        fill(m, hi, r, t, below, d);
        Hashing.inner(separator(m).unsafeArray(), t, l * Hash.LENGTH, r * Hash.LENGTH, t, idx * Hash.LENGTH);
    }

    /** The Merkle hash of items [lo, hi), a range of the node's own split recursion. */
    public final Hash subtreeHash(int lo, int hi) {
        int idx = 0;
        int a = 0;
        int b = size();
        while (a != lo || b != hi) {
            int m = split(a, b);
            if (hi <= m) {
                idx += 1;
                b = m;
            } else if (lo >= m) {
                idx += 2 * (m - a);
                a = m;
            } else {
                throw new IllegalArgumentException("[" + lo + "," + hi + ") is not a subtree of this node");
            }
        }
        return Hash.of(tree(), idx * Hash.LENGTH);
    }

    /**
     * True for a node built by {@link PosTree#apply} or {@link PosTree#build} that holds an entry the update inserted,
     * or a child that does: such a node has never existed before. False for nodes read from a store and for re-cut
     * nodes of old entries only, which may equal a node stored long ago.
     */
    public final boolean fresh() {
        return fresh;
    }

    final void markFresh() {
        fresh = true;
    }

    final void knownKeys(Bytes first, Bytes last) {
        firstKey = first;
        lastKey = last;
    }

    /** Smallest key in this subtree. */
    public final Bytes firstKey(NodeSource src) {
        Bytes k = firstKey;
        if (k == null) {
            k = this instanceof LeafNode l ? l.entry(0).key() : src.child((IndexNode) this, 0).firstKey(src);
            firstKey = k;
        }
        return k;
    }

    /** Largest key in this subtree. */
    public final Bytes lastKey(NodeSource src) {
        Bytes k = lastKey;
        if (k == null) {
            k = this instanceof LeafNode l ? l.entry(size() - 1).key() : src.child((IndexNode) this, size() - 1).lastKey(src);
            lastKey = k;
        }
        return k;
    }

    /**
     * Bytes of heap this node can keep reachable, for cache weighing ({@code NodeCache}): its own fields, its hash,
     * its routing Merkle tree, and every item it references, counted whole even when the item is shared with the
     * version it was patched from (an in-place update or a delta record shares the unchanged entries, child hashes
     * and separators). Sizes are taken for a 64-bit JVM without compressed references and with every lazily made
     * part made (the Merkle tree, entry hashes and keys), so the weight is at least what the node retains alone.
     *
     * <p>Why whole, when sharing means two versions retain less than their sum: a shared entry must stay counted
     * for as long as any cached node holds it, and the version that first brought it may be demoted or evicted
     * first. Counting it in each holder over-counts while both are cached and never under-counts; the cache then
     * bounds the heap it retains by its configured size.
     */
    public final int weight() {
        int w = weight;
        if (w == 0) {
            w = NODE_BYTES + HASH_BYTES + arrayBytes((2 * size() - 1) * Hash.LENGTH) + itemsWeight();
            weight = w;
        }
        return w;
    }

    /** A node object (the larger of the two kinds) and the two boundary keys it may hold, without their bytes. */
    static final int NODE_BYTES = 128 + 2 * 48;
    /** A {@link Hash}: the object and its 32-byte array. */
    static final int HASH_BYTES = 24 + 48;
    /** A {@link io.glassledger.verify.hash.Bytes} object, without its array. */
    static final int BYTES_OBJECT = 32;
    /** A reference in an array. */
    static final int REF = 8;

    /** A byte or long array of {@code bytes} payload: header and padding to 8. */
    static int arrayBytes(long bytes) {
        return (int) Math.min(Integer.MAX_VALUE, 16 + ((bytes + 7) & ~7L));
    }

    /** The heap the node's items and the arrays holding them take, as {@link #weight()} counts them. */
    abstract int itemsWeight();

    abstract int encodedSizeHint();

    public final byte[] encode() {
        ByteWriter w = new ByteWriter(encodedSizeHint() + 8);
        w.u8(level()).varint(size());
        writeItems(w);
        return w.toByteArray();
    }

    public static Node decode(byte[] data) {
        ByteReader r = new ByteReader(data);
        int level = r.u8();
        // The level byte ff is a delta record's tag (§4.4): a stored node's level is at most 254.
        if (level == DELTA_TAG && FormatRule.NODE_LEVEL_OVER_254.enforced()) {
            throw new MalformedException("a delta record is not a node encoding");
        }
        // Smallest item: an entry of a 1-byte key, no value, 1-byte version (4 bytes), or a child (33 bytes).
        int count = r.count(1 << 20, level == 0 ? 4 : 1 + Hash.LENGTH, FormatRule.NODE_COUNT_OVER_LIMIT);
        if (count == 0 && FormatRule.NODE_EMPTY.enforced()) {
            throw new MalformedException("empty node");
        }
        Node n;
        if (level == 0) {
            n = LeafNode.read(r, count);
        } else {
            Hash[] cs = new Hash[count];
            long[] counts = new long[count];
            Bytes[] seps = new Bytes[count];
            seps[0] = Bytes.EMPTY;
            for (int i = 0; i < count; i++) {
                if (i > 0) {
                    seps[i] = r.lengthPrefixed(Entry.MAX_KEY_BYTES, FormatRule.INDEX_SEPARATOR_TOO_LONG);
                    if (seps[i].length() == 0 && FormatRule.INDEX_SEPARATOR_EMPTY.enforced()) {
                        throw new MalformedException("empty index separator at " + i);
                    }
                    int cmp = i > 1 ? seps[i - 1].compareTo(seps[i]) : -1;
                    if (cmp > 0 && FormatRule.INDEX_SEPARATORS_UNSORTED.enforced()
                            || cmp == 0 && FormatRule.INDEX_SEPARATORS_DUPLICATE.enforced()) {
                        throw new MalformedException("index separators not strictly increasing at " + i);
                    }
                }
                counts[i] = r.varint();
                cs[i] = r.hash();
            }
            try {
                n = new IndexNode(level, cs, seps, counts);
            } catch (IllegalArgumentException e) {
                throw new MalformedException(e.getMessage());
            }
        }
        r.expectEnd(FormatRule.NODE_TRAILING);
        return n;
    }
}
