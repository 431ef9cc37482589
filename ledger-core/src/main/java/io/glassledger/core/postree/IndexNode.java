package io.glassledger.core.postree;

import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.format.FormatRule;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import java.util.List;

/**
 * A node at level &gt;= 1: child hashes, with the separator before each child but the first. Child i holds the
 * keys k with sep(i) &lt;= k &lt; sep(i+1).
 */
public final class IndexNode extends Node {
    private final int level;
    private final Hash[] children;
    private final Bytes[] seps;
    /** Bound on the entries under one node, so that split arithmetic cannot overflow. */
    public static final long MAX_ENTRIES = 1L << 48;
    private final long[] counts;
    private final long[] prefix;
    /** Per child, what a cache left to find it again without a lookup (see {@link #link}); made on first use. */
    private Object[] links;

    IndexNode(int level, Hash[] children, Bytes[] seps, long[] counts) {
        if (level < 1 || level > 254 && FormatRule.NODE_LEVEL_OVER_254.enforced()) {
            throw new IllegalArgumentException("index level must be 1..254");
        }
        this.level = level;
        this.children = children;
        this.seps = seps;
        this.counts = counts;
        this.prefix = new long[counts.length + 1];
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] <= 0 && FormatRule.INDEX_CHILD_COUNT_ZERO.enforced()) {
                throw new IllegalArgumentException("a child entry count must be positive");
            }
            if (counts[i] > MAX_ENTRIES - prefix[i] && FormatRule.INDEX_COUNTS_OVER_2_48.enforced()) {
                throw new IllegalArgumentException("child entry counts must sum to at most 2^48");
            }
            prefix[i + 1] = prefix[i] + counts[i];
        }
    }

    /** Entries under child i. */
    public long childCount(int i) {
        return counts[i];
    }

    @Override
    public long count() {
        return prefix[counts.length];
    }

    /**
     * Weight-balanced: among m in [lo + q, hi - q], q = max(1, (hi - lo) / 4), the m for which the entries under
     * [lo, m) and [m, hi) differ least (the smaller m on a tie). A random key's proof path is then close to
     * log2(entries) steps whatever the child sizes, and the clamp bounds the depth to log_{4/3}(items) + 1.
     */
    @Override
    public int split(int lo, int hi) {
        int q = Math.max(1, (hi - lo) / 4);
        long total = prefix[hi] - prefix[lo];
        int best = lo + q;
        long bestDiff = Long.MAX_VALUE;
        for (int m = lo + q; m <= hi - q; m++) {
            long diff = Math.abs(2 * (prefix[m] - prefix[lo]) - total);
            if (diff < bestDiff) {
                best = m;
                bestDiff = diff;
            }
        }
        return best;
    }

    /** The weight-balanced splits depend only on the children's entry counts. */
    @Override
    boolean sameShape(Node b) {
        return java.util.Arrays.equals(prefix, ((IndexNode) b).prefix);
    }

    @Override
    public int level() {
        return level;
    }

    @Override
    public int size() {
        return children.length;
    }

    public Hash child(int i) {
        return children[i];
    }

    /**
     * The handle a {@link NodeSource} cache left for child {@code i} with {@link #link(int, Object)}, or null. The
     * tree never reads it; a cache keeps in it what finds the child again without hashing and locking, and must
     * not keep the child itself there, or a cached parent would keep evicted children reachable.
     */
    public Object link(int i) {
        Object[] l = links;
        return l == null ? null : l[i];
    }

    /** Leaves a cache's handle for child {@code i}. Racy by design: a lost write only costs a lookup later. */
    public void link(int i, Object handle) {
        Object[] l = links;
        if (l == null) {
            l = new Object[children.length];
            links = l;
        }
        l[i] = handle;
    }

    /** The child whose key range holds {@code key}: the last i with sep(i) &lt;= key, or 0. */
    public int route(Bytes key) {
        int lo = 1;
        int hi = children.length - 1;
        int ans = 0;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (seps[mid].compareTo(key) <= 0) {
                ans = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return ans;
    }

    @Override
    public Hash itemHash(int i) {
        return children[i];
    }

    @Override
    public Bytes separator(int i) {
        return seps[i];
    }

    @Override
    boolean sameItem(Node b, int i) {
        IndexNode o = (IndexNode) b;
        return (children[i] == o.children[i] || children[i].equals(o.children[i])) && counts[i] == o.counts[i];
    }

    @Override
    boolean sameSeparator(Node b, int i) {
        Bytes s = ((IndexNode) b).seps[i];
        return seps[i] == s || seps[i].equals(s);
    }

    @Override
    int encodedSizeHint() {
        int n = 0;
        for (Bytes s : seps) {
            n += s.length() + 2;
        }
        return n + children.length * (Hash.LENGTH + 4);
    }

    /**
     * Bytes of one handle a cache may leave in {@link #link}: a cache slot of a hash reference, a node reference and
     * a flag, which a link keeps reachable after the child itself was evicted.
     */
    public static final int LINK_BYTES = 32;

    /**
     * The child hash, separator and count arrays with what they reference, the prefix sums, and the links a cache
     * may leave (counted as if every child were linked).
     */
    @Override
    int itemsWeight() {
        int n = children.length;
        long w = 4L * arrayBytes((long) REF * n) + arrayBytes(8L * (n + 1)) + (long) LINK_BYTES * n
                + (long) HASH_BYTES * n + separatorsWeight();
        return (int) Math.min(Integer.MAX_VALUE, w);
    }

    /** Sum of {@link #separatorWeight} over the separators (the first child has none); -1 until known. */
    private long sepWeight = -1;

    long separatorsWeight() {
        long w = sepWeight;
        if (w < 0) {
            w = 0;
            for (int i = 1; i < seps.length; i++) {
                w += separatorWeight(seps[i]);
            }
            sepWeight = w;
        }
        return w;
    }

    /** Sets {@link #separatorsWeight()} for a node spliced from one whose separators' weight is known. */
    void knownSeparatorsWeight(long w) {
        sepWeight = w;
    }

    /** A separator's heap: its object and its array. */
    static long separatorWeight(Bytes s) {
        return BYTES_OBJECT + arrayBytes(s.length());
    }

    @Override
    boolean sameItemAt(Node b, int i, int j) {
        IndexNode o = (IndexNode) b;
        return (children[j] == o.children[i] || children[j].equals(o.children[i])) && counts[j] == o.counts[i]
                && (seps[j] == o.seps[i] || seps[j].equals(o.seps[i]));
    }

    @Override
    void writeOpItem(ByteWriter w, int i) {
        w.lengthPrefixed(seps[i]);
        w.varint(counts[i]);
        w.hash(children[i]);
    }

    @Override
    Node withOps(io.glassledger.verify.codec.ByteReader r, int n) {
        int cap = children.length + 8;
        List<Hash> cs = new java.util.ArrayList<>(cap);
        List<Bytes> ss = new java.util.ArrayList<>(cap);
        List<Long> ns = new java.util.ArrayList<>(cap);
        int at = 0;
        for (int k = 0; k < n; k++) {
            int skip = r.varint(children.length - at);
            for (int c = 0; c < skip; c++, at++) {
                cs.add(children[at]);
                ss.add(seps[at]);
                ns.add(counts[at]);
            }
            int removed = r.varint(children.length - at);
            int add = r.varint(MAX_FANOUT_DECODE);
            if (removed == 0 && add == 0) {
                throw new io.glassledger.verify.codec.MalformedException("empty delta run");
            }
            at += removed;
            for (int c = 0; c < add; c++) {
                ss.add(r.lengthPrefixed(Entry.MAX_KEY_BYTES));
                long count = r.varint();
                if (count == 0) {
                    throw new io.glassledger.verify.codec.MalformedException("child with no entries");
                }
                ns.add(count);
                cs.add(r.hash());
            }
        }
        for (; at < children.length; at++) {
            cs.add(children[at]);
            ss.add(seps[at]);
            ns.add(counts[at]);
        }
        int m = cs.size();
        if (m == 0 || m > MAX_FANOUT_DECODE) {
            throw new io.glassledger.verify.codec.MalformedException("delta gives " + m + " children");
        }
        if (ss.get(0).length() != 0) {
            throw new io.glassledger.verify.codec.MalformedException("first child with a separator");
        }
        for (int i = 1; i < m; i++) {
            if (ss.get(i).length() == 0 || (i > 1 && ss.get(i - 1).compareTo(ss.get(i)) >= 0)) {
                throw new io.glassledger.verify.codec.MalformedException("delta breaks separator order at " + i);
            }
        }
        long[] counts2 = new long[m];
        for (int i = 0; i < m; i++) {
            counts2[i] = ns.get(i);
        }
        try {
            return new IndexNode(level, cs.toArray(new Hash[0]), ss.toArray(new Bytes[0]), counts2);
        } catch (IllegalArgumentException e) {
            throw new io.glassledger.verify.codec.MalformedException(e.getMessage());
        }
    }

    /** The decoder's bound on children, as for full records. */
    private static final int MAX_FANOUT_DECODE = 1 << 20;

    @Override
    public void writeItems(ByteWriter w) {
        for (int i = 0; i < children.length; i++) {
            if (i > 0) {
                w.lengthPrefixed(seps[i]);
            }
            w.varint(counts[i]);
            w.hash(children[i]);
        }
    }

    @Override
    public String toString() {
        return "Index(level " + level + ", " + children.length + " children)";
    }
}
