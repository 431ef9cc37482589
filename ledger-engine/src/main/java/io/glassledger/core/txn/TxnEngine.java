package io.glassledger.core.txn;

import io.glassledger.verify.txn.Transaction;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.Promise;
import io.glassledger.verify.txn.BlockProof;
import io.glassledger.verify.LedgerException;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.core.ledger.ByteBudget;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.core.ledger.ProofTooLargeException;
import io.glassledger.verify.proof.AppendOnlyProof;
import io.glassledger.verify.proof.Digest;
import io.glassledger.core.store.NodeStore;
import io.glassledger.core.store.RocksDbNodeStore;
import io.glassledger.core.txn.TxnException.Reason;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * GlassDB's per-shard transaction manager (§3.2, §3.3.2, §3.3.3, §3.3.5; docs/ARCHITECTURE.md "Transaction engine"):
 * the public face of the engine, which wires its parts and delegates to them. A transaction's path:
 *
 * <ul>
 *   <li>{@link Admission}, on the worker pool (bounded queue): size, shard and signature checks, then the
 *       sequencer's queue.</li>
 *   <li>{@link Sequencer}, one thread: OCC validation in log order ({@link Validator}), records appended to the
 *       {@link EngineLog} (the WAL, {@link LocalLog}, or the group's log, {@link GroupLog}: the same steps either
 *       way), block assignment ({@link BlockSequencer}, held by {@link TxnStateMachine}), 2PC locks and decisions
 *       ({@link CrossShardState}); one group commit per batch, then publication of the writes in the
 *       committed-data map ({@link CommittedData}).</li>
 *   <li>{@link Persister}, one thread: every persist interval it asks the sequencer to seal the open epoch (a WAL
 *       record, so blocks are a function of the log), appends the epoch's blocks to the ledger in one atomic write,
 *       and drops them from the map; {@link ProofBatcher} answers the proofs waiting for them.</li>
 *   <li>{@link Recovery} at open replays the WAL; {@link Leadership} says whether a replica takes requests.</li>
 * </ul>
 * Reads see published writes at once: the map first, then the ledger.
 *
 * <p>Failures ({@link #health()}): a block write that fails in the store is retried with backoff for
 * {@link EngineConfig#storeRetryWindow()} while commits go on being logged and acknowledged; any other failure, or a
 * store that stays broken, stops the engine for good (every request is then refused with UNAVAILABLE) and WAL replay
 * at the next start recovers every acknowledged commit.
 */
public final class TxnEngine implements AutoCloseable {
    /** A value with its version: the block that holds (or will hold) it. value is null for absent or deleted. */
    public record Versioned(Bytes value, long version) {
    }

    /** Counters since start; nanos are totals, so a mean is a ratio of two fields. */
    public record Stats(long committed, long readOnly, Map<Reason, Long> aborted, long walSyncs, long walSyncNanos,
                        long sequencedRequests, long validateNanos, long epochsPersisted, long blocksPersisted,
                        long keysPersisted, long persistNanos, long proofBatches, long proofKeys, long proofNanos,
                        long unpersistedWrites) {
    }

    /** Callbacks for metrics, called on the engine's threads: must be fast and must not throw or block. */
    public interface Observer {
        default void walSynced(long nanos, int requests) {
        }

        default void persisted(List<Integer> keysPerBlock, long nanos) {
        }

        default void proved(int keys, long nanos) {
        }

        /**
         * The engine met a failure: once when the store starts failing ({@code fatal} false, the engine is
         * {@link Health#DEGRADED} and retries), and once when it stops for good ({@code fatal} true).
         */
        default void failed(Throwable cause, boolean fatal) {
        }

        /** The store works again after failing for {@code nanos}; the engine is {@link Health#UP}. */
        default void recovered(long nanos) {
        }
    }

    /** What the engine can do now; health checks map it to readiness and liveness. */
    public enum Health {
        /** Working. */
        UP,
        /**
         * The store fails and the persisting thread retries: commits are still logged and acknowledged (until the
         * unpersisted backlog refuses them as OVERLOADED), but blocks, proofs and the ledger head do not advance.
         */
        DEGRADED,
        /** Stopped for good: every request is refused with UNAVAILABLE until the process restarts. */
        FAILED
    }

    /**
     * What a replicated shard's log carries besides transactions (a client key's registration), applied in log
     * order on every replica, at start again from the journal, and so idempotent. Returns null when the change
     * took effect (or had before), else why not; the answer must be the same on every replica. Called on the
     * sequencer thread.
     */
    public interface Extension {
        String apply(byte[] payload);
    }

    /**
     * A transaction's state here and, when COMMITTED and its block is known, that block (else 0) with a digest no
     * newer than its commit's: enough for a client that lost a commit's answer to take its promise.
     */
    public record TxStatus(TxState state, long block, Digest served) {
    }

    /** A transaction prepared here and not yet decided, and since when (this process's clock). */
    public record Held(SignedTransaction stx, long sinceNanos) {
    }

    /**
     * How long a 2PC decision is remembered (and carried into new WAL segments) so that participants can ask for
     * it: far longer than any prepare can wait, which the replay window and the participants' timeouts bound.
     */
    public static final long DECISION_RETENTION_MILLIS = TimeUnit.HOURS.toMillis(1);

    private final EngineConfig cfg;
    private final RocksDbNodeStore rocks;
    private final NodeStore store;
    private final Ledger ledger;
    private final EngineLog log;
    private final Lifecycle life = new Lifecycle();
    private final EngineCounters counters = new EngineCounters();
    /** Client requests are bounded by {@link EngineConfig#queueCapacity()}; a replica's log entries never wait. */
    private final LinkedBlockingQueue<Request> queue = new LinkedBlockingQueue<>();
    private final CommittedData data;
    private final CrossShardState crossShard;
    private final TxnStateMachine state;
    private final Leadership leadership;
    private final Persister persister;
    private final Admission admission;
    private final ThreadPoolExecutor workers;
    private final ScheduledExecutorService timer;
    private final ProofBatcher proofs;
    private final Thread sequencerThread;
    private final Thread persisterThread;

    /**
     * Order matters: the ledger and the WAL open first (the WAL's first segment says where the open epoch starts),
     * recovery replays the WAL and persists what the ledger lacks, and only then do the threads start.
     */
    private TxnEngine(EngineConfig cfg, UnaryOperator<NodeStore> storeDecorator, ReplicatedLog rlog,
                      Extension extension) {
        this.cfg = cfg;
        this.rocks = new RocksDbNodeStore(cfg.ledgerDir(), cfg.fsync(), 256L << 20);
        this.store = storeDecorator.apply(rocks);
        this.log = EngineLog.of(cfg, rlog, rocks);
        try {
            this.ledger = Ledger.openOrCreate(store, cfg.treeParams(), log.genesisTimestamp(), cfg.ledgerCacheBytes());
            List<Wal.Segment> segs = log.open();
            long head = ledger.head().block().number();
            long base = segs.isEmpty() ? head + 1 : segs.get(0).epochBase();
            if (base > head + 1) {
                throw new LedgerException("the WAL starts at block " + base + " but the ledger ends at " + head);
            }
            this.data = new CommittedData(ledger);
            this.crossShard = new CrossShardState(cfg.clock());
            Validator validator = new Validator(cfg, data, crossShard);
            this.state = new TxnStateMachine(cfg, ledger, base, data, crossShard, validator, extension, log);
            log.attach(state);
            this.leadership = new Leadership(cfg.shard(), log.leadsFromStart(), queue);
            this.persister = new Persister(cfg, ledger, head, data, counters, life, leadership, queue, this::fail);
            Recovery.replay(segs, head, log, state, persister);
            validator.rebuildSeen(ledger);
            log.startAppending(segs.isEmpty());
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
        state.updatePromisedBound();
        this.workers = new ThreadPoolExecutor(cfg.workers(), cfg.workers(), 0, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(cfg.queueCapacity()), daemon("glassledger-worker-" + cfg.shard()));
        this.timer = Executors.newSingleThreadScheduledExecutor(daemon("glassledger-timer-" + cfg.shard()));
        this.proofs = new ProofBatcher(ledger, workers, timer, persister::persisted,
                (keys, nanos) -> life.observer().proved(keys, nanos));
        persister.onPersisted(proofs::release);
        this.admission = new Admission(cfg, life, leadership, data, persister, counters, workers, queue);
        Sequencer sequencer = new Sequencer(cfg, ledger, state, log, leadership, persister, counters, life, extension,
                queue, this::fail);
        this.sequencerThread = new Thread(sequencer::run, "glassledger-sequencer-" + cfg.shard());
        this.persisterThread = new Thread(persister::run, "glassledger-persister-" + cfg.shard());
        sequencerThread.start();
        persisterThread.start();
    }

    private static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    /** Opens (creating if needed) the shard in {@code cfg.dir()}, recovering from its WAL. */
    public static TxnEngine open(EngineConfig cfg) {
        return new TxnEngine(cfg, UnaryOperator.identity(), null, null);
    }

    /**
     * Opens one replica of a replicated shard: its WAL is an apply journal ({@link #applied()} says how far), the
     * group's log is {@code log}, and {@code extension} applies the log's other changes. It starts as a follower,
     * refusing client requests with {@link Reason#NOT_LEADER} until {@link #becomeLeader()}.
     */
    public static TxnEngine openReplica(EngineConfig cfg, ReplicatedLog log, Extension extension) {
        return openReplica(cfg, log, extension, UnaryOperator.identity());
    }

    /** As {@link #openReplica(EngineConfig, ReplicatedLog, Extension)}, with the store seen through a decorator. */
    public static TxnEngine openReplica(EngineConfig cfg, ReplicatedLog log, Extension extension,
                                        UnaryOperator<NodeStore> storeDecorator) {
        return new TxnEngine(cfg, storeDecorator, Objects.requireNonNull(log), Objects.requireNonNull(extension));
    }

    /**
     * As {@link #open(EngineConfig)}, with the RocksDB store seen through {@code storeDecorator}, which must keep
     * the {@link NodeStore} contract (tests use it to inject storage faults around the real store).
     */
    public static TxnEngine open(EngineConfig cfg, UnaryOperator<NodeStore> storeDecorator) {
        return new TxnEngine(cfg, storeDecorator, null, null);
    }

    // ---------------------------------------------------------------- health and metrics

    /** See {@link Health}. */
    public Health health() {
        return life.health();
    }

    /** Why the engine is not {@link Health#UP}, or null. */
    public Throwable failureCause() {
        return life.failureCause();
    }

    /** Replaces the metrics observer. */
    public void observe(Observer o) {
        life.observe(o);
    }

    /** One past the highest block number promised so far: proofs of blocks below it can be asked for. */
    public long promisedBound() {
        return state.promisedBound();
    }

    /** Requests waiting: in the worker queue (signature checks, proofs) and the sequencer queue. */
    public int queueDepth() {
        return workers.getQueue().size() + queue.size();
    }

    public Stats stats() {
        return counters.stats(proofs, data.unpersistedWrites());
    }

    // ---------------------------------------------------------------- client API

    /** The latest published value of {@code key}: the committed-data map first, then the ledger. */
    public Versioned get(Bytes key) {
        return data.get(key);
    }

    /** One-phase commit of a single-shard transaction. */
    public CompletableFuture<Promise> commit(SignedTransaction stx) {
        return commit(stx, false);
    }

    /**
     * @param persistNow delay 0 (GlassDB §3.3.3): the promise completes only once its block is in the ledger, so a
     *                   proof can be fetched at once
     */
    public CompletableFuture<Promise> commit(SignedTransaction stx, boolean persistNow) {
        CompletableFuture<Promise> f = new CompletableFuture<>();
        admission.submit(stx, f, () -> new Request.Commit(stx, f, persistNow));
        return f;
    }

    /** 2PC phase one: validates, logs and locks; completes when the prepare is durable. */
    public CompletableFuture<Void> prepare(SignedTransaction stx) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        admission.submit(stx, f, () -> new Request.Prepare(stx, f));
        return f;
    }

    /**
     * The transaction's state here. Answered in log order, so a status read after an acknowledged request reflects
     * it. One-phase commits are remembered for the replay window, decisions for the last 100,000 of them.
     */
    public CompletableFuture<TxState> status(Bytes txId) {
        return statusDetail(txId).thenApply(TxStatus::state);
    }

    /** As {@link #status(Bytes)}, with a committed one-phase transaction's block while the replay window lasts. */
    public CompletableFuture<TxStatus> statusDetail(Bytes txId) {
        CompletableFuture<TxStatus> f = new CompletableFuture<>();
        admission.enqueue(new Request.Status(txId, f), f);
        return f;
    }

    /** 2PC phase two for a prepared transaction. Repeating a decision returns the same outcome. */
    public CompletableFuture<Promise> decide(Bytes txId, boolean commit) {
        CompletableFuture<Promise> f = new CompletableFuture<>();
        admission.enqueue(new Request.Decide(txId, commit, f), f);
        return f;
    }

    /**
     * As the primary participant of a 2PC transaction (GlassLedger's durable decision, docs/ARCHITECTURE.md): the
     * decision recorded here, recording ABORTED first if there is none. A transaction still prepared here is
     * aborted; one never seen here gets a durable abort, so that a late prepare of it is refused. UNKNOWN only for a
     * transaction id older than {@link #DECISION_RETENTION_MILLIS}, whose decision may have been forgotten.
     */
    public CompletableFuture<TxState> resolve(Bytes txId) {
        CompletableFuture<TxState> f = new CompletableFuture<>();
        admission.enqueue(new Request.Resolve(txId, f), f);
        return f;
    }

    // ---------------------------------------------------------------- replication

    /** True for a single-replica shard, and for the replica that leads its group and has applied all before. */
    public boolean isLeader() {
        return leadership.leads() && life.failure == null;
    }

    /** The leader's id as this replica knows it (null if unknown, or if this is the leader). */
    public String leaderHint() {
        return leadership.leaderHint();
    }

    /** Elected the group's leader and still persisting the blocks sealed before its term (see {@link #isLeader}). */
    public boolean takingOver() {
        return leadership.takingOver();
    }

    /** Whether this engine is one replica of a replicated shard. */
    public boolean replicated() {
        return log.replicated();
    }

    /** The log position of the last entry this replica applied (0, 0 before any; always 0 for one replica). */
    public ReplicatedLog.Position applied() {
        return log.applied();
    }

    /**
     * Called once, on the sequencer thread, when this leader could not learn whether an entry it proposed committed:
     * its in-memory state may hold writes the group never accepted, so the engine has failed and its owner must
     * reopen the replica from its journal and the group's log.
     */
    public void onLostLeadership(Runnable r) {
        leadership.onLostLeadership(r);
    }

    /**
     * Applies a committed entry of the group's log (called in log order). Entries at or below
     * {@link #applied()} (already in the journal) and the entry this leader is proposing (applied as it was
     * formed) complete at once. Never throws: an entry that cannot be applied fails the engine instead.
     */
    public CompletableFuture<Void> apply(long term, long index, byte[] entry) {
        if (!applies(index, entry)) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> f = new CompletableFuture<>();
        if (life.failure != null) {
            f.completeExceptionally(life.unavailable());
            return f;
        }
        queue.add(new Request.Apply(term, index, entry, f));
        return f;
    }

    /** Whether {@link #apply} applies the entry: not one the journal holds, nor this leader's own in flight. */
    public boolean applies(long index, byte[] entry) {
        return log.applies(index, entry);
    }

    /**
     * This replica leads the group and every entry committed before its term has been handed to {@link #apply}: it
     * takes client requests once those are applied (they are ahead of this in the queue).
     */
    public void becomeLeader() {
        leadership.change(true, null);
    }

    /** Another replica (or none yet) leads the group. */
    public void becomeFollower(String leaderHint) {
        leadership.change(false, leaderHint);
    }

    /**
     * Writes a snapshot of the applied state into {@code dir} (which must not exist): a RocksDB checkpoint of the
     * ledger in {@code dir/ledger} and the journal in {@code dir/wal}; returns the log position it holds.
     */
    public CompletableFuture<ReplicatedLog.Position> snapshot(Path dir) {
        CompletableFuture<ReplicatedLog.Position> f = new CompletableFuture<>();
        if (life.failure != null || life.closing) {
            f.completeExceptionally(new TxnException(Reason.UNAVAILABLE, "shard engine is not running"));
            return f;
        }
        Request.Snapshot q = new Request.Snapshot(dir, f);
        log.requestSnapshot(q);
        queue.add(q);  // whichever the sequencer meets first takes it; the other finds it done
        return f;
    }

    /**
     * A replicated shard's change other than a transaction, through the group's log: completes once a majority
     * holds it and it is applied here, with the {@link Extension}'s answer. Only the leader takes it.
     */
    public CompletableFuture<String> submitExtension(byte[] payload) {
        CompletableFuture<String> f = new CompletableFuture<>();
        if (!log.replicated()) {
            f.completeExceptionally(new IllegalStateException("not a replicated shard"));
            return f;
        }
        admission.enqueue(new Request.Extension(payload.clone(), f), f);
        return f;
    }

    // ---------------------------------------------------------------- persistence and proofs

    /** Completes when block {@code blockNo} is in the ledger. */
    public CompletableFuture<Void> awaitPersisted(long blockNo) {
        return persister.awaitPersisted(blockNo);
    }

    /** Asks the persisting thread to seal and persist now rather than at the end of its interval. */
    public void persistSoon() {
        persister.persistSoon();
    }

    /**
     * A batched proof of {@code keys} in block {@code blockNo} against the latest digest. If the block is promised
     * but not persisted, waits up to {@code maxWait} for it and then answers {@link ProofResult.Pending}; it never
     * answers with a proof of anything but the persisted block. Requests for one block that arrive together are
     * answered from one traversal. No byte bound: see {@link #proveWrites(long, List, Duration, long)}.
     */
    public CompletableFuture<ProofResult> proveWrites(long blockNo, List<Bytes> keys, Duration maxWait) {
        return proveWrites(blockNo, keys, maxWait, new ByteBudget(Long.MAX_VALUE, "a proof"));
    }

    /**
     * As {@link #proveWrites(long, List, Duration)}, charging the answer's claims and proof to {@code budget} while
     * they are collected (see {@link ProofBatcher}). A request whose budget cannot hold its answer completes with
     * {@link ProofTooLargeException}.
     */
    public CompletableFuture<ProofResult> proveWrites(long blockNo, List<Bytes> keys, Duration maxWait,
                                                      ByteBudget budget) {
        if (blockNo < 0 || blockNo >= state.promisedBound()) {
            return CompletableFuture.failedFuture(new TxnException(Reason.INVALID, "block " + blockNo
                    + " was never promised"));
        }
        return proofs.prove(blockNo, keys, maxWait, budget);
    }

    /**
     * A proof of {@code keys} in the state of the latest block, against that very block's digest: one head read
     * serves both, so the answer is never an older state proven against a newer digest (which a client could not
     * tell from a stale read). Charges {@code budget} as {@link #proveWrites(long, List, Duration, ByteBudget)} does.
     * Blocking; runs on the caller's thread.
     */
    public BlockProof proveLatest(List<Bytes> keys, ByteBudget budget) {
        if (keys.isEmpty() || keys.size() > Transaction.MAX_OPS) {
            throw new TxnException(Reason.INVALID, "prove 1.." + Transaction.MAX_OPS + " keys");
        }
        return proofs.proveLatest(new ArrayList<>(new TreeSet<>(keys)), budget);
    }

    /** Proof that the ledger at block {@code from} is a prefix of the ledger at {@code to}. */
    public AppendOnlyProof proveAppendOnly(long from, long to) {
        return ledger.proveAppendOnly(from, to);
    }

    public Digest digest() {
        return ledger.digest();
    }

    public Digest digest(long blockNo) {
        return ledger.digest(blockNo);
    }

    public long persistedBlock() {
        return persister.persisted();
    }

    public int shard() {
        return cfg.shard();
    }

    public Ledger ledger() {
        return ledger;
    }

    /** The signed transactions of a persisted block, in the order they were committed. */
    public List<SignedTransaction> blockTransactions(long blockNo) {
        Bytes rec = ledger.blockTransactions(blockNo);
        return rec == null ? List.of() : SignedTransaction.decodeList(rec);
    }

    /** The client key that signed a transaction prepared here and not yet decided. */
    public Optional<Bytes> preparedBy(Bytes txId) {
        return crossShard.held(txId).map(h -> h.stx().tx().clientKey());
    }

    /** A transaction prepared here and not yet decided, as its client signed it. */
    public Optional<SignedTransaction> prepared(Bytes txId) {
        return crossShard.held(txId).map(Held::stx);
    }

    /** Transactions prepared and not yet decided (restored as such after a restart). */
    public List<Bytes> preparedTransactions() {
        return crossShard.heldIds();
    }

    /** Transactions prepared here and not yet decided, with when they were prepared (or recovered). */
    public List<Held> held() {
        return crossShard.allHeld();
    }

    // ---------------------------------------------------------------- failure and shutdown

    /** Stops the engine for good (first failure wins): waiters and queued requests get UNAVAILABLE. Any thread. */
    private void fail(Throwable t) {
        life.markFailed(t);
        persister.failWaiters(new TxnException(Reason.UNAVAILABLE, "shard engine failed: " + t));
        Request r;
        while ((r = queue.poll()) != null) {
            r.fail(life.unavailable());
        }
    }

    /** Stops the threads without the final persist, as a crash would (the WAL holds what was acknowledged). */
    void crashForTest() {
        life.failure = new IllegalStateException("simulated crash");
        life.closing = true;
        life.stopSequencer = true;
        persister.wake();
        try {
            persisterThread.join();
            sequencerThread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        workers.shutdownNow();
        timer.shutdownNow();
        log.abandon();
        store.close();
    }

    /** Stops accepting requests, persists everything committed, and closes the WAL and the ledger. */
    @Override
    public void close() {
        if (life.closing) {
            return;
        }
        life.closing = true;
        persister.wake();
        try {
            persisterThread.join();
            life.stopSequencer = true;
            sequencerThread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        workers.shutdown();
        timer.shutdownNow();
        try {
            workers.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        log.close();
        store.close();
    }
}
