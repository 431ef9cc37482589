package io.glassledger.core.postree;

import io.glassledger.core.hash.Hash;

/**
 * The narrow port through which the tree reads nodes: memory, RocksDB or a cache in front of either.
 * Implementations must be thread-safe for concurrent reads.
 */
@FunctionalInterface
public interface NodeSource {
    /** The node with this hash; throws {@link MissingNodeException} if it is not stored. */
    Node node(Hash hash);
}
