package io.glassledger.core.postree;

import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Separators;
import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.format.FormatRule;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;

/**
 * A level-0 node: entries in strictly increasing key order. Separators are derived from adjacent keys.
 *
 * <p>Compact: the entries' canonical encodings lie back to back in a few segments of {@link #SEGMENT} entries
 * each, one byte array per segment with the entries' offsets at its head, and the entry hashes live in the routing
 * tree's leaf slots. A cached leaf is therefore a few objects per {@link #SEGMENT} entries rather than a few per
 * entry (the collector's work is per object), and {@link #entry} hands out short-lived views. A new version of the
 * leaf with some entries replaced shares every other segment with the old one and copies only the segments it
 * changes: about as many bytes as the old representation's patch, which copied its array of entry references and
 * made the new entry.
 */
public final class LeafNode extends Node implements Entry.Owner {
    /** Entries per segment (a power of two); every segment but the last is full. */
    static final int SEGMENT = 4;
    private static final int SHIFT = Integer.numberOfTrailingZeros(SEGMENT);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    /**
     * Segment s holds entries [s * SEGMENT, min(n, (s + 1) * SEGMENT)): a header of m + 1 little-endian ints (the
     * offsets in the segment of its m entries and of its end), then the entries. Segments are never modified,
     * so versions of a leaf share them.
     */
    private final byte[][] segs;
    private final int n;
    /** Total encoded bytes of the entries. */
    private final int bytes;
    /**
     * Entry hashes known when the leaf was made (carried over from the entries it was made from, null where not
     * known), until its routing tree holds them all; then null.
     */
    private Hash[] known;

    private LeafNode(byte[][] segs, int n, int bytes, Hash[] known) {
        this.segs = segs;
        this.n = n;
        this.bytes = bytes;
        this.known = known;
    }

    /** A segment of entries {@code es[from, to)}. */
    private static byte[] segment(List<Entry> es, int from, int to) {
        int head = 4 * (to - from + 1);
        int len = head;
        for (int i = from; i < to; i++) {
            len += es.get(i).encodedLength();
        }
        byte[] seg = new byte[len];
        int at = head;
        for (int i = from; i < to; i++) {
            Entry e = es.get(i);
            INT.set(seg, 4 * (i - from), at);
            System.arraycopy(e.array(), e.start(), seg, at, e.encodedLength());
            at += e.encodedLength();
        }
        INT.set(seg, 4 * (to - from), at);
        return seg;
    }

    /** A segment of the well-formed entry encodings {@code a[offs[k] + base, offs[k + 1] + base)}, k in [from, to). */
    private static byte[] segment(byte[] a, int base, int[] offs, int from, int to) {
        int head = 4 * (to - from + 1);
        byte[] seg = new byte[head + offs[to] - offs[from]];
        System.arraycopy(a, base + offs[from], seg, head, offs[to] - offs[from]);
        for (int k = from; k <= to; k++) {
            INT.set(seg, 4 * (k - from), head + offs[k] - offs[from]);
        }
        return seg;
    }

    private static byte[][] segments(byte[] a, int base, int[] offs, int count) {
        byte[][] ss = new byte[(count + SEGMENT - 1) >>> SHIFT][];
        for (int s = 0; s < ss.length; s++) {
            ss[s] = segment(a, base, offs, s << SHIFT, Math.min(count, (s + 1) << SHIFT));
        }
        return ss;
    }

    /** A leaf of these entries, in strictly increasing key order (not checked). */
    static LeafNode of(List<Entry> entries, int bytes) {
        int count = entries.size();
        byte[][] ss = new byte[(count + SEGMENT - 1) >>> SHIFT][];
        int total = 0;
        for (int s = 0; s < ss.length; s++) {
            ss[s] = segment(entries, s << SHIFT, Math.min(count, (s + 1) << SHIFT));
            total += ss[s].length - 4 * (Math.min(count, (s + 1) << SHIFT) - (s << SHIFT) + 1);
        }
        Hash[] known = null;
        for (int i = 0; i < count; i++) {
            Hash h = entries.get(i).knownHash();
            if (h != null) {
                if (known == null) {
                    known = new Hash[count];
                }
                known[i] = h;
            }
        }
        return new LeafNode(ss, count, total, known);
    }

