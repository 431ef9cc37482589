package io.glassledger.client;

import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
import io.glassledger.verify.proof.SignedHead;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Deferred verification (GlassDB §3.3.3). Promises wait until their due time (acknowledgement + verify delay); one
 * thread then takes every due promise and asks for all their proofs in one {@code POST /v1/proofs/batch}
 * ({@link ProofBatchPlanner}), checks the answer ({@link BatchChecker}), makes the proof digests trusted in block
 * order ({@link TrustKeeper#adopt}), and completes each promise's future.
 *
 * <p><b>A violation takes evidence a third party can check</b> (docs/ARCHITECTURE.md "No false accusation"): a proof
 * that contradicts the promise, a digest that is not an append-only extension of the trusted one, two digests of one
 * block, two promises of one block that put the same key. Those complete the promises concerned with an
 * {@link IntegrityViolation}, which also goes to the violation handler.
 *
 * <p><b>Anything else makes a promise overdue, never a violation</b>: no answer, {@code replica_behind},
 * {@code unavailable}, {@code not_leader}, a lost quorum, {@code PENDING} past the promise's deadline
 * (acknowledgement + {@link ClientConfig#promiseDeadline}), {@code PENDING} for a block the server already signed as
 * persisted, or {@code unknown_block} for the promised block. None of those answers is signed, so none proves
 * anything to anyone else; a replica failing over, lagging, or cut off from its quorum gives them honestly. An
 * overdue promise is reported once ({@link PromiseOverdue}, to {@link ClientConfig#overdueHandler}), keeps its place
 * in the queue, and is asked for again with backoff (at most {@link PromiseOverdue#RETRY_CAP} apart; the request
 * goes to whichever replica the client reaches): it ends verified, with a violation if the shard then answers with
 * evidence against it, or {@code closed}. A non-retryable refusal of the request itself is retried a few times,
 * then fails the promises with it: not verified, not a violation either.
 *
 * <p>The queue is bounded ({@link ClientConfig#maxUnverifiedPromises}): {@link #reserve} takes a place before a
 * commit is sent, and a promise gives it back once its check completes, whichever way.
 *
 * <p>Time comes from a ticker (nanoseconds, like {@link System#nanoTime}) given at construction, so tests can drive
 * deadlines; {@link #wake} makes the thread look at the clock again.
 */
final class DeferredVerifier implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(DeferredVerifier.class.getName());
    /** A round's request stays well under the server's 8 MiB body limit. */
    private static final long MAX_ROUND_BYTES = 4L << 20;
    private static final int MAX_REFUSALS = 5;
    /**
     * Refusals that concern the promise's block rather than the request: asked again for as long as the promise
     * waits, however the server flags them (a replica behind the one that signed, or one that denies the block).
     */
    private static final Set<String> UNPROVEN = Set.of("unknown_block", "stale_digest", "replica_behind");
    private static final long MAX_BACKOFF_NANOS = PromiseOverdue.RETRY_CAP.toNanos();

    private final Api api;
    private final TrustKeeper trust;
    private final Violations violations;
    private final int maxKeysPerItem;
    private final int maxItems;
    private final long maxAnswerBytes;
    /** What servers that do not advertise their response limits enforce (docs/API.md "Limits"). */
    static final int DEFAULT_MAX_ITEMS = 256;
    static final long DEFAULT_MAX_RESPONSE_BYTES = 16L << 20;
    private final Duration proofWait;
    private final Duration requestTimeout;
    private final long deadlineNanos;
    private final int capacity;
    private final LongSupplier ticker;
    private final java.util.function.Consumer<PromiseOverdue> overdueHandler;
    // Places taken: commits in flight (reserved) plus promises queued or in a round. Never above capacity.
    private final AtomicInteger load = new AtomicInteger();
    // The verified signed heads the batch answers carried, newest last (a few), for BROKEN_PROMISE evidence.
    private final java.util.ArrayDeque<SignedHead> headsSeen = new java.util.ArrayDeque<>();
    private static final int HEADS_KEPT = 4;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final PriorityQueue<Entry> queue = new PriorityQueue<>(
            Comparator.<Entry>comparingLong(e -> e.due).thenComparingLong(e -> e.seq));
    private final Thread thread;
    private long seq;
    private boolean closed;
    // The server's cap on keys per batch (all items together); halved if the server still answers too_large or
    // response_too_large.
    private volatile long roundKeyBudget;

    private static final class Entry {
        final CommitPromise promise;
        final long seq;
        final long deadline;
        long due;
        int pendings;
        int errors;
        int refusals;
        // Checked in a round of its own: the server denied a block of a round it was in, and the round must say whose.
        boolean alone;
        // Reported overdue (once).
        boolean overdue;

        Entry(CommitPromise promise, long seq, long due, long deadline) {
            this.promise = promise;
            this.seq = seq;
            this.due = due;
            this.deadline = deadline;
        }
    }

    /**
     * @param deadline a promise's deadline, counted from its acknowledgement ({@link ClientConfig#promiseDeadline})
     * @param capacity places in the queue ({@link ClientConfig#maxUnverifiedPromises})
     * @param ticker   the clock, in nanoseconds
     */
    DeferredVerifier(Api api, TrustKeeper trust, Violations violations, int maxKeysPerItem, Duration proofWait,
                     Duration requestTimeout, Duration deadline, int capacity, LongSupplier ticker,
                     java.util.function.Consumer<PromiseOverdue> overdueHandler) {
        this(api, trust, violations, maxKeysPerItem, DEFAULT_MAX_ITEMS, DEFAULT_MAX_RESPONSE_BYTES, proofWait,
                requestTimeout, deadline, capacity, ticker, overdueHandler);
    }

    /**
     * @param maxItems         the server's cap on items per batch ({@code /v1/info maxProofItems})
     * @param maxResponseBytes the server's cap on a response ({@code /v1/info maxResponseBytes}); a batch is planned
     *                         to fill half of it, leaving room for what the client cannot estimate (neighbours shown
     *                         to prove absence)
     * @param deadline         a promise's deadline, counted from its acknowledgement
     *                         ({@link ClientConfig#promiseDeadline})
     * @param capacity         places in the queue ({@link ClientConfig#maxUnverifiedPromises})
     * @param ticker           the clock, in nanoseconds
     * @param overdueHandler   hears once of each promise that goes overdue
     */
    DeferredVerifier(Api api, TrustKeeper trust, Violations violations, int maxKeysPerItem, int maxItems,
                     long maxResponseBytes, Duration proofWait, Duration requestTimeout, Duration deadline,
                     int capacity, LongSupplier ticker, java.util.function.Consumer<PromiseOverdue> overdueHandler) {
        this.overdueHandler = overdueHandler;
        this.maxItems = maxItems;
        this.maxAnswerBytes = maxResponseBytes / 2;
        this.api = api;
        this.deadlineNanos = deadline.toNanos();
        this.capacity = capacity;
        this.ticker = ticker;
        this.trust = trust;
        this.violations = violations;
        this.maxKeysPerItem = maxKeysPerItem;
        this.proofWait = proofWait;
        this.requestTimeout = requestTimeout;
        this.roundKeyBudget = maxKeysPerItem;
        this.thread = new Thread(this::run, "glassledger-verifier");
        thread.setDaemon(true);
        thread.start();
    }

    /** Queues a promise for checking {@code delay} after its acknowledgement. */
    private final java.util.concurrent.atomic.LongAdder statBatches = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder statProofs = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder statProofBytes = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder statClaims = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder statAppendOnlyBytes =
            new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder statOverdue = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder statOverdueProven = new java.util.concurrent.atomic.LongAdder();

    /** What the background verifier has received so far. */
    VerifierStats stats() {
        return new VerifierStats(statBatches.sum(), statProofs.sum(), statProofBytes.sum(), statClaims.sum(),
                statAppendOnlyBytes.sum(), statOverdue.sum(), statOverdueProven.sum());
    }

    private void count(Dto.ProofBatchResponse resp) {
        if (resp == null) {
            return;
        }
        statBatches.increment();
        if (resp.proofs() != null) {
            for (Dto.KeysProofDto d : resp.proofs()) {
                if (d != null && d.proof() != null && d.claims() != null) {
                    statProofs.increment();
                    statProofBytes.add(decodedLength(d.proof()));
                    statClaims.add(d.claims().size());
                }
            }
        }
        if (resp.appendOnly() != null) {
            for (Dto.AppendOnlyProofDto a : resp.appendOnly()) {
                if (a != null && a.proof() != null) {
                    statAppendOnlyBytes.add(decodedLength(a.proof()));
                }
            }
        }
    }

    private static long decodedLength(String b64) {
        int pad = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
        return (long) b64.length() / 4 * 3 - pad;
    }

    /**
     * Takes a place for a commit about to be sent; false when the queue is full. The caller gives it back with
     * {@link #unreserve} once the commit's answer was handled (a promise submitted meanwhile holds a place of its own).
     */
    boolean reserve() {
        while (true) {
            int n = load.get();
            if (n >= capacity) {
                return false;
            }
            if (load.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    void unreserve() {
        load.decrementAndGet();
    }

    /** The refusal of a commit that found the queue full: retryable, after about one verify delay. */
    GlassLedgerException backlog(Duration verifyDelay) {
        return new GlassLedgerException(GlassLedgerException.VERIFIER_BACKLOG, 0, true, capacity
                + " promises of this shard are waiting for their check; commit again once some are verified",
                verifyDelay.isZero() ? Duration.ofMillis(100) : verifyDelay, null);
    }

    /** Queues a promise for checking {@code delay} after now (its acknowledgement); its deadline counts from now. */
    void submit(CommitPromise p, Duration delay) {
        load.incrementAndGet();
        p.outcome().whenComplete((o, e) -> load.decrementAndGet());
        lock.lock();
        try {
            if (closed) {
                p.outcome().completeExceptionally(closedException());
                return;
            }
            long now = ticker.getAsLong();
            queue.add(new Entry(p, seq++, now + delay.toNanos(), now + deadlineNanos));
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Makes the thread read the clock again (tests that move a ticker). */
    void wake() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    int queued() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    private void run() {
        while (true) {
            List<Entry> round;
            try {
                round = takeDue();
            } catch (InterruptedException e) {
                return;
            }
            if (round == null) {
                return;
            }
            try {
                runRound(round);
            } catch (RuntimeException e) {
                // A bug must not stop verification for good, nor mark anything verified.
                LOG.log(System.Logger.Level.ERROR, "proof round failed", e);
                round.forEach(en -> retry(en, GlassLedgerException.transport("internal error: " + e, e)));
            }
        }
    }

    /** Blocks until promises are due; takes as many as fit in one request. Null once closed. */
    private List<Entry> takeDue() throws InterruptedException {
        lock.lock();
        try {
            while (true) {
                if (closed) {
                    return null;
                }
                Entry head = queue.peek();
                long now = ticker.getAsLong();
                if (head == null) {
                    changed.await();
                } else if (head.due - now > 0) {
                    changed.awaitNanos(head.due - now);
                } else {
                    List<Entry> out = new ArrayList<>();
                    long bytes = 0;
                    long keys = 0;
                    while ((head = queue.peek()) != null && head.due - now <= 0) {
                        long b = ProofBatchPlanner.requestBytes(head.promise);
                        long k = ProofBatchPlanner.keyCount(head.promise);
                        if (!out.isEmpty() && (bytes + b > MAX_ROUND_BYTES || keys + k > roundKeyBudget
                                || head.alone || out.get(0).alone)) {
                            break;
                        }
                        out.add(queue.poll());
                        bytes += b;
                        keys += k;
                    }
                    return out;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private void runRound(List<Entry> round) {
        TrustedState base = trust.current();
        // The newest block the server had signed as persisted before this round asked: PENDING at or below it is a lie.
        long signedBefore = newestSignedBlock(base);
        Map<CommitPromise, Entry> entries = new IdentityHashMap<>();
        round.forEach(e -> entries.put(e.promise, e));
        for (Set<CommitPromise> g : ProofBatchPlanner.conflictingPuts(new ArrayList<>(entries.keySet()))) {
            for (CommitPromise p : g) {
                fail(entries.remove(p), IntegrityViolation.builder(IntegrityViolation.Kind.BROKEN_PROMISE,
                                "promises of tx " + g.stream().map(x -> x.txId().hex()).toList() + " put the same key "
                                        + "in block " + p.block() + ", which holds one version of a key")
                        .trust(base).claims(p.claims()).txIds(g.stream().map(CommitPromise::txId).toList()).build());
            }
        }
        if (entries.isEmpty()) {
            return;
        }
        List<ProofBatchPlanner.Item> items = ProofBatchPlanner.plan(new ArrayList<>(entries.keySet()), maxKeysPerItem,
                maxAnswerBytes);
        BatchChecker checker = new BatchChecker(base);
        // The server's wait ends by the earliest deadline, so a promise not kept is reported on time.
        long untilDeadline = entries.values().stream().mapToLong(e -> e.deadline).min().orElseThrow()
                - ticker.getAsLong();
        long waitMillis = Math.max(0, Math.min(proofWait.toMillis(), TimeUnit.NANOSECONDS.toMillis(untilDeadline)));
        try {
            for (List<ProofBatchPlanner.Item> batch : batches(items)) {
                Dto.ProofBatchRequest req = new Dto.ProofBatchRequest(batch.stream()
                        .map(i -> new Dto.ProofItem(i.block(), i.keys().stream().map(Wire::b64).toList())).toList(),
                        base.digest().blockNo(), waitMillis);
                Dto.ProofBatchResponse resp = Violations.join(api.post("/v1/proofs/batch", req,
                        Dto.ProofBatchResponse.class, requestTimeout.plus(proofWait)));
                count(resp);
                checker.check(batch, resp);
            }
        } catch (IntegrityViolation v) {
            entries.values().forEach(e -> fail(e, v));
            return;
        } catch (GlassLedgerException e) {
            if ("unknown_block".equals(e.code()) && entries.size() > 1) {
                // Whose block does the server deny? Each promise is asked for alone, so the answer names it.
                entries.values().forEach(en -> {
                    en.alone = true;
                    requeue(en, 0);
                });
                return;
            }
            // stale_digest (the server says the trusted block is beyond its head), unknown_block (it denies the
            // promised block): unsigned answers a lagging or failing-over replica gives too. Not evidence: retried,
            // and overdue if the deadline passes (retry), or at once for a denied block.
            if ("unknown_block".equals(e.code())) {
                entries.values().forEach(en -> overdue(en, e.code() + ": " + e.detail()));
            }
            if (("too_large".equals(e.code()) || "response_too_large".equals(e.code())) && roundKeyBudget > 1) {
                roundKeyBudget = Math.max(1, roundKeyBudget / 2);
            }
            entries.values().forEach(en -> retry(en, e));
            return;
        }
        Map<CommitPromise, BatchChecker.Result> results = checker.results();
        remember(checker.heads());
        adopt(checker, results);
        for (Map.Entry<CommitPromise, Entry> e : entries.entrySet()) {
            BatchChecker.Result r = results.get(e.getKey());
            if (r == null) {
                retry(e.getValue(), GlassLedgerException.badResponse("promise was in no item", null));
            } else if (r.violation != null) {
                fail(e.getValue(), r.violation);
            } else if (r.error != null) {
                retry(e.getValue(), r.error);
            } else if (r.pending) {
                pending(e.getValue(), r.pendingBlock, signedBefore, base);
            } else {
                CommitPromise p = e.getKey();
                if (e.getValue().overdue) {
                    statOverdueProven.increment();
                }
                p.outcome().complete(new VerificationOutcome(p.txId(), p.block(), r.digest, r.writes, r.reads,
                        Duration.ofNanos(System.nanoTime() - p.ackNanos())));
            }
        }
    }

    /**
     * The round's items as requests within the server's limit on keys per batch: one request, unless a single
     * promise is too big for one (its parts then go in several).
     */
    private List<List<ProofBatchPlanner.Item>> batches(List<ProofBatchPlanner.Item> items) {
        List<List<ProofBatchPlanner.Item>> out = new ArrayList<>();
        List<ProofBatchPlanner.Item> cur = new ArrayList<>();
        long keys = 0;
        long bytes = 0;
        for (ProofBatchPlanner.Item i : items) {
            long b = i.answerBytes();
            if (!cur.isEmpty() && (keys + i.keys().size() > roundKeyBudget || cur.size() == maxItems
                    || bytes + b > maxAnswerBytes)) {
                out.add(cur);
                cur = new ArrayList<>();
                keys = 0;
                bytes = 0;
            }
            cur.add(i);
            keys += i.keys().size();
            bytes += b;
        }
        if (!cur.isEmpty()) {
            out.add(cur);
        }
        return out;
    }

    /** Makes the round's digests trusted, oldest first; a digest that cannot be fails or delays those who used it. */
    private void adopt(BatchChecker checker, Map<CommitPromise, BatchChecker.Result> results) {
        if (checker.heads().isEmpty()) {
            return;
        }
        SignedHead head = checker.heads().get(checker.heads().size() - 1);
        try {
            for (SignedHead h : checker.heads()) {
                trust.observe(h);
            }
        } catch (IntegrityViolation v) {
            results.values().forEach(r -> r.fail(v));
            return;
        }
        for (BatchChecker.Link link : checker.links().values()) {
            if (link.users().isEmpty()) {
                continue;
            }
            try {
                Violations.join(trust.adopt(link.digest(), link.fromBase(),
                        head.digest().equals(link.digest()) ? head : null));
            } catch (IntegrityViolation v) {
                link.users().forEach(p -> results.get(p).fail(v));
            } catch (GlassLedgerException e) {
                link.users().forEach(p -> results.get(p).error = e);
            }
        }
    }

    private void fail(Entry e, IntegrityViolation v) {
        if (e != null) {
            violations.report(v);
            e.promise.outcome().completeExceptionally(v);
        }
    }

    private void pending(Entry e, long block, long signedBefore, TrustedState base) {
        if (block >= 0 && block <= signedBefore) {
            // The server signed block signedBefore as persisted, yet answers PENDING for the promised block at or
            // below it: withholding, or a replica behind the one that signed. The answer is not signed: overdue.
            overdue(e, "PENDING for block " + block + ", though the shard signed block " + signedBefore
                    + " as persisted");
        } else if (ticker.getAsLong() - e.deadline >= 0) {
            overdue(e, "PENDING for block " + block + " (not persisted yet)");
        }
        e.pendings++;
        // The server already waited for the block; ask again soon, then less eagerly, and at the deadline at last.
        requeue(e, Math.min(MAX_BACKOFF_NANOS, TimeUnit.MILLISECONDS.toNanos(20) << Math.min(e.pendings, 10)));
    }

    /** Reports {@code e} overdue, once: not a violation; it stays queued and is asked for again. */
    private void overdue(Entry e, String lastAnswer) {
        if (e.overdue) {
            return;
        }
        e.overdue = true;
        CommitPromise p = e.promise;
        List<SignedHead> heads;
        synchronized (headsSeen) {
            heads = new ArrayList<>(headsSeen);
        }
        PromiseOverdue o = new PromiseOverdue(p.txId(), p.promise() == null ? -1 : p.promise().shard(), p.block(),
                Duration.ofNanos(Math.max(0, ticker.getAsLong() - (e.deadline - deadlineNanos))), lastAnswer, heads);
        statOverdue.increment();
        if (p.markOverdue(o)) {
            try {
                overdueHandler.accept(o);
            } catch (RuntimeException x) {
                LOG.log(System.Logger.Level.ERROR, "overdue handler failed on " + o.getMessage(), x);
            }
        }
    }

    private void remember(List<SignedHead> heads) {
        synchronized (headsSeen) {
            for (SignedHead h : heads) {
                SignedHead last = headsSeen.peekLast();
                if (last == null || last.digest().blockNo() < h.digest().blockNo()) {
                    headsSeen.addLast(h);
                    if (headsSeen.size() > HEADS_KEPT) {
                        headsSeen.removeFirst();
                    }
                }
            }
        }
    }

    /** The newest block a verified signed head of the server names: from trust, or from earlier answers; -1: none. */
    private long newestSignedBlock(TrustedState base) {
        long b = base.signedHead() == null ? -1 : base.signedHead().digest().blockNo();
        synchronized (headsSeen) {
            SignedHead last = headsSeen.peekLast();
            return last == null ? b : Math.max(b, last.digest().blockNo());
        }
    }

    private void retry(Entry e, GlassLedgerException cause) {
        if (!cause.retryable() && !UNPROVEN.contains(cause.code()) && ++e.refusals > MAX_REFUSALS) {
            e.promise.outcome().completeExceptionally(cause);
            return;
        }
        if (ticker.getAsLong() - e.deadline >= 0) {
            // No proof by the deadline, and no evidence either: the shard is unavailable, not caught cheating.
            overdue(e, cause.code() + (cause.detail() == null ? "" : ": " + cause.detail()));
        }
        e.errors++;
        long backoff = Math.min(MAX_BACKOFF_NANOS, TimeUnit.MILLISECONDS.toNanos(50) << Math.min(e.errors, 10));
        if (cause.retryAfter() != null) {
            backoff = Math.max(backoff, cause.retryAfter().toNanos());
        }
        LOG.log(System.Logger.Level.DEBUG, "proof round for tx " + e.promise.txId().hex() + " will retry: "
                + cause.getMessage());
        requeue(e, backoff);
    }

    private void requeue(Entry e, long delayNanos) {
        lock.lock();
        try {
            if (closed) {
                e.promise.outcome().completeExceptionally(closedException());
                return;
            }
            // Never later than the deadline, so a promise not kept is judged on time.
            long now = ticker.getAsLong();
            e.due = e.deadline - now > 0 ? now + Math.min(delayNanos, e.deadline - now) : now + delayNanos;
            queue.add(e);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private static GlassLedgerException closedException() {
        return new GlassLedgerException(GlassLedgerException.CLOSED, 0, false,
                "the client was closed before the promise was verified");
    }

    /** Stops the thread; promises not yet verified fail with {@code closed}. */
    @Override
    public void close() {
        List<Entry> left;
        lock.lock();
        try {
            closed = true;
            left = new ArrayList<>(queue);
            queue.clear();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        try {
            // A round in flight finishes on its own; what it puts back fails with closed (requeue sees closed).
            thread.join(TimeUnit.SECONDS.toMillis(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        left.forEach(e -> e.promise.outcome().completeExceptionally(closedException()));
    }
}
