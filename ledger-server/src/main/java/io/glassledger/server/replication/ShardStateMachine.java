package io.glassledger.server.replication;

import io.glassledger.verify.LedgerException;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.core.txn.LogEntryCheck;
import io.glassledger.core.txn.EngineConfig;
import io.glassledger.core.txn.ReplicatedLog;
import io.glassledger.core.txn.TxnEngine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.util.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Ratis state machine of one replica: the shard's engine. Committed entries go to
 * {@link TxnEngine#apply(long, long, byte[])} in log order; leadership events to the engine's role; snapshots are the
 * engine's checkpoint and journal ({@link SnapshotStore}). Nothing here throws out of {@code applyTransaction}: an
 * entry the engine cannot apply fails the engine (readiness and liveness report it), not the Ratis server.
 */
final class ShardStateMachine extends BaseStateMachine {
    private static final Logger LOG = LoggerFactory.getLogger(ShardStateMachine.class);

    private final EngineConfig cfg;
    private final ReplicaGroup group;
    private final SnapshotStore snapshots = new SnapshotStore();
    private final java.time.Duration minSnapshotInterval;
    private final io.glassledger.server.auth.AuthStore auth;
    private final LogSeal seal;
    private volatile TxnEngine engine;
    private long lastSnapshotNanos = System.nanoTime();

    ShardStateMachine(EngineConfig cfg, ReplicaGroup group, java.time.Duration minSnapshotInterval,
                      io.glassledger.server.auth.AuthStore auth, LogSeal seal) {
        this.cfg = cfg;
        this.seal = seal;
        this.group = group;
        this.minSnapshotInterval = minSnapshotInterval;
        this.auth = auth;
    }

    /** The log's changes other than transactions: client keys' registrations, into the auth store. */
    private String applyExtension(byte[] payload) {
        try {
            ClientKeyChange c = ClientKeyChange.decode(payload);
            return auth.applyRegistration(c.clientId(), c.publicKey());
        } catch (RuntimeException e) {
            LOG.error("shard {} replica: an extension record that cannot be applied: {}", cfg.shard(), e.toString());
            return "malformed";
        }
    }

    private TxnEngine open() {
        return TxnEngine.openReplica(cfg, group, this::applyExtension);
    }

    /** Restores the engine's directory and the client keys from the newest snapshot. */
    private void restore() throws IOException {
        snapshots.restoreTo(cfg.dir());
        Path cur = snapshots.current();
        if (cur != null) {
            auth.importClients(cur.resolve("auth"));
        }
    }

    TxnEngine engine() {
        return engine;
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage storage) throws IOException {
        super.initialize(server, groupId, storage);
        snapshots.init(storage);
        getLifeCycle().startAndTransition(this::openEngine, IOException.class);
    }

    /**
     * Opens the engine from its directory. If its journal is behind the latest snapshot (a journal cut by a crash
     * without fsync), or cannot be read, the directory is set aside and rebuilt from the snapshot, or from nothing:
     * the group's log and the leader's snapshots hold everything a replica applied.
     */
    private void openEngine() throws IOException {
        SnapshotInfo snap = snapshots.getLatestSnapshot();
        TxnEngine e;
        try {
            e = open();
        } catch (io.glassledger.core.ledger.UnsupportedFormatException x) {
            // Another release's data, not damage: setting it aside would lose it (the shard refuses to start first).
            throw x;
        } catch (LedgerException | java.io.UncheckedIOException x) {
            Path aside = cfg.dir().resolveSibling(cfg.dir().getFileName() + ".damaged-" + Instant.now().toEpochMilli());
            LOG.error("shard {} replica: cannot open its state ({}); moving it to {} and rebuilding it from {}",
                    cfg.shard(), x.getMessage(), aside, snap != null ? "snapshot " + snap.getTermIndex() : "the log");
            Files.move(cfg.dir(), aside);
            Files.createDirectories(cfg.dir());
            if (snap != null) {
                restore();
            }
            e = open();
        }
        if (snap != null && e.applied().index() < snap.getIndex()) {
            LOG.warn("shard {} replica: journal at {} is behind snapshot {}; restoring the snapshot", cfg.shard(),
                    e.applied().index(), snap.getTermIndex());
            e.close();
            restore();
            e = open();
        }
        e.onLostLeadership(group::restartAsync);
        ReplicatedLog.Position at = e.applied();
        engine = e;
        group.engineOpened(e);
        LOG.info("shard {} replica {}: engine open, applied through {}:{}, head block {}", cfg.shard(),
                group.selfId(), at.term(), at.index(), e.digest().blockNo());
    }

    @Override
    public TransactionContext startTransaction(RaftClientRequest request) throws IOException {
        // Only this replica's own engine proposes entries (in-process; the Raft port's client service is off, and
        // MemberGate refuses it): a Ratis client from anywhere else cannot.
        if (!group.isOwnClient(request.getClientId())) {
            throw new IOException("only the shard's engine writes its log");
        }
        return super.startTransaction(request);
    }

    /**
     * Applies a committed entry, after checking it: its seal ({@link LogSeal}: it came from a replica of this shard)
     * and its content ({@link LogEntryCheck}: encodings, shards, sizes, client signatures). An entry that fails either
     * is applied in no part: it is quarantined with its evidence and this replica leaves the group
     * ({@link ReplicaGroup#quarantine}); so is every later entry, none of which is applied either.
     */
    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        byte[] sealed = entry.getStateMachineLogEntry().getLogData().toByteArray();
        long term = entry.getTerm();
        long index = entry.getIndex();
        if (group.quarantined() != null) {
            return CompletableFuture.completedFuture(Message.EMPTY);
        }
        TxnEngine e = engine;
        byte[] data;
        try {
            data = seal.open(sealed);
            if (e.applies(index, data)) {
                LogEntryCheck.check(data, cfg);
            }
        } catch (MalformedException x) {
            group.quarantine(term, index, sealed, x.getMessage());
            return CompletableFuture.completedFuture(Message.EMPTY);
        }
        CompletableFuture<Void> applied;
        try {
            applied = e.apply(term, index, data);
        } catch (RuntimeException x) {
            applied = CompletableFuture.failedFuture(x);
        }
        return applied.thenApply(v -> {
            advanceApplied(term, index);
            return Message.EMPTY;
        });
    }

    /**
     * A linearizable read's last step (ReplicaGroup#confirmLeadership): Ratis calls it once leadership is confirmed
     * and every entry up to the read index is applied. The read itself is served from the engine afterwards.
     */
    @Override
    public CompletableFuture<Message> query(Message request) {
        return CompletableFuture.completedFuture(Message.EMPTY);
    }

    /** Ratis replays entries the journal already holds after a restart: the applied position only moves forward. */
    private synchronized void advanceApplied(long term, long index) {
        TermIndex now = getLastAppliedTermIndex();
        if (now == null || index > now.getIndex()) {
            updateLastAppliedTermIndex(term, index);
        }
    }

    @Override
    public void notifyTermIndexUpdated(long term, long index) {
        advanceApplied(term, index);
    }

    @Override
    public void notifyLeaderReady() {
        engine.becomeLeader();
    }

    @Override
    public void notifyLeaderChanged(RaftGroupMemberId member, RaftPeerId leader) {
        if (!member.getPeerId().equals(leader)) {
            engine.becomeFollower(group.urlOf(leader));
        }
    }

    @Override
    public long takeSnapshot() throws IOException {
        SnapshotInfo last = snapshots.getLatestSnapshot();
        if (last != null && System.nanoTime() - lastSnapshotNanos < minSnapshotInterval.toNanos()) {
            return last.getIndex();  // too soon: a replica may still be fetching the newest one's files
        }
        TxnEngine e = engine;
        Path dir = snapshots.prepareNew();
        ReplicatedLog.Position pos;
        try {
            pos = e.snapshot(dir).get();
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while taking a snapshot", x);
        } catch (ExecutionException x) {
            throw new IOException("snapshot failed: " + x.getCause(), x.getCause());
        }
        if (pos.index() <= 0) {
            SnapshotStore.deleteTree(dir);
            return RaftLog.INVALID_LOG_INDEX;
        }
        auth.exportClients(dir.resolve("auth"));  // may hold later registrations too: they only ever add
        snapshots.commit(dir, pos);
        lastSnapshotNanos = System.nanoTime();
        LOG.info("shard {} replica {}: snapshot at {}:{}", cfg.shard(), group.selfId(), pos.term(), pos.index());
        return pos.index();
    }

    @Override
    public SnapshotInfo getLatestSnapshot() {
        return snapshots.getLatestSnapshot();
    }

    @Override
    public StateMachineStorage getStateMachineStorage() {
        return snapshots;
    }

    @Override
    public void pause() {
        LifeCycle lc = getLifeCycle();
        if (lc.getCurrentState() == LifeCycle.State.RUNNING) {
            lc.transition(LifeCycle.State.PAUSING);
            lc.transition(LifeCycle.State.PAUSED);
        }
    }

    /** After Ratis installed a snapshot from the leader: the engine reopens from it. */
    @Override
    public void reinitialize() throws IOException {
        LOG.info("shard {} replica {}: installing the leader's snapshot", cfg.shard(), group.selfId());
        getLifeCycle().transition(LifeCycle.State.STARTING);
        snapshots.reload();
        TxnEngine old = engine;
        if (old != null) {
            old.close();
        }
        restore();
        openEngine();
        getLifeCycle().transition(LifeCycle.State.RUNNING);
    }

    @Override
    public void close() {
        TxnEngine e = engine;
        if (e != null) {
            e.close();
        }
        setLastAppliedTermIndex(null);
    }
}
