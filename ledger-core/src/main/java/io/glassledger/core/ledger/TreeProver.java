package io.glassledger.core.ledger;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.entry.Entry;
import io.glassledger.core.postree.IndexNode;
import io.glassledger.core.postree.LeafNode;
import io.glassledger.core.postree.Node;
import io.glassledger.core.postree.NodeSource;
import io.glassledger.verify.proof.LowerProof;
import java.util.List;

/**
 * Builds {@link LowerProof}s by walking the same routing Merkle structure that {@link Node#hash()} hashes, so a
 * proof follows the path a verifier will route along. Keys must be distinct and sorted; one traversal serves all.
 * Every part is charged to a {@link ByteBudget} as it is made (a neighbour's whole entry, a hash, a separator), so a
 * proof too large for its budget stops at the part that crosses it.
 */
final class TreeProver {
    private final NodeSource src;

    TreeProver(NodeSource src) {
        this.src = src;
    }

    /** Charged for a hash, and for a part's framing (symbol, version, owner): a little over the encoded size. */
    static final int HASH_BYTES = 33;
    static final int PART_BYTES = 16;
    /** A version varint, at most 9 bytes. */
    static final int VERSION_BYTES = 9;

    LowerProof prove(Hash root, List<Bytes> sortedKeys, ByteBudget budget) {
        return prove(root, sortedKeys, budget, null);
    }

    /**
     * As {@link #prove(Hash, List, ByteBudget)}, also setting {@code found[i]} to the entry of key i that the proof
     * ends on (left null for a key the tree does not hold), so that a caller needing the claimed entries does not
     * walk the tree a second time.
     */
    LowerProof prove(Hash root, List<Bytes> sortedKeys, ByteBudget budget, Entry[] found) {
        if (root.isZero()) {
            return new LowerProof(-1, null);
        }
        Node n = src.node(root);
        return new LowerProof(n.level(), node(n, sortedKeys, 0, budget, found));
    }

    /** A proof inside one leaf (root level 0), for history. */
    /** @param first the index, among all the proof's keys, of {@code keys.get(0)} */
    private LowerProof.Part node(Node n, List<Bytes> keys, int first, ByteBudget budget, Entry[] found) {
        budget.charge(PART_BYTES);
        return new LowerProof.Boundary(items(n, 0, n.size(), keys, first, budget, found));
    }

    private LowerProof.Part items(Node n, int lo, int hi, List<Bytes> keys, int first, ByteBudget budget,
            Entry[] found) {
        if (keys.isEmpty()) {
            budget.charge(HASH_BYTES);
            return new LowerProof.Pruned(n.subtreeHash(lo, hi));
        }
        if (hi - lo == 1) {
            return item(n, lo, keys, first, budget, found);
        }
        int m = n.split(lo, hi);
        Bytes sep = n.separator(m);
        int cut = 0;
        while (cut < keys.size() && keys.get(cut).compareTo(sep) < 0) {
            cut++;
        }
        budget.charge(PART_BYTES + sep.length());
        return new LowerProof.Inner(sep, items(n, lo, m, keys.subList(0, cut), first, budget, found),
                items(n, m, hi, keys.subList(cut, keys.size()), first + cut, budget, found));
    }

    private LowerProof.Part item(Node n, int i, List<Bytes> keys, int first, ByteBudget budget, Entry[] found) {
        if (n instanceof IndexNode in) {
            return node(src.child(in, i), keys, first, budget, found);
        }
        Entry e = ((LeafNode) n).entry(i);
        int owner = keys.indexOf(e.key());
        if (owner >= 0 && found != null) {
            found[first + owner] = e;
        }
        // An entry no claim owns shows its value by hash only: a proof never carries a value it was not asked for.
        // Charged: the part, its version, and for a neighbour its length-prefixed key, marker and value hash.
        budget.charge(PART_BYTES + VERSION_BYTES + (owner >= 0 ? 0 : 5 + e.key().length() + HASH_BYTES));
        return owner >= 0
                ? LowerProof.Leaf.claimed(owner, e.version())
                : LowerProof.Leaf.hashed(e.key(), e.valueHash(), e.version());
    }
}
