package io.glassledger.core.txn;

import io.glassledger.verify.txn.Transaction;
import io.glassledger.verify.txn.BlockProof;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.Promise;
import io.glassledger.verify.LedgerException;
import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.block.Block;
import io.glassledger.core.ledger.ByteBudget;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.core.ledger.ProofTooLargeException;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.verify.proof.AppendOnlyProof;
import io.glassledger.verify.proof.Digest;
import io.glassledger.core.store.NodeStore;
import io.glassledger.core.store.RocksDbNodeStore;
import io.glassledger.core.store.StoreException;
import io.glassledger.core.txn.TxnException.Reason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.UnaryOperator;

/**
 * GlassDB's per-shard transaction manager (§3.2, §3.3.2, §3.3.3, §3.3.5; docs/ARCHITECTURE.md "Transaction engine").
 *
 * <ul>
 *   <li>Worker pool (bounded queue): size and signature checks, proofs.</li>
 *   <li>Sequencer thread: OCC validation in log order, WAL append with group commit (one fsync per batch), block
 *       assignment ({@link BlockSequencer}), then publication of the writes in the committed-data map.</li>
 *   <li>Persisting thread: every persist interval it asks the sequencer to seal the open epoch (a WAL record, so
 *       blocks are a function of the log), appends the epoch's blocks to the ledger in one atomic write, and drops
 *       them from the map.</li>
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

    /**
     * Callbacks for metrics, called on the engine's threads: must be fast and must not throw or block.
     */
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

    /** See {@link Health}. */
    public Health health() {
        return failure != null ? Health.FAILED : storeFailure != null ? Health.DEGRADED : Health.UP;
    }

    /** Why the engine is not {@link Health#UP}, or null. */
    public Throwable failureCause() {
        Throwable f = failure;
        return f != null ? f : storeFailure;
    }

    private volatile Observer observer = new Observer() { };

    /** Replaces the metrics observer. */
    public void observe(Observer o) {
        this.observer = o == null ? new Observer() { } : o;
    }

    /** One past the highest block number promised so far: proofs of blocks below it can be asked for. */
    public long promisedBound() {
        return promisedBound;
    }

    /** Requests waiting: in the worker queue (signature checks, proofs) and the sequencer queue. */
    public int queueDepth() {
        return workers.getQueue().size() + queue.size();
    }

    private static final class Ver {
        final long blockNo;
        final Bytes value;
        volatile boolean visible;

        Ver(long blockNo, Bytes value, boolean visible) {
            this.blockNo = blockNo;
            this.value = value;
            this.visible = visible;
        }
    }

    private sealed interface Request permits CommitReq, PrepareReq, DecideReq, SealReq, TruncateReq, StatusReq,
            ResolveReq, ApplyReq, RoleReq, SnapshotReq, ExtensionReq {
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

    private record ExtensionReq(byte[] payload, CompletableFuture<String> done) implements Request {
    }

    /** A committed log entry for a replica to apply (replicated shards). */
    private record ApplyReq(long term, long index, byte[] entry, CompletableFuture<Void> done) implements Request {
    }

    /**
     * This replica became the group's leader (all earlier entries applied), or stopped being it; {@code generation}
     * orders role changes, so one put back to wait for persistence never undoes a later one.
     */
    private record RoleReq(boolean leader, String leaderHint, long generation) implements Request {
    }

    /** A snapshot of the applied state into {@code dir}. */
    private record SnapshotReq(Path dir, CompletableFuture<ReplicatedLog.Position> done) implements Request {
    }

    private record StatusReq(Bytes txId, CompletableFuture<TxStatus> done) implements Request {
    }

    /**
     * A transaction's state here and, when COMMITTED and its block is known, that block (else 0) with a digest no
     * newer than its commit's: enough for a client that lost a commit's answer to take its promise.
     */
    public record TxStatus(TxState state, long block, Digest served) {
    }

    private record ResolveReq(Bytes txId, CompletableFuture<TxState> done) implements Request {
    }

    /** A transaction prepared here and not yet decided, and since when (this process's clock). */
    public record Held(SignedTransaction stx, long sinceNanos) {
    }

    /**
     * How long a 2PC decision is remembered (and carried into new WAL segments) so that participants can ask for
     * it: far longer than any prepare can wait, which the replay window and the participants' timeouts bound.
     */
    public static final long DECISION_RETENTION_MILLIS = TimeUnit.HOURS.toMillis(1);
    private static final int MAX_DECISIONS = 1_000_000;

    private record CommitReq(SignedTransaction stx, CompletableFuture<Promise> done, boolean persistNow)
            implements Request {
    }

    private record PrepareReq(SignedTransaction stx, CompletableFuture<Void> done) implements Request {
    }

    private record DecideReq(Bytes txId, boolean commit, CompletableFuture<Promise> done) implements Request {
    }

    private record SealReq(CompletableFuture<BlockSequencer.Epoch> done) implements Request {
    }

    private record TruncateReq(long persisted) implements Request {
    }

    private final EngineConfig cfg;
    private final RocksDbNodeStore rocks;
    private final NodeStore store;
    private final Ledger ledger;
    private final Wal wal;
    private final ConcurrentHashMap<Bytes, ArrayList<Ver>> committed = new ConcurrentHashMap<>();
    /** Client requests are bounded by {@link EngineConfig#queueCapacity()}; a replica's log entries never wait. */
    private final LinkedBlockingQueue<Request> queue = new LinkedBlockingQueue<>();
    private final ThreadPoolExecutor workers;
    private final ScheduledExecutorService timer;
    private final ProofBatcher proofs;
    private final Thread sequencerThread;
    private final Thread persisterThread;
    private volatile boolean closing;
    private volatile boolean stopSequencer;
    private volatile Throwable failure;
    private volatile StoreException storeFailure;  // set while a failing block write is retried

    // Sequencer state: only the sequencer thread (or recovery, before it starts) touches these.
    private final BlockSequencer sequencer;
    private final Map<Bytes, SignedTransaction> prepared = new LinkedHashMap<>();
    private final ConcurrentHashMap<Bytes, Held> held = new ConcurrentHashMap<>();
    private final Map<Bytes, Integer> readLocks = new HashMap<>();
    private final Map<Bytes, Bytes> writeLocks = new HashMap<>();
    /** Transaction ids admitted within the replay window, with the block of a one-phase commit (else 0). */
    private final Map<Bytes, Long> seen = new HashMap<>();
    private final LinkedHashMap<Bytes, Promise> decided = new LinkedHashMap<>(1024, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Bytes, Promise> e) {
            return size() > MAX_DECISIONS || Transaction.idMillis(e.getKey())
                    < cfg.clock().getAsLong() - DECISION_RETENTION_MILLIS;
        }
    };
    private long lastSealTimestamp;
    private long lastSeenPrune;
    private volatile long promisedBound;

    // Replication (null rlog: a single-replica shard, whose WAL is its durable log). See ReplicatedLog.
    private final ReplicatedLog rlog;
    private final long incarnation = new java.security.SecureRandom().nextLong();
    private long entrySeq;
    private volatile long inFlightSeq = -1;
    private final List<Wal.Record> pending = new ArrayList<>();
    private volatile boolean leader;
    private volatile String leaderHint;
    private final java.util.concurrent.atomic.AtomicLong roleGeneration = new java.util.concurrent.atomic.AtomicLong();
    /** Elected, persisting the blocks sealed before its term before it takes requests. */
    private volatile boolean takingOver;
    private volatile long appliedTerm;
    private volatile long appliedIndex;
    private volatile Runnable onLostLeadership = () -> { };
    private final Extension extension;
    /** Sealed epochs for the persisting thread, in block order (a leader's seals and a follower's alike). */
    private final LinkedBlockingQueue<BlockSequencer.Epoch> sealedEpochs = new LinkedBlockingQueue<>();
    /** Snapshots asked for, also taken while the sequencer waits for an entry to commit. */
    private final java.util.concurrent.ConcurrentLinkedQueue<SnapshotReq> snapshotRequests =
            new java.util.concurrent.ConcurrentLinkedQueue<>();

    // Persistence progress.
    private final AtomicLong persisted = new AtomicLong();
    private final AtomicLong unpersistedWrites = new AtomicLong();
    private final TreeMap<Long, List<CompletableFuture<Void>>> persistWaiters = new TreeMap<>();
    private final Object persistSignal = new Object();
    private boolean persistRequested;


    private final LongAdder statCommitted = new LongAdder();
    private final LongAdder statReadOnly = new LongAdder();
    private final Map<Reason, LongAdder> statAborted = new EnumMap<>(Reason.class);
    private final LongAdder statWalSyncs = new LongAdder();
    private final LongAdder statWalSyncNanos = new LongAdder();
    private final LongAdder statSequenced = new LongAdder();
    private final LongAdder statValidateNanos = new LongAdder();
    private final LongAdder statEpochs = new LongAdder();
    private final LongAdder statBlocks = new LongAdder();
    private final LongAdder statKeys = new LongAdder();
    private final LongAdder statPersistNanos = new LongAdder();


    private TxnEngine(EngineConfig cfg, UnaryOperator<NodeStore> storeDecorator, ReplicatedLog rlog,
                      Extension extension) {
        this.cfg = cfg;
        this.rlog = rlog;
        this.extension = extension;
        this.leader = rlog == null;
        for (Reason r : Reason.values()) {
            statAborted.put(r, new LongAdder());
        }
        this.rocks = new RocksDbNodeStore(cfg.dir().resolve("ledger"), cfg.fsync(), 256L << 20);
        this.store = storeDecorator.apply(rocks);
        try {
            // Replicas of a group must form byte-identical ledgers, so their genesis blocks share timestamp 0.
            this.ledger = Ledger.openOrCreate(store, cfg.treeParams(), rlog == null ? cfg.clock().getAsLong() : 0,
                    cfg.ledgerCacheBytes());
            // A replica's WAL is its apply journal, not its durable log: the group's log is (see apply()).
            this.wal = Wal.open(cfg.dir().resolve("wal"), cfg.fsync() && rlog == null);
            long head = ledger.head().block().number();
            List<Wal.Segment> segs = wal.segments();
            long base = segs.isEmpty() ? head + 1 : segs.get(0).epochBase();
            if (base > head + 1) {
                throw new LedgerException("the WAL starts at block " + base + " but the ledger ends at " + head);
            }
            this.sequencer = new BlockSequencer(base, cfg.batching());
            this.lastSealTimestamp = ledger.head().block().timestamp();
            this.persisted.set(head);
            recover(segs);
            rebuildSeen();
            if (segs.isEmpty()) {
                wal.startSegment(sequencer.epochBase(), List.of(), List.of(), appliedRecord());
            } else {
                wal.reopenLast();
            }
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
        this.promisedBound = sequencer.nextBlockBound();
        this.workers = new ThreadPoolExecutor(cfg.workers(), cfg.workers(), 0, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(cfg.queueCapacity()), daemon("glassledger-worker-" + cfg.shard()));
        this.timer = Executors.newSingleThreadScheduledExecutor(daemon("glassledger-timer-" + cfg.shard()));
        this.proofs = new ProofBatcher(ledger, workers, timer, persisted::get, (keys, nanos) -> observer.proved(keys,
                nanos));
        this.sequencerThread = new Thread(this::sequencerLoop, "glassledger-sequencer-" + cfg.shard());
        this.persisterThread = new Thread(this::persisterLoop, "glassledger-persister-" + cfg.shard());
        sequencerThread.start();
        persisterThread.start();
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
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
        return new TxnEngine(cfg, storeDecorator, java.util.Objects.requireNonNull(log),
                java.util.Objects.requireNonNull(extension));
    }

    /**
     * As {@link #open(EngineConfig)}, with the RocksDB store seen through {@code storeDecorator}, which must keep
     * the {@link NodeStore} contract (tests use it to inject storage faults around the real store).
     */
    public static TxnEngine open(EngineConfig cfg, UnaryOperator<NodeStore> storeDecorator) {
        return new TxnEngine(cfg, storeDecorator, null, null);
    }

    // ---------------------------------------------------------------- recovery

    private void recover(List<Wal.Segment> segs) {
        long head = ledger.head().block().number();
        List<BlockSequencer.Epoch> sealed = new ArrayList<>();
        List<Map.Entry<SignedTransaction, Long>> openTxs = new ArrayList<>();
        // A replica's journal may end in part of an entry (written without fsync, cut by a crash): replay stops at its
        // last APPLIED record, and the group's log supplies the rest.
        Wal.Segment lastSeg = segs.isEmpty() ? null : segs.get(segs.size() - 1);
        int stopAt = Integer.MAX_VALUE;
        if (rlog != null && lastSeg != null) {
            stopAt = 0;
            for (int i = 0; i < lastSeg.records().size(); i++) {
                if (lastSeg.records().get(i).type() == Wal.APPLIED) {
                    stopAt = i + 1;
                }
            }
        }
        for (Wal.Segment s : segs) {
            if (s.epochBase() != sequencer.epochBase() || !sequencer.isEmpty()) {
                throw new LedgerException("WAL segment " + s.path() + " starts at block " + s.epochBase()
                        + ", but replay is at " + sequencer.epochBase());
            }
            List<Wal.Record> records = s == lastSeg ? s.records().subList(0, Math.min(stopAt, s.records().size()))
                    : s.records();
            for (Wal.Record r : records) {
                applyRecord(r, false, openTxs, sealed);
            }
        }
        for (BlockSequencer.Epoch e : sealed) {
            if (e.lastBlock() <= head) {
                continue;
            }
            if (e.firstBlock() <= head) {
                throw new LedgerException("ledger holds part of epoch " + e.firstBlock() + ".." + e.lastBlock());
            }
            persist(e);
        }
        unpersistedWrites.set(0);  // replayed epochs were never staged, so persisting them drove the count below 0
        // Decided transactions of the open epoch: back into the map, visible (they were acknowledged or may be).
        for (Map.Entry<SignedTransaction, Long> t : openTxs) {
            stage(t.getKey(), t.getValue(), true);
        }
    }

    /**
     * Applies one logged record to the in-memory state: in WAL replay at start ({@code live} false: the open epoch's
     * transactions are collected in {@code openTxs} and staged at the end) and when a replica applies the group's
     * log ({@code live} true: staged at once, visible). Sealed epochs go to {@code sealed}, in order. The leader
     * reaches the same state by processing requests; this is the one way a log turns into state.
     */
    private void applyRecord(Wal.Record r, boolean live, List<Map.Entry<SignedTransaction, Long>> openTxs,
                             List<BlockSequencer.Epoch> sealed) {
        switch (r.type()) {
            case Wal.COMMIT -> {
                SignedTransaction stx = SignedTransaction.decode(r.payload());
                long b = sequencer.assign(stx);
                seen.put(stx.txId(), b);
                placeCommitted(stx, b, live, openTxs);
            }
            case Wal.PREPARE -> {
                SignedTransaction stx = SignedTransaction.decode(r.payload());
                if (!prepared.containsKey(stx.txId())) {
                    remember(stx.txId());
                    lock(stx);
                }
            }
            case Wal.DECIDE_COMMIT, Wal.DECIDE_ABORT -> {
                Bytes id = Bytes.of(r.payload());
                SignedTransaction stx = prepared.get(id);
                if (stx == null) {
                    throw new LedgerException("the log decides unknown transaction " + id.hex());
                }
                unlock(stx);
                if (r.type() == Wal.DECIDE_COMMIT) {
                    long b = 0;
                    if (!stx.tx().isReadOnly()) {
                        b = sequencer.assign(stx);
                        placeCommitted(stx, b, live, openTxs);
                    }
                    decided.put(id, new Promise(id, cfg.shard(), b, ledger.digest()));
                } else {
                    decided.put(id, new Promise(id, cfg.shard(), -1, ledger.digest()));
                }
            }
            case Wal.OUTCOME -> {
                ByteReader in = new ByteReader(r.payload());
                Bytes id = in.bytes(Transaction.TX_ID_BYTES);
                long b = in.u64();
                if (!prepared.containsKey(id)) {
                    decided.put(id, new Promise(id, cfg.shard(), b, ledger.digest()));
                }
            }
            case Wal.SEAL -> {
                long ts = new ByteReader(r.payload()).u64();
                BlockSequencer.Epoch e = sequencer.seal(ts);
                lastSealTimestamp = ts;
                openTxs.clear();
                if (e == null) {
                    throw new LedgerException("the log seals an empty epoch");
                }
                sealed.add(e);
            }
            case Wal.EXTENSION -> {
                if (extension != null) {
                    extension.apply(r.payload());
                }
            }
            case Wal.APPLIED -> {
                ByteReader in = new ByteReader(r.payload());
                appliedTerm = in.u64();
                appliedIndex = in.u64();
            }
            default -> throw new LedgerException("unknown log record type " + r.type());
        }
    }

    private void placeCommitted(SignedTransaction stx, long block, boolean live,
                                List<Map.Entry<SignedTransaction, Long>> openTxs) {
        if (live) {
            stage(stx, block, true);
        } else {
            openTxs.add(Map.entry(stx, block));
        }
    }

    /** Transaction ids seen within the replay window: those of recent blocks (the WAL's were added in replay). */
    private void rebuildSeen() {
        long floor = cfg.clock().getAsLong() - 2 * cfg.replayWindow().toMillis();
        for (long n = ledger.head().block().number(); n > 0; n--) {
            Block b = ledger.block(n);
            if (b.timestamp() < floor) {
                break;
            }
            long block = n;
            b.txIds().stream().filter(id -> id.length() == Transaction.TX_ID_BYTES).forEach(id -> seen.put(id, block));
        }
    }

    private void remember(Bytes txId) {
        seen.putIfAbsent(txId, 0L);
    }

    // ---------------------------------------------------------------- client API

    /** The latest published value of {@code key}: the committed-data map first, then the ledger. */
    public Versioned get(Bytes key) {
        ArrayList<Ver> chain = committed.get(key);
        if (chain != null) {
            synchronized (chain) {
                for (int i = chain.size() - 1; i >= 0; i--) {
                    Ver v = chain.get(i);
                    if (v.visible) {
                        return new Versioned(v.value, v.blockNo);
                    }
                }
            }
        }
        Entry e = ledger.latestEntry(key);
        return e == null ? new Versioned(null, 0) : new Versioned(e.isTombstone() ? null : e.value(), e.version());
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
        submit(stx, f, () -> new CommitReq(stx, f, persistNow));
        return f;
    }

    /** 2PC phase one: validates, logs and locks; completes when the prepare is durable. */
    public CompletableFuture<Void> prepare(SignedTransaction stx) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        submit(stx, f, () -> new PrepareReq(stx, f));
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
        enqueue(new StatusReq(txId, f), f);
        return f;
    }

    /**
     * The served digest is that of block {@code block − 1} (or the persisted head, if lower): no later than the state
     * the transaction was validated against, so a client checks its reads where they were current. The digest at the
     * time of the question would be too new: a read overwritten after the commit would look stale.
     */
    private TxStatus statusDetailOf(Bytes txId) {
        TxState s = statusOf(txId);
        long block = 0;
        if (s == TxState.COMMITTED) {
            Promise p = decided.get(txId);
            Long b = p != null ? Long.valueOf(p.blockNo()) : seen.get(txId);
            block = b == null ? 0 : b;
        }
        return new TxStatus(s, block, block > 0 ? servedFor(block) : ledger.digest());
    }

    /**
     * The digest a committed transaction's promise is served at when it is handed out again (its status, a repeated
     * 2PC decision): the state just before its block, or the persisted head if that is older. Its reads were current
     * there (they were locked or validated up to its block), and it is at or after any digest a client trusted
     * before sending the transaction (a leader persists what was sealed before its term before it serves). The
     * digest recorded when a replica applied the decision would not be: a follower's head lags the leader's.
     */
    private Digest servedFor(long block) {
        return ledger.digest(Math.min(block - 1, persisted.get()));
    }

    private TxState statusOf(Bytes txId) {
        if (prepared.containsKey(txId)) {
            return TxState.PREPARED;
        }
        Promise p = decided.get(txId);
        if (p != null) {
            return p.blockNo() >= 0 ? TxState.COMMITTED : TxState.ABORTED;
        }
        return seen.containsKey(txId) ? TxState.COMMITTED : TxState.UNKNOWN;
    }

    /** 2PC phase two for a prepared transaction. Repeating a decision returns the same outcome. */
    public CompletableFuture<Promise> decide(Bytes txId, boolean commit) {
        CompletableFuture<Promise> f = new CompletableFuture<>();
        enqueue(new DecideReq(txId, commit, f), f);
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
        enqueue(new ResolveReq(txId, f), f);
        return f;
    }

    private void submit(SignedTransaction stx, CompletableFuture<?> f, java.util.function.Supplier<Request> req) {
        if (!accepting(f)) {
            return;
        }
        long backlog = unpersistedWrites.get();
        if (backlog >= cfg.maxUnpersistedWrites()) {
            persistSoon();
            abort(f, new TxnException(Reason.OVERLOADED, "shard " + cfg.shard() + " has " + backlog
                    + " committed writes waiting to be persisted (limit " + cfg.maxUnpersistedWrites() + ")"));
            return;
        }
        try {
            workers.execute(() -> {
                try {
                    check(stx);
                    enqueue(req.get(), f);
                } catch (TxnException e) {
                    abort(f, e);
                } catch (RuntimeException e) {
                    abort(f, new TxnException(Reason.INVALID, e.getMessage()));
                }
            });
        } catch (RejectedExecutionException e) {
            abort(f, new TxnException(Reason.OVERLOADED, "shard " + cfg.shard() + " request queue is full"));
        }
    }

    private boolean accepting(CompletableFuture<?> f) {
        if (!leader && failure == null && !closing) {
            abort(f, notLeader());
            return false;
        }
        if (failure instanceof LostLeadership) {
            abort(f, notLeader());  // reopening as a follower
            return false;
        }
        if (failure != null) {
            abort(f, new TxnException(Reason.UNAVAILABLE, "shard engine failed: " + failure));
            return false;
        }
        if (closing) {
            abort(f, new TxnException(Reason.UNAVAILABLE, "shard engine is closing"));
            return false;
        }
        return true;
    }

    private void check(SignedTransaction stx) {
        Transaction tx = stx.tx();
        if (stx.size() > cfg.maxTxBytes()) {
            throw new TxnException(Reason.INVALID, "transaction of " + stx.size() + " bytes exceeds the limit of "
                    + cfg.maxTxBytes());
        }
        if (tx.shard() != cfg.shard()) {
            throw new TxnException(Reason.WRONG_SHARD, "transaction is for shard " + tx.shard() + ", this is shard "
                    + cfg.shard());
        }
        // A read older than what is published fails validation anyway; finding it before the signature check saves
        // the check. Only published versions count here: a version still waiting for its group's fsync could not
        // have been read, and refusing at once would let the client spin through retries until the fsync ends
        // (measured: abort rate 0.04 → 0.5). The sequencer validates against every version.
        for (Transaction.Read rd : tx.reads()) {
            long current = get(rd.key()).version();
            if (current != rd.version()) {
                throw new TxnException(Reason.CONFLICT, "read version " + rd.version() + " of a key is stale (now "
                        + current + ")");
            }
        }
        if (cfg.verifySignatures() && !stx.signatureValid()) {
            throw new TxnException(Reason.BAD_SIGNATURE, "signature does not verify against the client key");
        }
    }

    private void enqueue(Request r, CompletableFuture<?> f) {
        if (!accepting(f)) {
            return;
        }
        if (queue.size() >= cfg.queueCapacity() || !queue.offer(r)) {
            abort(f, new TxnException(Reason.OVERLOADED, "shard " + cfg.shard() + " commit queue is full"));
        }
    }

    private void abort(CompletableFuture<?> f, TxnException e) {
        statAborted.get(e.reason()).increment();
        f.completeExceptionally(e);
    }

    // ---------------------------------------------------------------- replication

    private TxnException notLeader() {
        String hint = leaderHint;
        if (takingOver) {
            return new TxnException(Reason.NOT_LEADER, "this replica of shard " + cfg.shard() + " was elected its "
                    + "leader and takes requests once it has persisted the blocks sealed before its term", null);
        }
        return new TxnException(Reason.NOT_LEADER, "this replica of shard " + cfg.shard() + " is not its leader"
                + (hint != null ? "; the leader is " + hint : "; no leader is known yet"), hint);
    }

    /** True for a single-replica shard, and for the replica that leads its group and has applied all before. */
    public boolean isLeader() {
        return leader && failure == null;
    }

    /** The leader's id as this replica knows it (null if unknown, or if this is the leader). */
    public String leaderHint() {
        return leaderHint;
    }

    /**
     * A role change, on the sequencer thread. A new leader takes requests only once it has persisted every block
     * sealed before its term (docs/ARCHITECTURE.md "No false accusation"): a predecessor signed only blocks whose seal
     * the group committed, and this replica has applied every committed entry before this request, so afterwards its
     * signed head is at least any head a client holds, and it never serves a digest, a promise or a proof below one.
     * Until then it refuses requests as a replica that is not the leader (with no leader to name), and persists.
     */
    private void takeRole(RoleReq role) {
        if (role.generation() != roleGeneration.get()) {
            return;  // a later role change is behind this one in the queue
        }
        if (!role.leader()) {
            leader = false;
            takingOver = false;
            leaderHint = role.leaderHint();
            return;
        }
        long sealedThrough = sequencer.epochBase() - 1;
        if (persisted.get() >= sealedThrough) {
            takingOver = false;
            leaderHint = null;
            leader = true;
            return;
        }
        takingOver = true;
        leader = false;
        leaderHint = null;
        awaitPersisted(sealedThrough).whenComplete((x, err) -> {
            if (err == null) {
                queue.add(role);  // looked at again in order; a later role change makes it a no-op
            }
        });
        persistSoon();
    }

    /** Elected the group's leader and still persisting the blocks sealed before its term (see {@link #isLeader}). */
    public boolean takingOver() {
        return takingOver;
    }

    /** Whether this engine is one replica of a replicated shard. */
    public boolean replicated() {
        return rlog != null;
    }

    /** The log position of the last entry this replica applied (0, 0 before any; always 0 for one replica). */
    public ReplicatedLog.Position applied() {
        return new ReplicatedLog.Position(appliedTerm, appliedIndex);
    }

    /**
     * Called once, on the sequencer thread, when this leader could not learn whether an entry it proposed committed:
     * its in-memory state may hold writes the group never accepted, so the engine has failed and its owner must
     * reopen the replica from its journal and the group's log.
     */
    public void onLostLeadership(Runnable r) {
        this.onLostLeadership = r;
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
        if (failure != null) {
            f.completeExceptionally(new TxnException(Reason.UNAVAILABLE, "shard engine failed: " + failure));
            return f;
        }
        queue.add(new ApplyReq(term, index, entry, f));
        return f;
    }

    /** Whether {@link #apply} applies the entry: not one the journal holds, nor this leader's own in flight. */
    public boolean applies(long index, byte[] entry) {
        long[] origin = ReplicatedLog.origin(entry);
        return index > appliedIndex && (origin == null || origin[0] != incarnation || origin[1] != inFlightSeq);
    }

    /**
     * This replica leads the group and every entry committed before its term has been handed to {@link #apply}: it
     * takes client requests once those are applied (they are ahead of this in the queue).
     */
    public void becomeLeader() {
        queue.add(new RoleReq(true, null, roleGeneration.incrementAndGet()));
    }

    /** Another replica (or none yet) leads the group. */
    public void becomeFollower(String leaderHint) {
        queue.add(new RoleReq(false, leaderHint, roleGeneration.incrementAndGet()));
    }

    /**
     * Writes a snapshot of the applied state into {@code dir} (which must not exist): a RocksDB checkpoint of the
     * ledger in {@code dir/ledger} and the journal in {@code dir/wal}; returns the log position it holds.
     */
    public CompletableFuture<ReplicatedLog.Position> snapshot(Path dir) {
        CompletableFuture<ReplicatedLog.Position> f = new CompletableFuture<>();
        if (failure != null || closing) {
            f.completeExceptionally(new TxnException(Reason.UNAVAILABLE, "shard engine is not running"));
            return f;
        }
        SnapshotReq q = new SnapshotReq(dir, f);
        snapshotRequests.add(q);
        queue.add(q);  // whichever the sequencer meets first takes it; the other finds it done
        return f;
    }

    /**
     * A replicated shard's change other than a transaction, through the group's log: completes once a majority
     * holds it and it is applied here, with the {@link Extension}'s answer. Only the leader takes it.
     */
    public CompletableFuture<String> submitExtension(byte[] payload) {
        CompletableFuture<String> f = new CompletableFuture<>();
        if (rlog == null) {
            f.completeExceptionally(new IllegalStateException("not a replicated shard"));
            return f;
        }
        enqueue(new ExtensionReq(payload.clone(), f), f);
        return f;
    }

    private byte[] appliedRecord() {
        return rlog == null ? null : new ByteWriter(16).u64(appliedTerm).u64(appliedIndex).toByteArray();
    }

    private void journal(int type, byte[] payload) {
        if (rlog == null) {
            wal.append(type, payload);
        } else {
            pending.add(new Wal.Record(type, payload));
        }
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
            } catch (java.util.concurrent.TimeoutException e) {
                for (SnapshotReq q; (q = snapshotRequests.poll()) != null; ) {
                    processSnapshot(q);
                }
            } catch (java.util.concurrent.ExecutionException e) {
                Throwable c = e.getCause();
                if (c instanceof java.util.concurrent.CompletionException && c.getCause() != null) {
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

    private void journalApplied(List<Wal.Record> records, ReplicatedLog.Position pos) {
        for (Wal.Record r : records) {
            wal.append(r.type(), r.payload());
        }
        appliedTerm = pos.term();
        appliedIndex = pos.index();
        wal.append(Wal.APPLIED, appliedRecord());
        wal.flush();
    }

    private void processApply(ApplyReq a) {
        if (a.index() <= appliedIndex) {
            a.done().complete(null);
            return;
        }
        ReplicatedLog.Entry e = ReplicatedLog.decode(a.entry());
        List<BlockSequencer.Epoch> sealed = new ArrayList<>(1);
        for (Wal.Record r : e.records()) {
            applyRecord(r, true, new ArrayList<>(0), sealed);
        }
        pruneSeen(cfg.clock().getAsLong());
        promisedBound = sequencer.nextBlockBound();
        journalApplied(e.records(), new ReplicatedLog.Position(a.term(), a.index()));
        if (!sealed.isEmpty()) {
            for (BlockSequencer.Epoch ep : sealed) {
                if (ep.lastBlock() > persisted.get()) {
                    sealedEpochs.add(ep);
                }
            }
            rollIfFull();
            persistSoon();
        }
        a.done().complete(null);
    }

    private void processSnapshot(SnapshotReq q) {
        snapshotRequests.remove(q);
        if (q.done().isDone()) {
            return;
        }
        try {
            wal.force();
            java.nio.file.Files.createDirectories(q.dir().resolve("wal"));
            List<Path> files;
            try (var st = java.nio.file.Files.list(wal.dir())) {
                files = st.filter(f -> f.getFileName().toString().startsWith("wal-")).sorted().toList();
            }
            for (Path f : files) {
                java.nio.file.Files.copy(f, q.dir().resolve("wal").resolve(f.getFileName()));
            }
            rocks.checkpoint(q.dir().resolve("ledger"));
            q.done().complete(applied());
        } catch (java.io.IOException | RuntimeException x) {
            q.done().completeExceptionally(x);
        }
    }

    /** The leader could not confirm an entry: thrown out of the sequencer's batch. */
    private static final class LostLeadership extends Exception {
        LostLeadership(ReplicatedLog.NotCommittedException cause) {
            super(cause.getMessage(), cause);
        }

        String leader() {
            return ((ReplicatedLog.NotCommittedException) getCause()).leader();
        }
    }

    // ---------------------------------------------------------------- sequencer

    private void sequencerLoop() {
        List<Request> batch = new ArrayList<>();
        List<Runnable> after = new ArrayList<>();
        while (true) {
            try {
                Request first = queue.poll(50, TimeUnit.MILLISECONDS);
                if (first == null) {
                    if (stopSequencer && queue.isEmpty()) {
                        return;
                    }
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, 8191);
                long t0 = System.nanoTime();
                for (Request r : batch) {
                    statSequenced.increment();
                    process(r, after);
                    if (rlog != null && !pending.isEmpty() && pending.get(pending.size() - 1).type() == Wal.SEAL) {
                        replicatePending();  // a seal ends its entry, so that a snapshot falls between epochs
                    }
                }
                long t1 = System.nanoTime();
                boolean synced = rlog == null ? wal.flush() : replicatePending();
                long t2 = System.nanoTime();
                statValidateNanos.add(t1 - t0);
                if (synced) {
                    statWalSyncs.increment();
                    statWalSyncNanos.add(t2 - t1);
                    observer.walSynced(t2 - t1, batch.size());
                }
                for (Runnable a : after) {
                    a.run();
                }
            } catch (InterruptedException e) {
                return;
            } catch (LostLeadership l) {
                // The entry may yet commit (or not): every request of the batch has an unknown outcome, and this
                // engine's state may hold what the group never accepted. Its owner reopens the replica.
                leader = false;
                leaderHint = l.leader();
                pending.clear();
                TxnException unknown = new TxnException(Reason.OUTCOME_UNKNOWN, "shard " + cfg.shard()
                        + " lost its leadership before the group confirmed this request; ask the transaction's status"
                        + " at the new leader", l.leader());
                for (Request r : batch) {
                    failRequest(r, unknown);
                }
                fail(l);
                notifyObserver(o -> onLostLeadership.run());
                return;
            } catch (Throwable t) {
                fail(t);
                for (Request r : batch) {
                    if (rlog != null) {
                        // The batch's entry may be in the group's log already: its requests' outcomes are unknown.
                        failRequest(r, new TxnException(Reason.OUTCOME_UNKNOWN, "this replica of shard "
                                + cfg.shard() + " failed: " + t + "; ask the transaction's status at the leader",
                                leaderHint));
                    } else {
                        failRequest(r);
                    }
                }
                return;
            } finally {
                batch.clear();
                after.clear();
            }
        }
    }

    private void failRequest(Request r) {
        failRequest(r, new TxnException(Reason.UNAVAILABLE, "shard engine failed: " + failure));
    }

    private void failRequest(Request r, TxnException e) {
        if (r instanceof CommitReq c) {
            c.done().completeExceptionally(e);
        } else if (r instanceof PrepareReq p) {
            p.done().completeExceptionally(e);
        } else if (r instanceof DecideReq d) {
            d.done().completeExceptionally(e);
        } else if (r instanceof SealReq s) {
            s.done().completeExceptionally(e);
        } else if (r instanceof StatusReq q) {
            q.done().completeExceptionally(e);
        } else if (r instanceof ResolveReq q) {
            q.done().completeExceptionally(e);
        } else if (r instanceof ApplyReq a) {
            a.done().completeExceptionally(e);
        } else if (r instanceof SnapshotReq q) {
            q.done().completeExceptionally(e);
        } else if (r instanceof ExtensionReq x) {
            x.done().completeExceptionally(e);
        }
    }

    private void process(Request r, List<Runnable> after) {
        if (r instanceof ApplyReq a) {
            processApply(a);
            return;
        } else if (r instanceof RoleReq role) {
            takeRole(role);
            return;
        } else if (r instanceof SnapshotReq q) {
            processSnapshot(q);
            return;
        } else if (r instanceof TruncateReq t) {
            wal.deleteUpTo(t.persisted());
            return;
        }
        if (!leader) {
            if (r instanceof SealReq q) {
                q.done().complete(null);
            } else {
                failRequest(r, notLeader());
            }
            return;
        }
        if (r instanceof CommitReq c) {
            processCommit(c, after);
        } else if (r instanceof PrepareReq p) {
            processPrepare(p, after);
        } else if (r instanceof DecideReq d) {
            processDecide(d, after);
        } else if (r instanceof SealReq s) {
            processSeal(s, after);
        } else if (r instanceof StatusReq q) {
            q.done().complete(statusDetailOf(q.txId()));
        } else if (r instanceof ResolveReq q) {
            processResolve(q, after);
        } else if (r instanceof ExtensionReq x) {
            journal(Wal.EXTENSION, x.payload());
            after.add(() -> x.done().complete(extension.apply(x.payload())));
        }
    }

    private void processResolve(ResolveReq q, List<Runnable> after) {
        Bytes id = q.txId();
        if (prepared.containsKey(id)) {
            processDecide(new DecideReq(id, false, new CompletableFuture<>()), after);
        } else if (!decided.containsKey(id) && !seen.containsKey(id)) {
            if (Transaction.idMillis(id) < cfg.clock().getAsLong() - DECISION_RETENTION_MILLIS) {
                after.add(() -> q.done().complete(TxState.UNKNOWN));
                return;
            }
            journal(Wal.OUTCOME, outcomeRecord(id, -1));
            decided.put(id, new Promise(id, cfg.shard(), -1, ledger.digest()));
        }
        TxState s = statusOf(id);
        after.add(() -> q.done().complete(s));  // after the batch's fsync: the answer is durable
    }

    private static byte[] outcomeRecord(Bytes txId, long block) {
        return new ByteWriter(24).raw(txId.unsafeArray()).u64(block).toByteArray();
    }

    private TxnException admit(Transaction tx) {
        long now = cfg.clock().getAsLong();
        pruneSeen(now);
        if (seen.containsKey(tx.txId()) || prepared.containsKey(tx.txId()) || decided.containsKey(tx.txId())) {
            return new TxnException(Reason.DUPLICATE, "transaction " + tx.txId().hex() + " was already submitted");
        }
        long skew = Math.abs(now - Transaction.idMillis(tx.txId()));
        if (skew > cfg.replayWindow().toMillis()) {
            return new TxnException(Reason.STALE, "transaction id clock is " + skew + " ms from the shard's, more than "
                    + cfg.replayWindow().toMillis());
        }
        for (Transaction.Read rd : tx.reads()) {
            if (writeLocks.containsKey(rd.key())) {
                return new TxnException(Reason.CONFLICT, "key read is held by prepared transaction "
                        + writeLocks.get(rd.key()).hex());
            }
            long current = currentVersion(rd.key());
            if (current != rd.version()) {
                return new TxnException(Reason.CONFLICT, "read version " + rd.version() + " of a key is stale (now "
                        + current + ")");
            }
        }
        for (Mutation m : tx.writes()) {
            if (writeLocks.containsKey(m.key()) || readLocks.containsKey(m.key())) {
                return new TxnException(Reason.CONFLICT, "key written is held by a prepared transaction");
            }
        }
        return null;
    }

    private void pruneSeen(long now) {
        if (now - lastSeenPrune > 10_000) {
            // Older ids are refused as stale anyway, so they need not be remembered.
            long floor = now - cfg.replayWindow().toMillis();
            seen.keySet().removeIf(id -> Transaction.idMillis(id) < floor);
            lastSeenPrune = now;
        }
    }

    /** No value in the latest committed state, published or not: never written, or deleted. */
    private boolean absentNow(Bytes key) {
        ArrayList<Ver> chain = committed.get(key);
        if (chain != null) {
            synchronized (chain) {
                if (!chain.isEmpty()) {
                    return chain.get(chain.size() - 1).value == null;
                }
            }
        }
        Entry e = ledger.latestEntry(key);
        return e == null || e.isTombstone();
    }

    /** The latest committed version, published or not. */
    private long currentVersion(Bytes key) {
        ArrayList<Ver> chain = committed.get(key);
        if (chain != null) {
            synchronized (chain) {
                if (!chain.isEmpty()) {
                    return chain.get(chain.size() - 1).blockNo;
                }
            }
        }
        Entry e = ledger.latestEntry(key);
        return e == null ? 0 : e.version();
    }

    private void processCommit(CommitReq c, List<Runnable> after) {
        Transaction tx = c.stx().tx();
        TxnException bad = admit(tx);
        if (bad != null) {
            abort(c.done(), bad);
            return;
        }
        remember(tx.txId());
        Digest served = ledger.digest();
        if (tx.isReadOnly()) {
            statReadOnly.increment();
            c.done().complete(new Promise(tx.txId(), cfg.shard(), 0, served));
            return;
        }
        journal(Wal.COMMIT, c.stx().recordUnsafe());
        long b = sequencer.assign(c.stx());
        seen.put(tx.txId(), b);
        promisedBound = sequencer.nextBlockBound();
        List<Ver> staged = stage(c.stx(), b, false);
        Promise p = new Promise(tx.txId(), cfg.shard(), b, served);
        after.add(() -> publish(staged, p, c.done(), c.persistNow()));
    }

    private void processPrepare(PrepareReq p, List<Runnable> after) {
        Transaction tx = p.stx().tx();
        TxnException bad = admit(tx);
        if (bad != null) {
            abort(p.done(), bad);
            return;
        }
        remember(tx.txId());
        journal(Wal.PREPARE, p.stx().recordUnsafe());
        lock(p.stx());
        after.add(() -> p.done().complete(null));
    }

    private void processDecide(DecideReq d, List<Runnable> after) {
        SignedTransaction stx = prepared.get(d.txId());
        if (stx == null) {
            Promise earlier = decided.get(d.txId());
            if (earlier != null && (earlier.blockNo() >= 0) == d.commit()) {
                d.done().complete(!d.commit() ? null : earlier.blockNo() > 0
                        ? new Promise(earlier.txId(), earlier.shard(), earlier.blockNo(), servedFor(earlier.blockNo()))
                        : earlier);
            } else if (earlier != null) {
                abort(d.done(), new TxnException(Reason.ALREADY_DECIDED, "transaction " + d.txId().hex()
                        + " was already decided the other way"));
            } else {
                abort(d.done(), new TxnException(Reason.UNKNOWN_TRANSACTION, "no prepared transaction "
                        + d.txId().hex()));
            }
            return;
        }
        unlock(stx);
        if (!d.commit()) {
            journal(Wal.DECIDE_ABORT, d.txId().toByteArray());
            decided.put(d.txId(), new Promise(d.txId(), cfg.shard(), -1, ledger.digest()));
            after.add(() -> d.done().complete(null));
            return;
        }
        journal(Wal.DECIDE_COMMIT, d.txId().toByteArray());
        Promise p;
        if (stx.tx().isReadOnly()) {
            p = new Promise(d.txId(), cfg.shard(), 0, ledger.digest());
            statReadOnly.increment();
            after.add(() -> d.done().complete(p));
        } else {
            long b = sequencer.assign(stx);
            promisedBound = sequencer.nextBlockBound();
            List<Ver> staged = stage(stx, b, false);
            p = new Promise(d.txId(), cfg.shard(), b, ledger.digest());
            after.add(() -> publish(staged, p, d.done(), false));
        }
        decided.put(d.txId(), p);
    }

    private void processSeal(SealReq s, List<Runnable> after) {
        if (sequencer.isEmpty()) {
            s.done().complete(null);
            return;
        }
        long ts = Math.max(cfg.clock().getAsLong(), lastSealTimestamp);
        journal(Wal.SEAL, new ByteWriter(8).u64(ts).toByteArray());
        BlockSequencer.Epoch e = sequencer.seal(ts);
        lastSealTimestamp = ts;
        if (rlog == null) {
            rollIfFull();  // a replica rolls once the entry that ends with this seal is in its journal
        }
        after.add(() -> {
            sealedEpochs.add(e);
            s.done().complete(e);
        });
    }

    /**
     * Starts a new WAL segment at a seal once the current one is past its size, carrying the transactions still
     * prepared and the recent 2PC outcomes (and a replica's applied position), so older segments can go.
     */
    private void rollIfFull() {
        if (wal.segmentBytes() < cfg.walSegmentBytes()) {
            return;
        }
        List<byte[]> carried = new ArrayList<>(prepared.size());
        prepared.values().forEach(p -> carried.add(p.recordUnsafe()));
        List<byte[]> outcomes = new ArrayList<>();
        long floor = cfg.clock().getAsLong() - DECISION_RETENTION_MILLIS;
        decided.forEach((id, p) -> {
            if (Transaction.idMillis(id) >= floor) {
                outcomes.add(outcomeRecord(id, p.blockNo()));
            }
        });
        wal.startSegment(sequencer.epochBase(), carried, outcomes, appliedRecord());
    }

    private void lock(SignedTransaction stx) {
        prepared.put(stx.txId(), stx);
        held.put(stx.txId(), new Held(stx, System.nanoTime()));
        for (Transaction.Read r : stx.tx().reads()) {
            readLocks.merge(r.key(), 1, Integer::sum);
        }
        for (Mutation m : stx.tx().writes()) {
            writeLocks.put(m.key(), stx.txId());
        }
    }

    private void unlock(SignedTransaction stx) {
        prepared.remove(stx.txId());
        held.remove(stx.txId());
        for (Transaction.Read r : stx.tx().reads()) {
            readLocks.computeIfPresent(r.key(), (k, n) -> n == 1 ? null : n - 1);
        }
        for (Mutation m : stx.tx().writes()) {
            writeLocks.remove(m.key());
        }
    }

    private List<Ver> stage(SignedTransaction stx, long blockNo, boolean visible) {
        List<Ver> out = new ArrayList<>(stx.tx().writes().size());
        unpersistedWrites.addAndGet(stx.tx().writes().size());
        for (Mutation m : stx.tx().writes()) {
            if (m.isDelete() && absentNow(m.key())) {
                // The ledger leaves no entry for it (FORMAT §6), so the key's version must not move either.
                continue;
            }
            Ver v = new Ver(blockNo, m.value(), visible);
            out.add(v);
            committed.compute(m.key(), (k, chain) -> {
                ArrayList<Ver> c = chain == null ? new ArrayList<>(2) : chain;
                synchronized (c) {
                    c.add(v);
                }
                return c;
            });
        }
        return out;
    }

    private void publish(List<Ver> staged, Promise p, CompletableFuture<Promise> done, boolean persistNow) {
        for (Ver v : staged) {
            v.visible = true;
        }
        statCommitted.increment();
        if (!persistNow) {
            done.complete(p);
            return;
        }
        awaitPersisted(p.blockNo()).whenComplete((x, err) -> {
            if (err != null) {
                done.completeExceptionally(err);
            } else {
                done.complete(p);
            }
        });
        synchronized (persistSignal) {
            persistRequested = true;
            persistSignal.notifyAll();
        }
    }

    // ---------------------------------------------------------------- persisting thread

    private void persisterLoop() {
        long interval = cfg.persistInterval().toNanos();
        long next = System.nanoTime() + interval;
        while (failure == null) {
            try {
                synchronized (persistSignal) {
                    long wait;
                    while (!persistRequested && !closing && (wait = next - System.nanoTime()) > 0) {
                        TimeUnit.NANOSECONDS.timedWait(persistSignal, wait);
                    }
                    persistRequested = false;
                }
                next = System.nanoTime() + interval;
                if (failure != null) {
                    return;
                }
                boolean last = closing;
                if (leader) {
                    // Only the leader seals; a follower persists the epochs its log's seals close.
                    CompletableFuture<BlockSequencer.Epoch> f = new CompletableFuture<>();
                    queue.add(new SealReq(f));
                    while (failure == null) {
                        try {
                            f.get(100, TimeUnit.MILLISECONDS);
                            break;
                        } catch (java.util.concurrent.TimeoutException te) {
                            // keep waiting unless the sequencer died
                        } catch (java.util.concurrent.ExecutionException x) {
                            break;
                        }
                    }
                }
                if (failure != null) {
                    return;
                }
                boolean any = false;
                for (BlockSequencer.Epoch e; (e = sealedEpochs.poll()) != null; ) {
                    if (e.lastBlock() > persisted.get()) {
                        persistRetrying(e);
                        any = true;
                    }
                }
                if (any) {
                    queue.add(new TruncateReq(persisted.get()));
                }
                if (last) {
                    return;
                }
            } catch (InterruptedException ie) {
                return;
            } catch (Throwable t) {
                fail(t);
                return;
            }
        }
    }

    /**
     * Persists a sealed epoch, retrying a {@link StoreException} with backoff: the failed write changed nothing and
     * the epoch stays sealed in the WAL, so the same append can be repeated. Gives up (rethrows, and the engine
     * fails) after {@link EngineConfig#storeRetryWindow()}, or at once when the engine is closing.
     */
    private void persistRetrying(BlockSequencer.Epoch e) throws InterruptedException {
        long start = System.nanoTime();
        long delayMillis = 10;
        while (true) {
            try {
                persist(e);
                if (storeFailure != null) {
                    storeFailure = null;
                    long down = System.nanoTime() - start;
                    notifyObserver(o -> o.recovered(down));
                }
                return;
            } catch (StoreException x) {
                if (storeFailure == null) {
                    storeFailure = x;
                    notifyObserver(o -> o.failed(x, false));
                }
                if (closing || System.nanoTime() - start >= cfg.storeRetryWindow().toNanos()) {
                    throw x;
                }
                long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMillis);
                synchronized (persistSignal) {
                    long wait;
                    while (!closing && (wait = until - System.nanoTime()) > 0) {
                        TimeUnit.NANOSECONDS.timedWait(persistSignal, wait);
                    }
                }
                delayMillis = Math.min(delayMillis * 2, 2_000);
            }
        }
    }

    private void notifyObserver(java.util.function.Consumer<Observer> call) {
        try {
            call.accept(observer);
        } catch (RuntimeException ignored) {
            // an observer must not throw; if it does, the engine's own state still says what happened
        }
    }

    private void persist(BlockSequencer.Epoch e) {
        long t0 = System.nanoTime();
        var specs = e.specs();
        List<Block> blocks = ledger.append(specs);
        if (blocks.get(0).number() != e.firstBlock() || blocks.get(blocks.size() - 1).number() != e.lastBlock()) {
            throw new LedgerException("ledger formed blocks " + blocks.get(0).number() + ".." + blocks.get(
                    blocks.size() - 1).number() + " for epoch " + e.firstBlock() + ".." + e.lastBlock());
        }
        long last = e.lastBlock();
        persisted.set(last);
        long keys = 0;
        for (var spec : specs) {
            unpersistedWrites.addAndGet(-spec.writes().size());
            for (Mutation m : spec.writes()) {
                keys++;
                committed.computeIfPresent(m.key(), (k, c) -> {
                    synchronized (c) {
                        c.removeIf(v -> v.blockNo <= last);
                        return c.isEmpty() ? null : c;
                    }
                });
            }
        }
        statEpochs.increment();
        statBlocks.add(specs.size());
        statKeys.add(keys);
        long took = System.nanoTime() - t0;
        statPersistNanos.add(took);
        List<Integer> perBlock = new ArrayList<>(specs.size());
        specs.forEach(sp -> perBlock.add(sp.writes().size()));
        observer.persisted(perBlock, took);
        List<CompletableFuture<Void>> ready = new ArrayList<>();
        synchronized (persistWaiters) {
            var head = persistWaiters.headMap(last, true);
            head.values().forEach(ready::addAll);
            head.clear();
        }
        ready.forEach(f -> f.complete(null));
        if (proofs != null) {  // null while the constructor recovers: no proof can be waiting then
            proofs.release(last);
        }
    }

    /** Completes when block {@code blockNo} is in the ledger. */
    public CompletableFuture<Void> awaitPersisted(long blockNo) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        synchronized (persistWaiters) {
            if (persisted.get() >= blockNo) {
                f.complete(null);
                return f;
            }
            persistWaiters.computeIfAbsent(blockNo, k -> new ArrayList<>()).add(f);
        }
        if (failure != null) {
            f.completeExceptionally(new TxnException(Reason.UNAVAILABLE, "shard engine failed: " + failure));
        }
        return f;
    }

    /** Asks the persisting thread to seal and persist now rather than at the end of its interval. */
    public void persistSoon() {
        synchronized (persistSignal) {
            persistRequested = true;
            persistSignal.notifyAll();
        }
    }

    // ---------------------------------------------------------------- proofs

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
        if (blockNo < 0 || blockNo >= promisedBound) {
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
        return proofs.proveLatest(new ArrayList<>(new java.util.TreeSet<>(keys)), budget);
    }

    /** Proof that the ledger at block {@code from} is a prefix of the ledger at {@code to}. */
    public AppendOnlyProof proveAppendOnly(long from, long to) {
        return ledger.proveAppendOnly(from, to);
    }

    // ---------------------------------------------------------------- state

    public Digest digest() {
        return ledger.digest();
    }

    public Digest digest(long blockNo) {
        return ledger.digest(blockNo);
    }

    public long persistedBlock() {
        return persisted.get();
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
        return rec == null ? List.of() : decodeTransactions(rec);
    }

    /** Decodes a block's signed-transaction record (FORMAT.md §14.3). */
    public static List<SignedTransaction> decodeTransactions(Bytes record) {
        ByteReader r = new ByteReader(record.unsafeArray());
        int n = r.count(1 << 24, 1);
        List<SignedTransaction> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(SignedTransaction.decode(r.lengthPrefixed(SignedTransaction.MAX_RECORD_BYTES)));
        }
        r.expectEnd();
        return out;
    }

    /** The client key that signed a transaction prepared here and not yet decided. */
    public java.util.Optional<Bytes> preparedBy(Bytes txId) {
        Held h = held.get(txId);
        return h == null ? java.util.Optional.empty() : java.util.Optional.of(h.stx().tx().clientKey());
    }

    /** A transaction prepared here and not yet decided, as its client signed it. */
    public java.util.Optional<SignedTransaction> prepared(Bytes txId) {
        Held h = held.get(txId);
        return h == null ? java.util.Optional.empty() : java.util.Optional.of(h.stx());
    }

    /** Transactions prepared and not yet decided (restored as such after a restart). */
    public List<Bytes> preparedTransactions() {
        return List.copyOf(held.keySet());
    }

    /** Transactions prepared here and not yet decided, with when they were prepared (or recovered). */
    public List<Held> held() {
        return List.copyOf(held.values());
    }

    public Stats stats() {
        Map<Reason, Long> ab = new EnumMap<>(Reason.class);
        statAborted.forEach((r, a) -> ab.put(r, a.sum()));
        return new Stats(statCommitted.sum(), statReadOnly.sum(), ab, statWalSyncs.sum(), statWalSyncNanos.sum(),
                statSequenced.sum(), statValidateNanos.sum(), statEpochs.sum(), statBlocks.sum(), statKeys.sum(),
                statPersistNanos.sum(), proofs.batches(), proofs.keys(), proofs.nanos(),
                unpersistedWrites.get());
    }

    private void fail(Throwable t) {
        boolean first;
        synchronized (persistWaiters) {
            first = failure == null;
            if (first) {
                failure = t;
            }
        }
        if (first) {
            notifyObserver(o -> o.failed(t, true));
        }
        List<CompletableFuture<Void>> waiting = new ArrayList<>();
        synchronized (persistWaiters) {
            persistWaiters.values().forEach(waiting::addAll);
            persistWaiters.clear();
        }
        TxnException e = new TxnException(Reason.UNAVAILABLE, "shard engine failed: " + t);
        waiting.forEach(w -> w.completeExceptionally(e));
        Request r;
        while ((r = queue.poll()) != null) {
            failRequest(r);
        }
    }

    /** Stops the threads without the final persist, as a crash would (the WAL holds what was acknowledged). */
    void crashForTest() {
        failure = new IllegalStateException("simulated crash");
        closing = true;
        stopSequencer = true;
        synchronized (persistSignal) {
            persistSignal.notifyAll();
        }
        try {
            persisterThread.join();
            sequencerThread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        workers.shutdownNow();
        timer.shutdownNow();
        wal.abandon();
        store.close();
    }

    /** Stops accepting requests, persists everything committed, and closes the WAL and the ledger. */
    @Override
    public void close() {
        if (closing) {
            return;
        }
        closing = true;
        synchronized (persistSignal) {
            persistSignal.notifyAll();
        }
        try {
            persisterThread.join();
            stopSequencer = true;
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
        wal.close();
        store.close();
    }

}
