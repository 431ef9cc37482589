package io.glassledger.core.txn;

import io.glassledger.verify.txn.BlockProof;
import io.glassledger.verify.txn.Transaction;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.core.ledger.BlockKeysProver;
import io.glassledger.core.ledger.ByteBudget;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.proof.KeyClaim;
import io.glassledger.core.txn.TxnException.Reason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The engine's proof batching: requests for keys of one block that arrive together are answered from one traversal
 * (GlassDB's batched proofs), as soon as the block is in the ledger. Each request gets a sub-proof of its own keys
 * only, with only its own claims, cut from that traversal: a {@link BlockKeysProver} reads each node once for the
 * whole batch and each request's proof walks only its keys' paths through those nodes. Each request keeps its own
 * {@link ByteBudget} and is charged for its own proof alone, so no request is refused for another's keys and none
 * sees another's claims.
 *
 * <p>Threading: {@link #prove} and {@link #release} may be called from any thread; proofs run on the engine's
 * workers (or the caller's thread when they are saturated).
 */
final class ProofBatcher {
    /** Metrics callback: keys proven by one traversal (all the batch's requests) and its duration. */
    interface Proved {
        void proved(int keys, long nanos);
    }

    private static final class ProofBatch {
        boolean scheduled;
        final TreeSet<Bytes> keys = new TreeSet<>();
        final List<ProofWaiter> waiters = new ArrayList<>();
    }

    /** A request in a batch: its own keys, proven for it alone, and its budget. */
    private record ProofWaiter(CompletableFuture<ProofResult> future, List<Bytes> keys, ByteBudget budget) {
    }

    private final Ledger ledger;
    private final Executor workers;
    private final ScheduledExecutorService timer;
    private final LongSupplier persisted;
    private final Proved observer;
    private final Map<Long, ProofBatch> proofBatches = new HashMap<>();
    private final LongAdder statProofBatches = new LongAdder();
    private final LongAdder statProofKeys = new LongAdder();
    private final LongAdder statProofNanos = new LongAdder();

    ProofBatcher(Ledger ledger, Executor workers, ScheduledExecutorService timer, LongSupplier persisted,
                 Proved observer) {
        this.ledger = ledger;
        this.workers = workers;
        this.timer = timer;
        this.persisted = persisted;
        this.observer = observer;
    }

    /**
     * A proof of {@code keys} in block {@code blockNo} (which the caller has checked was promised): at once if the
     * block is in the ledger, else when it is persisted, or {@link ProofResult.Pending} after {@code maxWait}.
     */
    CompletableFuture<ProofResult> prove(long blockNo, List<Bytes> keys, Duration maxWait, ByteBudget budget) {
        CompletableFuture<ProofResult> f = new CompletableFuture<>();
        if (keys.isEmpty() || keys.size() > Transaction.MAX_OPS) {
            f.completeExceptionally(new TxnException(Reason.INVALID, "prove 1.." + Transaction.MAX_OPS + " keys"));
            return f;
        }
        boolean start;
        boolean inLedger;
        synchronized (proofBatches) {
            ProofBatch b = proofBatches.computeIfAbsent(blockNo, k -> new ProofBatch());
            b.keys.addAll(keys);
            b.waiters.add(new ProofWaiter(f, List.copyOf(keys), budget));
            // The ledger's head moves before persisted does; a client may already hold that head's digest.
            inLedger = persisted.getAsLong() >= blockNo || ledger.head().block().number() >= blockNo;
            start = !b.scheduled && inLedger;
            b.scheduled |= start;
        }
        if (start) {
            schedule(blockNo);
        } else if (!inLedger) {
            // No nudge to the persisting thread: waiting for the interval keeps blocks and proof batches large.
            timer.schedule(() -> f.complete(new ProofResult.Pending(blockNo, persisted.getAsLong())), maxWait.toNanos(),
                    TimeUnit.NANOSECONDS);
        }
        return f;
    }

    /** After a persist: every proof batch waiting on a block now in the ledger is answered by one traversal. */
    void release(long last) {
        List<Long> ready = new ArrayList<>();
        synchronized (proofBatches) {
            for (Map.Entry<Long, ProofBatch> e : proofBatches.entrySet()) {
                if (e.getKey() <= last && !e.getValue().scheduled) {
                    e.getValue().scheduled = true;
                    ready.add(e.getKey());
                }
            }
        }
        ready.forEach(this::schedule);
    }

    private void schedule(long blockNo) {
        try {
            workers.execute(() -> runBatch(blockNo));
        } catch (RejectedExecutionException e) {
            runBatch(blockNo);
        }
    }

    private void runBatch(long blockNo) {
        ProofBatch b;
        synchronized (proofBatches) {
            b = proofBatches.remove(blockNo);
        }
        long t0 = System.nanoTime();
        Ledger.Head head = ledger.head();
        BlockKeysProver prover;
        try {
            prover = ledger.keysProver(blockNo, head.block().number());
        } catch (RuntimeException e) {
            b.waiters.forEach(w -> w.future().completeExceptionally(e));
            return;
        }
        for (ProofWaiter w : b.waiters) {
            if (w.future().isDone()) {
                continue;  // answered Pending already
            }
            try {
                List<Bytes> own = new ArrayList<>(new TreeSet<>(w.keys()));
                w.future().complete(new ProofResult.Ready(prove(blockNo, own, w.budget(), head, prover)));
            } catch (RuntimeException e) {
                w.future().completeExceptionally(e);
            }
        }
        proved(b.keys.size(), t0);
    }

    private void proved(int keys, long t0) {
        long nanos = System.nanoTime() - t0;
        statProofBatches.increment();
        statProofKeys.add(keys);
        statProofNanos.add(nanos);
        observer.proved(keys, nanos);
    }

    long batches() {
        return statProofBatches.sum();
    }

    long keys() {
        return statProofKeys.sum();
    }

    long nanos() {
        return statProofNanos.sum();
    }

    /** The latest block's state, proven against that block's own digest (one head read for both). */
    BlockProof proveLatest(List<Bytes> sortedKeys, ByteBudget budget) {
        Ledger.Head head = ledger.head();
        long n = head.block().number();
        return prove(n, sortedKeys, budget, head, ledger.keysProver(n, n));
    }

    /**
     * The proof charges its own parts as it collects them; then the claims are charged, before their values are
     * copied.
     */
    private BlockProof prove(long blockNo, List<Bytes> sortedKeys, ByteBudget budget, Ledger.Head head,
            BlockKeysProver prover) {
        // One traversal gives the proof and the entries its paths end on, which are the claims.
        BlockKeysProver.Proved p = prover.proveSorted(sortedKeys, budget);
        List<KeyClaim> claims = new ArrayList<>(sortedKeys.size());
        for (int i = 0; i < sortedKeys.size(); i++) {
            Bytes k = sortedKeys.get(i);
            Entry e = p.entries().get(i);
            budget.charge(e == null ? k.length() + 8 : e.encodedLength());
            claims.add(e == null || e.isTombstone() ? KeyClaim.absent(k) : KeyClaim.present(k, e.value()));
        }
        return new BlockProof(blockNo, head.digest(), claims, p.proof());
    }
}
