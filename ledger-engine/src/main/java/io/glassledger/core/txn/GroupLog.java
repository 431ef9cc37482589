package io.glassledger.core.txn;

import io.glassledger.core.store.RocksDbNodeStore;
import io.glassledger.core.txn.TxnException.Reason;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One replica's log in a replicated shard (docs/ARCHITECTURE.md "Replication"): the leader's records of a batch go
 * to the group's {@link ReplicatedLog} as one entry, and once a majority holds it, into this replica's WAL, which is
 * its apply journal (written without fsync: the group's log is the durable one). A journal ends in an
 * {@link Wal#APPLIED} record naming the last entry whose records it holds; replay stops there.
 *
 * <p>A seal ends its entry, so that a snapshot always falls between epochs. Entries carry this engine's incarnation
 * and a sequence number, so that the leader does not apply twice the entry it formed its state from.
 */
final class GroupLog extends EngineLog {
    private final ReplicatedLog rlog;
    private final long incarnation = new SecureRandom().nextLong();
    private long entrySeq;
    private volatile long inFlightSeq = -1;
    /** The records formed since the last entry: the sequencer thread only. */
    private final List<Wal.Record> pending = new ArrayList<>();

    GroupLog(EngineConfig cfg, ReplicatedLog rlog, RocksDbNodeStore rocks) {
        super(cfg, false, rocks);
        this.rlog = rlog;
    }

    @Override
    boolean replicated() {
        return true;
    }

    /** Replicas of a group must form byte-identical ledgers, so their genesis blocks share timestamp 0. */
    @Override
    long genesisTimestamp() {
        return 0;
    }

    @Override
    boolean leadsFromStart() {
        return false;
    }

    /**
     * A replica's journal may end in part of an entry (written without fsync, cut by a crash): replay stops at its
     * last APPLIED record, and the group's log supplies the rest.
     */
    @Override
    int replayLimit(Wal.Segment last) {
        int stopAt = 0;
        for (int i = 0; i < last.records().size(); i++) {
            if (last.records().get(i).type() == Wal.APPLIED) {
                stopAt = i + 1;
            }
        }
        return stopAt;
    }

    @Override
    void append(int type, byte[] payload) {
        pending.add(new Wal.Record(type, payload));
    }

    @Override
    void sealed() throws LostLeadership, InterruptedException {
        replicatePending();
    }

    @Override
    boolean groupCommit() throws LostLeadership, InterruptedException {
        return replicatePending();
    }

    @Override
    void discardPending() {
        pending.clear();
    }

    @Override
    boolean ownInFlight(long[] origin) {
        return origin[0] == incarnation && origin[1] == inFlightSeq;
    }

    @Override
    byte[] appliedRecord() {
        return appliedPosition();
    }

    /** The batch's entry may be in the group's log already: its requests' outcomes are unknown. */
    @Override
    TxnException batchFailed(Throwable t, String leaderHint, TxnException unavailable) {
        return new TxnException(Reason.OUTCOME_UNKNOWN, "this replica of shard " + cfg.shard() + " failed: " + t
                + "; ask the transaction's status at the leader", leaderHint);
    }

    /**
     * The leader's group commit: the records formed since the last entry go to the group's log as one entry, and
     * once a majority holds it, into this replica's journal. False if there was nothing to replicate.
     */
    private boolean replicatePending() throws LostLeadership, InterruptedException {
        if (pending.isEmpty()) {
            return false;
        }
        long seq = ++entrySeq;
        byte[] entry = ReplicatedLog.encode(incarnation, seq, pending);
        inFlightSeq = seq;
        ReplicatedLog.Position pos;
        try {
            pos = awaitCommitted(rlog.replicate(entry));
        } finally {
            inFlightSeq = -1;
        }
        boolean sealed = pending.get(pending.size() - 1).type() == Wal.SEAL;
        journalApplied(pending, pos);
        pending.clear();
        if (sealed) {
            rollIfFull();
        }
        return true;
    }

    /**
     * Waits for an entry to commit, taking the snapshots asked for meanwhile: the log's thread asks for them, and it
     * may be the thread that must apply the entry before the wait can end.
     */
    private ReplicatedLog.Position awaitCommitted(CompletableFuture<ReplicatedLog.Position> f)
            throws LostLeadership, InterruptedException {
        while (true) {
            try {
                return f.get(2, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                takeSnapshots();
            } catch (ExecutionException e) {
                Throwable c = e.getCause();
                if (c instanceof CompletionException && c.getCause() != null) {
                    c = c.getCause();
                }
                if (c instanceof ReplicatedLog.NotCommittedException n) {
                    throw new LostLeadership(n);
                }
                throw new LostLeadership(new ReplicatedLog.NotCommittedException(String.valueOf(e.getCause()), null,
                        e.getCause()));
            }
        }
    }
}
