/**
 * Storage of ledger bytes behind {@link io.glassledger.core.store.NodeStore}: in memory, or in RocksDB. The only
 * package that touches RocksDB; rocksdbjni is an optional dependency of ledger-core, declared by the modules
 * that store data.
 */
package io.glassledger.core.store;
