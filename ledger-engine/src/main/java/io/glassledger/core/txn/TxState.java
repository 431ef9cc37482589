package io.glassledger.core.txn;

/** A transaction's state at one shard, as a 2PC participant reports it. */
public enum TxState {
    /** Voted yes and holding its keys; waiting for the decision. */
    PREPARED,
    COMMITTED,
    ABORTED,
    /** Never seen, or decided so long ago that the shard no longer remembers the outcome. */
    UNKNOWN
}
