package io.glassledger.core.ledger;

import io.glassledger.core.hash.Bytes;
import io.glassledger.core.hash.Hash;
import io.glassledger.core.postree.Node;
import io.glassledger.core.postree.NodeSource;
import io.glassledger.core.proof.KeysProof;
import io.glassledger.core.proof.LowerProof;
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
        NodeSource once = h -> {
            Node n = visited.get(h);
            if (n == null) {
                n = ledger.node(h);
                visited.put(h, n);
                reads++;
            }
            return n;
        };
        this.prover = new TreeProver(once);
    }

    /** A proof of {@code keys} (any order, duplicates ignored), its parts charged to {@code budget}. */
    public KeysProof prove(List<Bytes> keys, ByteBudget budget) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("no keys to prove");
        }
        LowerProof lower = prover.prove(lowerRoot, new ArrayList<>(new TreeSet<>(keys)), budget);
        // The anchor is charged too: with neighbours shown by hash, it can be a good part of a small proof.
        budget.charge(anchor instanceof KeysProof.Older o
                ? TreeProver.PART_BYTES + (3L + o.upperPath().size()) * TreeProver.HASH_BYTES
                : TreeProver.PART_BYTES + TreeProver.HASH_BYTES);
        return new KeysProof(blockNo, anchor, lower);
    }

    /** Nodes read from the ledger so far: each at most once, however many proofs walked it. */
    public int nodeReads() {
        return reads;
    }
}
