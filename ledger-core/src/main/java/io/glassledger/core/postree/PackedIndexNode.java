package io.glassledger.core.postree;

import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import java.util.Arrays;

/**
 * One index node of {@link IndexLevels}, its children packed into a few arrays: no object per child, so that the
 * index levels of a large state cost the collector a handful of objects per node (about 50 children) and not a few
 * per child, as {@link IndexNode} does.
 *
 * <p>Child i has its hash at {@code hashes[32 i]}, its entry count {@code prefix[i + 1] - prefix[i]}, and its
 * <em>lead separator</em>
 * at {@code seps[sepStart(i), sepEnd[i])}: the separator (FORMAT.md §4.2) between the last leaf before the child's
 * subtree and the first leaf in it. For i ≥ 1 that is {@code sep(i)} of FORMAT.md §4.2; child 0's is the node's own
 * lead separator (empty for the first node of a level), which the level above needs and FORMAT.md's node does not
 * store. At level 1 a child is a leaf and {@code leaves[i]} is the number its owner stores it under.
 *
 * <p>The node keeps its routing Merkle tree (FORMAT.md §4.3): the inner hash of the range that splits at m is at
 * {@code tree[32 (m - 1)]} (each m in 1..size-1 is the split of exactly one range), so {@link #replace} (children
 * replaced one for one with the same counts and separators, as a value update does) rewrites the node in place and
 * rehashes only the paths above the changed children. Its owner ({@link IndexLevels}) is the one writer; reads run
 * between its updates.
 */
final class PackedIndexNode {
    private static final int H = Hash.LENGTH;

    final int level;
    final int size;
    final byte[] hashes;
    /** Entries under children [0, i): the weights of FORMAT.md §4.3's splits. */
    final long[] prefix;
    final byte[] seps;
    final int[] sepEnd;
    /** Level 1: the children's leaf numbers; above: null. */
    final int[] leaves;
    final byte[] tree;
    final byte[] hash = new byte[H];
    final long total;

    /** A node of these children (the arrays are taken, not copied), hashed whole. */
    PackedIndexNode(int level, int size, byte[] hashes, long[] counts, byte[] seps, int[] sepEnd, int[] leaves) {
        if (level < 1 || level > 254) {
            throw new IllegalArgumentException("index level must be 1..254: " + level);
        }
        if (size < 1) {
            throw new IllegalArgumentException("an index node has at least one child");
        }
        this.level = level;
        this.size = size;
        this.hashes = hashes;
        this.seps = seps;
        this.sepEnd = sepEnd;
        this.leaves = leaves;
        this.prefix = new long[size + 1];
        for (int i = 0; i < size; i++) {
            if (counts[i] < 1 || counts[i] > IndexNode.MAX_ENTRIES - prefix[i]) {
                throw new IllegalArgumentException("child entry counts must be positive and sum to at most 2^48");
            }
            prefix[i + 1] = prefix[i] + counts[i];
        }
        this.total = prefix[size];
        this.tree = new byte[(size - 1) * H];
        hashNode(null);
    }

    /**
     * Rewrites, in place, the children at {@code slots} (increasing) with ones of the same entry counts and lead
     * separators: their hashes at {@code newHashes[32 k]} and, at level 1, their leaf numbers {@code newLeaves[k]};
     * only the Merkle paths above them and the node's hash are recomputed. Returns this node.
     */
    PackedIndexNode replace(int[] slots, byte[] newHashes, int[] newLeaves) {
        for (int k = 0; k < slots.length; k++) {
            System.arraycopy(newHashes, k * H, hashes, slots[k] * H, H);
            if (leaves != null) {
                leaves[slots[k]] = newLeaves[k];
            }
        }
        hashNode(slots);
        return this;
    }

    long count(int i) {
        return prefix[i + 1] - prefix[i];
    }