    public static LeafNode of(List<Entry> entries) {
        return of(entries, -1);
    }

    /**
     * This leaf with entry {@code idx[k]} replaced by {@code es[k]} for each k ({@code idx} increasing): the
     * segments holding a replaced entry are made again, every other one is shared.
     */
    LeafNode withReplaced(int[] idx, Entry[] es, int count) {
        byte[][] ss = segs.clone();
        int total = bytes;
        int k = 0;
        List<Entry> seg = new java.util.ArrayList<>(SEGMENT);
        while (k < count) {
            int s = idx[k] >>> SHIFT;
            int from = s << SHIFT;
            int to = Math.min(n, from + SEGMENT);
            seg.clear();
            for (int i = from; i < to; i++) {
                if (k < count && idx[k] == i) {
                    total += es[k].encodedLength() - length(i);
                    seg.add(es[k++]);
                } else {
                    seg.add(entry(i));
                }
            }
            ss[s] = segment(seg, 0, to - from);
        }
        return new LeafNode(ss, n, total, null);
    }

    @Override
    public int level() {
        return 0;
    }

    @Override
    public int size() {
        return n;
    }

    private byte[] seg(int i) {
        return segs[i >>> SHIFT];
    }

    /** Offset of entry i in its segment. */
    private static int start(byte[] seg, int i) {
        return (int) INT.get(seg, 4 * (i & (SEGMENT - 1)));
    }

    private static int end(byte[] seg, int i) {
        return (int) INT.get(seg, 4 * (i & (SEGMENT - 1)) + 4);
    }

    public Entry entry(int i) {
        byte[] g = seg(i);
        return Entry.view(g, start(g, i), end(g, i), this, i);
    }

    public List<Entry> entries() {
        return new AbstractList<>() {
            @Override
            public Entry get(int i) {
                return entry(i);
            }

            @Override
            public int size() {
                return LeafNode.this.size();
            }
        };
    }

    /** Encoded length of entry i. */
    int length(int i) {
        byte[] g = seg(i);
        return end(g, i) - start(g, i);
    }

    /** Copies entry i's encoding into {@code dst} at {@code at}. */
    void copyEntry(int i, byte[] dst, int at) {
        byte[] g = seg(i);
        int st = start(g, i);
        System.arraycopy(g, st, dst, at, end(g, i) - st);
    }

    private int keyOff(int i) {
        byte[] g = seg(i);
        return Entry.keyOffsetAt(g, start(g, i));
    }

    private int keyLen(int i) {
        byte[] g = seg(i);
        return Entry.keyLengthAt(g, start(g, i));
    }

    /** Index of {@code key}, or -(insertion point) - 1. */
    public int find(Bytes key) {
        byte[] k = key.unsafeArray();
        int lo = 0;
        int hi = size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            byte[] g = seg(mid);
            int st = start(g, mid);
            int ko = Entry.keyOffsetAt(g, st);
            int c = Arrays.compareUnsigned(g, ko, ko + Entry.keyLengthAt(g, st), k, 0, k.length);
            if (c < 0) {
                lo = mid + 1;
            } else if (c > 0) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -(lo + 1);
    }

    @Override
    public Hash itemHash(int i) {
        Hash h = knownItemHash(i);
        if (h == null) {
            h = computeItemHash(i);
            Hash[] k = known;
            if (k != null) {
                k[i] = h;
            }
        }
        return h;
    }

    /** Entry i's hash if the routing tree or the hashes carried at construction hold it; never computes it. */
    @Override
    public Hash knownItemHash(int i) {
        Hash h = builtItemHash(i);
        if (h == null) {
            Hash[] k = known;
            h = k == null ? null : k[i];
        }
        return h;
    }

    private Hash computeItemHash(int i) {
        Entry e = entry(i);
        return Hashing.entry(seg(i), keyOff(i), keyLen(i), e.valueHash(), e.version());
    }

