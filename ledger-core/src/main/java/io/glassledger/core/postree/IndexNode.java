package io.glassledger.core.postree;

import io.glassledger.core.codec.ByteWriter;
import io.glassledger.core.hash.Bytes;
import io.glassledger.core.hash.Hash;

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

    IndexNode(int level, Hash[] children, Bytes[] seps, long[] counts) {
        if (level < 1 || level > 254) {
            throw new IllegalArgumentException("index level must be 1..254");
        }
        this.level = level;
        this.children = children;
        this.seps = seps;
        this.counts = counts;
        this.prefix = new long[counts.length + 1];
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] <= 0 || counts[i] > MAX_ENTRIES - prefix[i]) {
                throw new IllegalArgumentException("child entry counts must be positive and sum to at most 2^48");
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

    @Override
    void writeItem(ByteWriter w, int i) {
        if (i > 0) {
            w.lengthPrefixed(seps[i]);
        }
        w.varint(counts[i]);
        w.hash(children[i]);
    }

    @Override
    Node withEdits(io.glassledger.core.codec.ByteReader r, int n) {
        Hash[] cs = children.clone();
        Bytes[] ss = seps.clone();
        long[] ns = counts.clone();
        int last = -1;
        for (int k = 0; k < n; k++) {
            int i = r.varint(cs.length - 1);
            if (i <= last) {
                throw new io.glassledger.core.codec.MalformedException("delta indexes not increasing");
            }
            last = i;
            if (i > 0) {
                ss[i] = r.lengthPrefixed(Entry.MAX_KEY_BYTES);
            }
            ns[i] = r.varint();
            cs[i] = r.hash();
        }
        for (int i = 1; i < ss.length; i++) {
            if (ss[i].length() == 0 || (i > 1 && ss[i - 1].compareTo(ss[i]) >= 0)) {
                throw new io.glassledger.core.codec.MalformedException("delta breaks separator order at " + i);
            }
        }
        try {
            return new IndexNode(level, cs, ss, ns);
        } catch (IllegalArgumentException e) {
            throw new io.glassledger.core.codec.MalformedException(e.getMessage());
        }
    }

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
