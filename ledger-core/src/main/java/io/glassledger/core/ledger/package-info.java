/**
 * The two-level ledger: blocks of lower-tree roots under an upper tree keyed by block number, with reads, history
 * and proof generation. Reads storage only through {@link io.glassledger.core.store.NodeStore}; never RocksDB
 * directly.
 */
package io.glassledger.core.ledger;
