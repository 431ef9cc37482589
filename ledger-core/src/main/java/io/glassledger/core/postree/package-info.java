/**
 * The POS-tree: an immutable, content-addressed, structurally invariant search tree whose node boundaries are
 * found by content-defined chunking (ForkBase §3.2), with a routing Merkle tree inside each node.
 * Pure: reads nodes only through {@link io.glassledger.core.postree.NodeSource}; must never depend on RocksDB.
 */
package io.glassledger.core.postree;