    /** Hashes the tree where {@code slots} (null: everywhere) changed, then the node. */
    private void hashNode(int[] slots) {
        if (size == 1) {
            Hashing.node(level, hashes, 0, hash, 0);
        } else {
            int top = fill(slots, 0, size);
            Hashing.node(level, tree, (top - 1) * H, hash, 0);
        }
    }

    /** Rehashes R(lo, hi) (hi - lo ≥ 2) into the tree if a slot in it changed; returns its split m. */
    private int fill(int[] slots, int lo, int hi) {
        int m = split(prefix, lo, hi);
        if (slots != null && !changedIn(slots, lo, hi)) {
            return m;
        }
        byte[] left = hashes;
        int leftOff = lo * H;
        if (m - lo > 1) {
            left = tree;
            leftOff = (fill(slots, lo, m) - 1) * H;
        }
        byte[] right = hashes;
        int rightOff = m * H;
        if (hi - m > 1) {
            right = tree;
            rightOff = (fill(slots, m, hi) - 1) * H;
        }
        int s = sepStart(m);
        Hashing.inner(seps, s, sepEnd[m] - s, left, leftOff, right, rightOff, tree, (m - 1) * H);
        return m;
    }

    private static boolean changedIn(int[] slots, int lo, int hi) {
        int i = Arrays.binarySearch(slots, lo);
        if (i >= 0) {
            return true;
        }
        i = -i - 1;
        return i < slots.length && slots[i] < hi;
    }

    /**
     * FORMAT.md §4.3's weight-balanced split of [lo, hi): among m in [lo + q, hi - q], q = max(1, (hi - lo) / 4),
     * the m minimising |2 W(lo, m) - W(lo, hi)|, the smaller on a tie. Counts are at least 1, so 2 W(lo, m) - W(lo,
     * hi) strictly increases with m, and the best m is next to where it turns non-negative: a binary search, where
     * {@link IndexNode#split} scans.
     */
    static int split(long[] prefix, int lo, int hi) {
        int q = Math.max(1, (hi - lo) / 4);
        int a = lo + q;
        int b = hi - q;
        long total = prefix[hi] - prefix[lo];
        int x = a;
        int y = b + 1;
        while (x < y) {
            int mid = (x + y) >>> 1;
            if (2 * (prefix[mid] - prefix[lo]) >= total) {
                y = mid;
            } else {
                x = mid + 1;
            }
        }
        if (x == a) {
            return a;
        }
        if (x > b) {
            return b;
        }
        long below = total - 2 * (prefix[x - 1] - prefix[lo]);
        long above = 2 * (prefix[x] - prefix[lo]) - total;
        return below <= above ? x - 1 : x;
    }

    int sepStart(int i) {
        return i == 0 ? 0 : sepEnd[i - 1];
    }

    /** Whether child i's lead separator is {@code sep[off, off + len)}. */
    boolean sepEquals(int i, byte[] sep, int off, int len) {
        int s = sepStart(i);
        return Arrays.equals(seps, s, sepEnd[i], sep, off, off + len);
    }

    /** The child whose key range holds {@code key}: the last i ≥ 1 with sep(i) ≤ key, or 0. */
    int route(byte[] key) {
        int lo = 1;
        int hi = size - 1;
        int ans = 0;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int s = sepStart(mid);
            if (Arrays.compareUnsigned(seps, s, sepEnd[mid], key, 0, key.length) <= 0) {
                ans = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return ans;
    }

    /** Bytes of heap this node retains alone (64-bit JVM, compressed references, 8-byte alignment). */
    long heapBytes() {
        long b = align(12 + 4 * 2 + 8 + 4 * 7);
        b += array(hashes.length) + array(8L * prefix.length) + array(seps.length) + array(4L * sepEnd.length);
        b += (leaves == null ? 0 : array(4L * leaves.length)) + array(tree.length) + array(H);
        return b;
    }

    private static long array(long payload) {
        return align(16 + payload);
    }

    private static long align(long n) {
        return (n + 7) & ~7L;
    }
}
