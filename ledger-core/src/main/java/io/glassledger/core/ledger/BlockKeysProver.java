package io.glassledger.core.ledger;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.entry.Entry;
import io.glassledger.core.postree.IndexNode;
import io.glassledger.core.postree.Node;
import io.glassledger.core.postree.NodeSource;
import io.glassledger.verify.proof.KeysProof;
import io.glassledger.verify.proof.LowerProof;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Proofs of several key sets in one block against one digest, from one traversal: the anchor (upper-tree path) is
 * made once, and every node a proof walks is read from the ledger once and kept here, so that the next key set's
 * proof walks only nodes already read. Each proof holds only its own keys' paths: a batch of requests answers each
 * with its own sub-proof, never with another request's keys.
 *
 * <p>Threading: one thread at a time. Holds the nodes it visited until dropped: make one per batch.
 */
public final class BlockKeysProver {
    private final long blockNo;
    private final KeysProof.Anchor anchor;
    private final Hash lowerRoot;
    private final TreeProver prover;
    private final Map<Hash, Node> visited = new HashMap<>();
    private int reads;

    BlockKeysProver(long blockNo, KeysProof.Anchor anchor, Hash lowerRoot, NodeSource ledger) {
        this.blockNo = blockNo;
        this.anchor = anchor;
        this.lowerRoot = lowerRoot;
        NodeSource once = new NodeSource() {
            @Override
            public Node node(Hash h) {
                Node n = visited.get(h);
                if (n == null) {
                    n = ledger.node(h);
                    visited.put(h, n);
                    reads++;
                }
                return n;
            }

            @Override
            public Node child(IndexNode parent, int i) {
                Hash h = parent.child(i);
                Node n = visited.get(h);
                if (n == null) {
                    n = ledger.child(parent, i);
                    visited.put(h, n);
                    reads++;
                }
                return n;
            }
        };
        this.prover = new TreeProver(once);
    }

    /** A proof of {@code keys} (any order, duplicates ignored), its parts charged to {@code budget}. */
    public KeysProof prove(List<Bytes> keys, ByteBudget budget) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("no keys to prove");
        }
        LowerProof lower = prover.prove(lowerRoot, new ArrayList<>(new TreeSet<>(keys)), budget);
        chargeAnchor(budget);
        return new KeysProof(blockNo, anchor, lower);
    }

    /** A proof and the entries it ends on: {@code entries.get(i)} is key i's entry, or null if the block has none. */
    public record Proved(KeysProof proof, List<Entry> entries) {
    }

    /**
     * As {@link #prove}, for keys already sorted and distinct, also returning the entry of each key as the proof's
     * traversal found it: what a caller needs for the claims, without a second walk down the tree.
     */
    public Proved proveSorted(List<Bytes> sortedDistinctKeys, ByteBudget budget) {
        if (sortedDistinctKeys.isEmpty()) {
            throw new IllegalArgumentException("no keys to prove");
        }
        for (int i = 1; i < sortedDistinctKeys.size(); i++) {
            if (sortedDistinctKeys.get(i - 1).compareTo(sortedDistinctKeys.get(i)) >= 0) {
                throw new IllegalArgumentException("keys must be sorted and distinct");
            }
        }
        Entry[] found = new Entry[sortedDistinctKeys.size()];
        LowerProof lower = prover.prove(lowerRoot, sortedDistinctKeys, budget, found);
        chargeAnchor(budget);
        return new Proved(new KeysProof(blockNo, anchor, lower), java.util.Arrays.asList(found));
    }

    private void chargeAnchor(ByteBudget budget) {
        // The anchor is charged too: with neighbours shown by hash, it can be a good part of a small proof.
        budget.charge(anchor instanceof KeysProof.Older o
                ? TreeProver.PART_BYTES + (3L + o.upperPath().size()) * TreeProver.HASH_BYTES
                : TreeProver.PART_BYTES + TreeProver.HASH_BYTES);
    }

    /** Nodes read from the ledger so far: each at most once, however many proofs walked it. */
    public int nodeReads() {
        return reads;
    }
}
