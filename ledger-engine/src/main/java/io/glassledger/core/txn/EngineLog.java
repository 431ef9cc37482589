package io.glassledger.core.txn;

import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.core.store.RocksDbNodeStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The shard's log as the sequencer sees it: records are appended as requests are processed, one group commit per
 * batch makes them durable, and the WAL on disk is what recovery replays. There are two: {@link LocalLog}, where the
 * WAL is the durable log (a single-replica shard), and {@link GroupLog}, where the group's {@link ReplicatedLog} is
 * and the WAL is only this replica's apply journal. The sequencer runs the same steps over either; this class and
 * its two subclasses hold every difference.
 *
 * <p>Threads: the sequencer thread is the only one that appends, commits, rolls, truncates or snapshots (recovery
 * before it starts, {@link TxnEngine#close()} after it stops). {@link #applied()} and {@link #applies} are read by
 * any thread.
 */
abstract sealed class EngineLog permits LocalLog, GroupLog {
    /** The leader could not confirm an entry: thrown out of the sequencer's batch. */
    static final class LostLeadership extends Exception {
        LostLeadership(ReplicatedLog.NotCommittedException cause) {
            super(cause.getMessage(), cause);
        }

        /** The leader's id as this replica last knew it, or null. */
        String leader() {
            return ((ReplicatedLog.NotCommittedException) getCause()).leader();
        }
    }

    final EngineConfig cfg;
    private final boolean fsync;
    private final RocksDbNodeStore rocks;
    Wal wal;
    TxnStateMachine state;
    private volatile long appliedTerm;
    private volatile long appliedIndex;
    /** Snapshots asked for, also taken while the sequencer waits for an entry to commit. */
    private final ConcurrentLinkedQueue<Request.Snapshot> snapshotRequests = new ConcurrentLinkedQueue<>();

    EngineLog(EngineConfig cfg, boolean fsync, RocksDbNodeStore rocks) {
        this.cfg = cfg;
        this.fsync = fsync;
        this.rocks = rocks;
    }

    /** The log of a single-replica shard ({@code rlog} null) or of one replica of a group. No I/O yet. */
    static EngineLog of(EngineConfig cfg, ReplicatedLog rlog, RocksDbNodeStore rocks) {
        return rlog == null ? new LocalLog(cfg, rocks) : new GroupLog(cfg, rlog, rocks);
    }

    // ---------------------------------------------------------------- what differs

    /** Whether this is one replica of a replicated shard. */
    abstract boolean replicated();

    /** The genesis block's timestamp for a new ledger. */
    abstract long genesisTimestamp();

    /** Whether the engine leads from the start (a single replica) rather than waiting to be elected. */
    abstract boolean leadsFromStart();

    /** How many records of the last segment replay may apply. */
    abstract int replayLimit(Wal.Segment last);

    /** Appends a record the sequencer formed; durable only after the batch's {@link #groupCommit()}. */
    abstract void append(int type, byte[] payload);

    /** Called right after a SEAL record is appended: the epoch boundary is where a segment may roll. */
    abstract void sealed() throws LostLeadership, InterruptedException;

    /** Makes the batch's records durable; false if there was nothing to commit. */
    abstract boolean groupCommit() throws LostLeadership, InterruptedException;

    /** Drops records not committed, after a lost leadership. */
    abstract void discardPending();

    /** Whether an entry's origin ({@link ReplicatedLog#origin}) is this leader's entry in flight. */
    abstract boolean ownInFlight(long[] origin);

    /** The APPLIED record a new segment carries, or null. */
    abstract byte[] appliedRecord();

    /**
     * What each request of a batch gets when the sequencer fails mid-batch with {@code t}; {@code unavailable} is the
     * plain refusal once the engine has failed.
     */
    abstract TxnException batchFailed(Throwable t, String leaderHint, TxnException unavailable);

    // ---------------------------------------------------------------- common steps

    /** Opens the WAL and returns its segments for recovery. */
    List<Wal.Segment> open() {
        this.wal = Wal.open(cfg.dir().resolve("wal"), fsync);
        return wal.segments();
    }

    /** Binds the state the log's segments carry (prepared transactions, decisions, the epoch base). */
    void attach(TxnStateMachine state) {
        this.state = state;
    }

    /** After recovery: starts the first segment, or appends to the last. */
    void startAppending(boolean fresh) {
        if (fresh) {
            wal.startSegment(state.blocks.epochBase(), List.of(), List.of(), appliedRecord());
        } else {
            wal.reopenLast();
        }
    }

    /**
     * Starts a new WAL segment at a seal once the current one is past its size, carrying the transactions still
     * prepared and the recent 2PC outcomes (and a replica's applied position), so older segments can go.
     */
    final void rollIfFull() {
        if (wal.segmentBytes() < cfg.walSegmentBytes()) {
            return;
        }
        wal.startSegment(state.blocks.epochBase(), state.crossShard.preparedRecords(),
                state.crossShard.outcomeRecords(), appliedRecord());
    }

    /** Deletes the segments whose epochs are all persisted. */
    final void deleteUpTo(long persisted) {
        wal.deleteUpTo(persisted);
    }

    /** Replay met an APPLIED record. */
    final void restoreApplied(long term, long index) {
        appliedTerm = term;
        appliedIndex = index;
    }

    final byte[] appliedPosition() {
        return new ByteWriter(16).u64(appliedTerm).u64(appliedIndex).toByteArray();
    }

    /** The log position of the last entry this replica applied (0, 0 before any; always 0 for one replica). */
    final ReplicatedLog.Position applied() {
        return new ReplicatedLog.Position(appliedTerm, appliedIndex);
    }

    /** Whether a committed entry is still to apply: not one the journal holds, nor this leader's own in flight. */
    final boolean applies(long index, byte[] entry) {
        long[] origin = ReplicatedLog.origin(entry);
        return index > appliedIndex && (origin == null || !ownInFlight(origin));
    }

    /** Writes an entry's records to the journal with its position after them, and flushes. */
    final void journalApplied(List<Wal.Record> records, ReplicatedLog.Position pos) {
        for (Wal.Record r : records) {
            wal.append(r.type(), r.payload());
        }
        appliedTerm = pos.term();
        appliedIndex = pos.index();
        wal.append(Wal.APPLIED, appliedRecord());
        wal.flush();
    }

    /**
     * A follower's step: applies a committed entry of the group's log to the state and the journal, and hands the
     * epochs it seals to the persisting thread.
     */
    final void applyEntry(Request.Apply a, Persister persister) {
        if (a.index() <= appliedIndex) {
            a.done().complete(null);
            return;
        }
        ReplicatedLog.Entry e = ReplicatedLog.decode(a.entry());
        List<BlockSequencer.Epoch> sealed = new ArrayList<>(1);
        for (Wal.Record r : e.records()) {
            state.applyRecord(r, true, new ArrayList<>(0), sealed);
        }
        state.validator.pruneSeen(cfg.clock().getAsLong());
        state.updatePromisedBound();
        journalApplied(e.records(), new ReplicatedLog.Position(a.term(), a.index()));
        if (!sealed.isEmpty()) {
            for (BlockSequencer.Epoch ep : sealed) {
                persister.offerSealed(ep);
            }
            rollIfFull();
            persister.persistSoon();
        }
        a.done().complete(null);
    }

    /** Queues a snapshot request; the sequencer takes it from its queue or while it waits for a commit. */
    final void requestSnapshot(Request.Snapshot q) {
        snapshotRequests.add(q);
    }

    /** Takes the snapshots asked for (while an entry waits to commit). */
    final void takeSnapshots() {
        for (Request.Snapshot q; (q = snapshotRequests.poll()) != null; ) {
            snapshot(q);
        }
    }

    /** A RocksDB checkpoint of the ledger in {@code dir/ledger} and the journal's segments in {@code dir/wal}. */
    final void snapshot(Request.Snapshot q) {
        snapshotRequests.remove(q);
        if (q.done().isDone()) {
            return;
        }
        try {
            wal.force();
            Files.createDirectories(q.dir().resolve("wal"));
            List<Path> files;
            try (var st = Files.list(wal.dir())) {
                files = st.filter(f -> f.getFileName().toString().startsWith("wal-")).sorted().toList();
            }
            for (Path f : files) {
                Files.copy(f, q.dir().resolve("wal").resolve(f.getFileName()));
            }
            rocks.checkpoint(q.dir().resolve("ledger"));
            q.done().complete(applied());
        } catch (IOException | RuntimeException x) {
            q.done().completeExceptionally(x);
        }
    }

    /** Leaves the WAL as a crash would. */
    final void abandon() {
        wal.abandon();
    }

    final void close() {
        wal.close();
    }
}