    @Override
    void treeBuilt() {
        known = null;
    }

    @Override
    public Bytes separator(int i) {
        return Separators.shortest(seg(i - 1), keyOff(i - 1), keyLen(i - 1), seg(i), keyOff(i), keyLen(i));
    }

    @Override
    public long count() {
        return size();
    }

    @Override
    boolean sameItem(Node b, int i) {
        return sameItemAt(b, i, i);
    }

    private boolean sameKey(int i, LeafNode o, int j) {
        int a = keyOff(i);
        int b = o.keyOff(j);
        return Arrays.equals(seg(i), a, a + keyLen(i), o.seg(j), b, b + o.keyLen(j));
    }

    private int compareKeys(int i, LeafNode o, int j) {
        int a = keyOff(i);
        int b = o.keyOff(j);
        return Arrays.compareUnsigned(seg(i), a, a + keyLen(i), o.seg(j), b, b + o.keyLen(j));
    }

    @Override
    boolean sameSeparator(Node b, int i) {
        LeafNode o = (LeafNode) b;
        return (sharedAt(o, i - 1) || sameKey(i - 1, o, i - 1)) && (sharedAt(o, i) || sameKey(i, o, i));
    }

    /** Item i of this leaf and of {@code o} lie in one shared segment, at one place: they are the same entry. */
    private boolean sharedAt(LeafNode o, int i) {
        return i < o.n && seg(i) == o.seg(i);
    }

    @Override
    int encodedSizeHint() {
        return bytes;
    }

    /** The segments and the array of them (the item hashes are in the routing tree, which {@link #weight} counts). */
    @Override
    int itemsWeight() {
        long w = arrayBytes((long) REF * segs.length);
        for (byte[] g : segs) {
            w += arrayBytes(g.length);
        }
        return (int) Math.min(Integer.MAX_VALUE, w);
    }

    @Override
    boolean sameItemAt(Node b, int i, int j) {
        LeafNode o = (LeafNode) b;
        if (i == j && sharedAt(o, i)) {
            return true;
        }
        byte[] g = seg(j);
        byte[] h = o.seg(i);
        return Arrays.equals(g, start(g, j), end(g, j), h, start(h, i), end(h, i));
    }

    @Override
    long syncByKey(Node b, int i, int j) {
        LeafNode o = (LeafNode) b;
        int nb = o.size();
        int nn = size();
        int di = 0;
        int dj = 0;
        while (i + di < nb && j + dj < nn) {
            int c = o.compareKeys(i + di, this, j + dj);
            if (c < 0) {
                di++;
            } else if (c > 0) {
                dj++;
            } else if (sameItemAt(o, i + di, j + dj)) {
                break;
            } else {
                di++;
                dj++;
            }
        }
        if (i + di >= nb || j + dj >= nn) {
            return ((long) (nb - i) << 32) | (nn - j);
        }
        return ((long) di << 32) | dj;
    }

    @Override
    void writeOpItem(ByteWriter w, int i) {
        byte[] g = seg(i);
        w.raw(g, start(g, i), length(i));
    }

