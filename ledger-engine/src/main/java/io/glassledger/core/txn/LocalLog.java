package io.glassledger.core.txn;

import io.glassledger.core.store.RocksDbNodeStore;

/**
 * A single-replica shard's log: the WAL itself, written with group commit (one flush, and one fsync if configured,
 * per sequencer batch). Records are buffered by {@link Wal} as they are appended, so the hot path allocates nothing
 * here.
 */
final class LocalLog extends EngineLog {
    LocalLog(EngineConfig cfg, RocksDbNodeStore rocks) {
        super(cfg, cfg.fsync(), rocks);
    }

    @Override
    boolean replicated() {
        return false;
    }

    @Override
    long genesisTimestamp() {
        return cfg.clock().getAsLong();
    }

    @Override
    boolean leadsFromStart() {
        return true;
    }

    @Override
    int replayLimit(Wal.Segment last) {
        return Integer.MAX_VALUE;
    }

    @Override
    void append(int type, byte[] payload) {
        wal.append(type, payload);
    }

    @Override
    void sealed() {
        rollIfFull();
    }

    @Override
    boolean groupCommit() {
        return wal.flush();
    }

    @Override
    void discardPending() {
    }

    @Override
    boolean ownInFlight(long[] origin) {
        return false;  // a single replica proposes no entries
    }

    @Override
    byte[] appliedRecord() {
        return null;
    }

    @Override
    TxnException batchFailed(Throwable t, String leaderHint, TxnException unavailable) {
        return unavailable;
    }
}
