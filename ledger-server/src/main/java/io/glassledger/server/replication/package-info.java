/**
 * Replication (docs/ARCHITECTURE.md "Replication"): each shard a Raft group of R replicas on Apache Ratis. The
 * group's log orders every change of the shard; the engine of the leader validates and proposes, every replica applies
 * committed entries in order, and snapshots (a RocksDB checkpoint and the journal) let a new or wiped replica catch up.
 */
package io.glassledger.server.replication;
