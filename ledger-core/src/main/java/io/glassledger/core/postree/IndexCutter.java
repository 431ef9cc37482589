package io.glassledger.core.postree;

import io.glassledger.verify.hash.Hash;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Cuts one level's children into nodes by FORMAT.md §5.4, gathering each node's children in growing arrays. */
final class IndexCutter {
    private static final int H = Hash.LENGTH;

    final int level;
    final long mask;
    final int maxFanout;
    final List<PackedIndexNode> out = new ArrayList<>();
    byte[] hashes = new byte[64 * H];
    long[] counts = new long[64];
    byte[] seps = new byte[512];
    int[] sepEnd = new int[64];
    int[] leaves = new int[64];
    int n;
    int sepLen;

    IndexCutter(int level, TreeParams params) {
        this.level = level;
        this.mask = params.indexMask();
        this.maxFanout = params.indexMaxFanout();
    }

    void add(Object item) {
        append(item);
        closeIfBoundary();
    }

    void addOld(IndexLevels.Level old, int pos) {
        int j = old.nodeAt(pos);
        appendOld(old.nodes[j], pos - old.starts[j]);
        closeIfBoundary();
    }

    private void closeIfBoundary() {
        if (hitsAt(n - 1) || n >= maxFanout) {
            out.add(make());
        }
    }

    void finish() {
        if (n > 0) {
            out.add(make());
        }
    }

    boolean hitsAt(int i) {
        return IndexLevels.hits(hashes, i * H, mask);
    }

    void append(Object item) {
        if (item instanceof IndexLevels.Leaf leaf) {
            byte[] sep = leaf.leadSeparator().unsafeArray();
            put(leaf.hash().unsafeArray(), 0, leaf.count(), sep, 0, sep.length, leaf.number());
        } else {
            PackedIndexNode c = (PackedIndexNode) item;
            put(c.hash, 0, c.total, c.seps, 0, c.sepEnd[0], -1);
        }
    }

    void appendOld(PackedIndexNode o, int slot) {
        int s = o.sepStart(slot);
        put(o.hashes, slot * H, o.count(slot), o.seps, s, o.sepEnd[slot] - s,
                o.leaves == null ? -1 : o.leaves[slot]);
    }

    private void put(byte[] h, int hOff, long count, byte[] sep, int sOff, int sLen, int leaf) {
        if (n == counts.length) {
            int cap = 2 * n;
            hashes = Arrays.copyOf(hashes, cap * H);
            counts = Arrays.copyOf(counts, cap);
            sepEnd = Arrays.copyOf(sepEnd, cap);
            leaves = Arrays.copyOf(leaves, cap);
        }
        if (sepLen + sLen > seps.length) {
            seps = Arrays.copyOf(seps, Math.max(2 * seps.length, sepLen + sLen));
        }
        System.arraycopy(h, hOff, hashes, n * H, H);
        counts[n] = count;
        System.arraycopy(sep, sOff, seps, sepLen, sLen);
        sepLen += sLen;
        sepEnd[n] = sepLen;
        leaves[n] = leaf;
        n++;
    }

    /** The node of the children gathered, which are then cleared. */
    PackedIndexNode make() {
        PackedIndexNode node = new PackedIndexNode(level, n, Arrays.copyOf(hashes, n * H),
                Arrays.copyOf(counts, n), Arrays.copyOf(seps, sepLen), Arrays.copyOf(sepEnd, n),
                level == 1 ? Arrays.copyOf(leaves, n) : null);
        reset();
        return node;
    }

    void reset() {
        n = 0;
        sepLen = 0;
    }
}
