/**
 * One shard's engine: it orders, logs, applies and persists the transactions whose encoding and verification live
 * in ledger-verify ({@code io.glassledger.verify.txn}). {@link io.glassledger.core.txn.TxnEngine} is the engine's only public face; its
 * parts are package-private, one job each, along a transaction's path: {@code Admission} (worker-pool checks) →
 * {@code Sequencer} (one thread: {@code Validator}'s OCC, {@code EngineLog}'s group commit, {@code TxnStateMachine}'s
 * blocks, {@code CrossShardState}'s 2PC) → {@code CommittedData} (reads) → {@code Persister} (ledger, then
 * {@code ProofBatcher}); {@code Recovery} replays the WAL at open and {@code Leadership} gates a replica. The engine
 * parts share one package so that none of them is public: the server reaches the engine only through the facade.
 *
 * <p>Must never depend on Ratis, Spring, Netty or the server modules (a replicated log comes in through
 * {@link io.glassledger.core.txn.ReplicatedLog}), nor on RocksDB except through {@code core.store}.
 */
package io.glassledger.core.txn;
