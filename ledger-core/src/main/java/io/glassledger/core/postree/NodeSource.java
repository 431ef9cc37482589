package io.glassledger.core.postree;

import io.glassledger.verify.hash.Hash;

/**
 * The narrow port through which the tree reads nodes: memory, RocksDB or a cache in front of either.
 * Implementations must be thread-safe for concurrent reads.
 */
@FunctionalInterface
public interface NodeSource {
    /** The node with this hash; throws {@link MissingNodeException} if it is not stored. */
    Node node(Hash hash);

    /**
     * Child {@code i} of {@code parent}: the same node as {@code node(parent.child(i))}. A cache may answer it
     * without looking the hash up, through the link it left in the parent ({@link IndexNode#link}).
     */
    default Node child(IndexNode parent, int i) {
        return node(parent.child(i));
    }
}