    /**
     * Applies a delta's runs. The result shares every segment of this leaf whose entries all stay at the same index
     * (the runs before a change, and after a change that neither adds nor removes entries), so decoding a delta
     * chain costs about the segments each delta changes, not a copy of the leaf per step.
     */
    @Override
    Node withOps(ByteReader r, int n) {
        int nb = size();
        byte[] rec = r.array();
        // Per output item: its index in this leaf (>= 0), or -1 with its bytes at rec[start, end) for an added one.
        int[] from = new int[nb + 8];
        int[] start = new int[nb + 8];
        int[] end = new int[nb + 8];
        int count = 0;
        int at = 0;
        for (int k = 0; k < n; k++) {
            int skip = r.varint(nb - at);
            int removed;
            int added;
            if (count + skip >= from.length) {
                from = ensure(from, count + skip);
                start = ensure(start, count + skip);
                end = ensure(end, count + skip);
            }
            for (int c = 0; c < skip; c++) {
                from[count++] = at++;
            }
            removed = r.varint(nb - at);
            added = r.varint(1 << 20);
            if (removed == 0 && added == 0) {
                throw new MalformedException("empty delta run");
            }
            at += removed;
            for (int c = 0; c < added; c++) {
                int st = r.position();
                Entry.skip(r);
                if (count + 1 >= from.length) {
                    from = ensure(from, count + 1);
                    start = ensure(start, count + 1);
                    end = ensure(end, count + 1);
                }
                from[count] = -1;
                start[count] = st;
                end[count++] = r.position();
            }
        }
        if (count + nb - at >= from.length) {
            from = ensure(from, count + nb - at);
        }
        while (at < nb) {
            from[count++] = at++;
        }
        if (count == 0 || count > 1 << 20) {
            throw new MalformedException("delta gives " + count + " entries");
        }
        byte[][] ss = new byte[(count + SEGMENT - 1) >>> SHIFT][];
        int total = 0;
        for (int s = 0; s < ss.length; s++) {
            int lo = s << SHIFT;
            int hi = Math.min(count, lo + SEGMENT);
            boolean share = s < segs.length && Math.min(nb, lo + SEGMENT) == hi;
            int len = 4 * (hi - lo + 1);
            for (int k = lo; k < hi; k++) {
                share &= from[k] == k;
                len += from[k] >= 0 ? length(from[k]) : end[k] - start[k];
            }
            total += len - 4 * (hi - lo + 1);
            if (share) {
                ss[s] = segs[s];
                continue;
            }
            byte[] seg = new byte[len];
            int p = 4 * (hi - lo + 1);
            for (int k = lo; k < hi; k++) {
                INT.set(seg, 4 * (k - lo), p);
                if (from[k] >= 0) {
                    copyEntry(from[k], seg, p);
                    p += length(from[k]);
                } else {
                    System.arraycopy(rec, start[k], seg, p, end[k] - start[k]);
                    p += end[k] - start[k];
                }
            }
            INT.set(seg, 4 * (hi - lo), p);
            ss[s] = seg;
        }
        LeafNode leaf = new LeafNode(ss, count, total, null);
        for (int i = 1; i < count; i++) {
            if ((from[i - 1] < 0 || from[i] < 0 || from[i] != from[i - 1] + 1) && leaf.compareKeys(i - 1, leaf, i) >= 0) {
                throw new MalformedException("delta breaks key order at " + i);
            }
        }
        return leaf;
    }

    private static int[] ensure(int[] a, int need) {
        return need + 1 <= a.length ? a : Arrays.copyOf(a, Math.max(need + 1, a.length * 2));
    }

    /**
     * Reads {@code count} entries at the reader's position as a leaf: each checked as {@link Entry#read} checks it,
     * keys strictly increasing, all copied in one piece.
     */
    static LeafNode read(ByteReader r, int count) {
        byte[] a = r.array();
        int start = r.position();
        int[] off = new int[count + 1];
        int prevKey = -1;
        int prevLen = 0;
        for (int i = 0; i < count; i++) {
            off[i] = r.position() - start;
            int ko = Entry.skip(r);
            int kl = Entry.keyLengthAt(a, start + off[i]);
            int cmp = i > 0 ? Arrays.compareUnsigned(a, prevKey, prevKey + prevLen, a, ko, ko + kl) : -1;
            if (cmp > 0 && FormatRule.LEAF_KEYS_UNSORTED.enforced()
                    || cmp == 0 && FormatRule.LEAF_KEYS_DUPLICATE.enforced()) {
                throw new MalformedException("leaf keys not strictly increasing at " + i);
            }
            prevKey = ko;
            prevLen = kl;
        }
        off[count] = r.position() - start;
        return new LeafNode(segments(a, start, off, count), count, off[count], null);
    }

    @Override
    public void writeItems(ByteWriter w) {
        for (int s = 0; s < segs.length; s++) {
            byte[] g = segs[s];
            int first = start(g, 0);
            w.raw(g, first, g.length - first);
        }
    }

    @Override
    public String toString() {
        return "Leaf" + entries();
    }
}
