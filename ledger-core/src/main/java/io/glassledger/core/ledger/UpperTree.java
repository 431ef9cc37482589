package io.glassledger.core.ledger;

import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import io.glassledger.core.store.NodeStore;
import io.glassledger.core.store.StoreBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The upper tree, keyed by block number: an RFC 9162 Merkle tree over block hashes. Blocks only ever append, so
 * every complete, aligned power-of-two subtree is immutable and stored once under (level, index); any other
 * range's hash is computed from O(log n) of them. See {@link io.glassledger.verify.proof.UpperTreeMath}.
 */
final class UpperTree {
    /**
     * Complete subtrees of 2^{@value} blocks and more are kept in memory once read: at most one per 64 blocks, about
     * 2 MB at a million blocks.
     */
    static final int KEPT_LEVEL = 6;
    /** Below {@link #KEPT_LEVEL}, the last few subtrees read per level, by index modulo this (the head's frontier). */
    static final int RECENT = 64;

    private final NodeStore store;
    /**
     * Complete subtrees read from the store. They are immutable once stored (blocks only append, and nothing is
     * cached from a batch not yet written), so a cached hash never goes stale.
     */
    private final ConcurrentHashMap<Long, Hash> kept = new ConcurrentHashMap<>();
    /** Per level below {@link #KEPT_LEVEL}: a direct-mapped cache of recently read subtrees. */
    private final AtomicReferenceArray<Known> recent = new AtomicReferenceArray<>(KEPT_LEVEL * RECENT);

    private record Known(long index, Hash hash) {
    }

    UpperTree(NodeStore store) {
        this.store = store;
    }

    private Hash stored(int level, long index, StoreBatch pending) {
        Hash h = pending == null ? null : pending.pendingUpper(level, index);
        if (h != null) {
            return h;
        }
        h = cached(level, index);
        if (h != null) {
            return h;
        }
        h = store.upper(level, index);
        if (h == null) {
            throw new IllegalStateException("upper tree node (" + level + ", " + index + ") missing");
        }
        if (level >= KEPT_LEVEL) {
            kept.put(((long) level << 56) | index, h);
        } else {
            recent.set(level * RECENT + (int) (index % RECENT), new Known(index, h));
        }
        return h;
    }

    private Hash cached(int level, long index) {
        if (level >= KEPT_LEVEL) {
            return kept.get(((long) level << 56) | index);
        }
        Known k = recent.get(level * RECENT + (int) (index % RECENT));
        return k != null && k.index() == index ? k.hash() : null;
    }

    /** Records block {@code number}'s hash and every subtree it completes. */
    void append(long number, Hash blockHash, StoreBatch batch) {
        batch.putUpper(0, number, blockHash);
        long count = number + 1;
        for (int level = 1; (count & ((1L << level) - 1)) == 0; level++) {
            long index = (count >> level) - 1;
            batch.putUpper(level, index, Hashing.upperInner(stored(level - 1, 2 * index, batch),
                    stored(level - 1, 2 * index + 1, batch)));
        }
    }

    /** Root of blocks [lo, hi); {@link Hash#ZERO} when empty. */
    Hash root(long lo, long hi, StoreBatch pending) {
        long n = hi - lo;
        if (n == 0) {
            return Hash.ZERO;
        }
        if (Long.bitCount(n) == 1 && lo % n == 0) {
            return stored(Long.numberOfTrailingZeros(n), lo / n, pending);
        }
        long k = Long.highestOneBit(n - 1);
        return Hashing.upperInner(root(lo, lo + k, pending), root(lo + k, hi, pending));
    }

    Hash root(long size) {
        return root(0, size, null);
    }

    /** RFC 9162 PATH(m, D[lo:hi]), deepest sibling first. */
    List<Hash> inclusionPath(long index, long size) {
        List<Hash> out = new ArrayList<>();
        path(index, 0, size, out);
        return out;
    }

    private void path(long m, long lo, long hi, List<Hash> out) {
        long n = hi - lo;
        if (n <= 1) {
            return;
        }
        long k = Long.highestOneBit(n - 1);
        if (m < k) {
            path(m, lo, lo + k, out);
            out.add(root(lo + k, hi, null));
        } else {
            path(m - k, lo + k, hi, out);
            out.add(root(lo, lo + k, null));
        }
    }

    /** RFC 9162 PROOF(m, D[0:n]), 0 &lt; m &lt; n. */
    List<Hash> consistency(long m, long n) {
        List<Hash> out = new ArrayList<>();
        subproof(m, 0, n, true, out);
        return out;
    }

    private void subproof(long m, long lo, long hi, boolean b, List<Hash> out) {
        long n = hi - lo;
        if (m == n) {
            if (!b) {
                out.add(root(lo, hi, null));
            }
            return;
        }
        long k = Long.highestOneBit(n - 1);
        if (m <= k) {
            subproof(m, lo, lo + k, b, out);
            out.add(root(lo + k, hi, null));
        } else {
            subproof(m - k, lo + k, hi, false, out);
            out.add(root(lo, lo + k, null));
        }
    }
}
