package io.glassledger.client;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.verify.proof.KeyClaim;
import io.glassledger.verify.txn.Promise;
import io.glassledger.verify.txn.PromiseVerifier;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.Transaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What {@link Txn#commit()} returns: the shard's promise (GlassDB §3.3.3), the signed transaction it was given for,
 * the values the transaction read, and the outcome of checking it, which the background verifier completes: with a
 * {@link VerificationOutcome}, or exceptionally with an {@link IntegrityViolation} (or, if it could never be checked,
 * a {@link GlassLedgerException} such as {@code closed}). It never completes normally without the proofs verified.
 * A promise the shard has not proven by its deadline, with no evidence against it, is {@link #overdue()}: the check
 * goes on, and the outcome comes when the shard answers.
 */
public final class CommitPromise {
    private final Bytes txId;
    private final Promise promise;
    private final SignedTransaction signed;
    private final List<PromiseVerifier.Read> reads;
    private final CompletableFuture<VerificationOutcome> outcome = new CompletableFuture<>();
    private final long ackNanos;
    private final List<CommitPromise> parts;
    private volatile PromiseOverdue overdue;

    CommitPromise(Promise promise, SignedTransaction signed, List<PromiseVerifier.Read> reads, long ackNanos) {
        this.txId = signed.txId();
        this.promise = promise;
        this.signed = signed;
        this.reads = List.copyOf(reads);
        this.ackNanos = ackNanos;
        this.parts = List.of(this);
    }

    /**
     * A cross-shard transaction's promise: one part per participant, primary first. It reads as the primary's part
     * ({@link #promise()}, {@link #block()}, ...), and its check completes once every part verified, or fails with
     * the first part that failed.
     */
    private CommitPromise(List<CommitPromise> parts) {
        CommitPromise primary = parts.get(0);
        this.txId = primary.txId;
        this.promise = primary.promise;
        this.signed = primary.signed;
        this.reads = parts.stream().flatMap(p -> p.reads.stream()).toList();
        this.ackNanos = primary.ackNanos;
        this.parts = List.copyOf(parts);
        CompletableFuture<?>[] all = parts.stream().map(p -> p.outcome).toArray(CompletableFuture<?>[]::new);
        CompletableFuture.allOf(all).whenComplete((x, err) -> {
            if (err != null) {
                outcome.completeExceptionally(Violations.unwrap(err));
                return;
            }
            VerificationOutcome first = parts.get(0).outcome.join();
            int writes = 0;
            int readsChecked = 0;
            Duration latest = Duration.ZERO;
            for (CommitPromise p : parts) {
                VerificationOutcome o = p.outcome.join();
                writes += o.writesChecked();
                readsChecked += o.readsChecked();
                latest = o.latency().compareTo(latest) > 0 ? o.latency() : latest;
            }
            outcome.complete(new VerificationOutcome(txId, first.block(), first.digest(), writes, readsChecked,
                    latest));
        });
        // A part that fails fails the whole at once, without waiting for the others.
        for (CommitPromise p : parts) {
            p.outcome.whenComplete((o, err) -> {
                if (err != null) {
                    outcome.completeExceptionally(Violations.unwrap(err));
                }
            });
        }
    }

    static CommitPromise combined(List<CommitPromise> parts) {
        return parts.size() == 1 ? parts.get(0) : new CommitPromise(parts);
    }

    /** Each participant's promise, primary first: just this one for a single-shard transaction. */
    public List<CommitPromise> parts() {
        return parts;
    }

    /** Whether more than one shard took part (two-phase commit). */
    public boolean crossShard() {
        return parts.size() > 1;
    }

    /** A transaction with neither reads nor writes: nothing was sent, nothing to check. */
    static CommitPromise nothing(Bytes txId) {
        CommitPromise p = new CommitPromise(txId);
        p.outcome.complete(new VerificationOutcome(txId, 0, null, 0, 0, Duration.ZERO));
        return p;
    }

    private CommitPromise(Bytes txId) {
        this.txId = txId;
        this.promise = null;
        this.signed = null;
        this.reads = List.of();
        this.ackNanos = System.nanoTime();
        this.parts = List.of(this);
    }

    public Bytes txId() {
        return txId;
    }

    /** The shard's promise; null when the transaction committed nothing ({@link #committedNothing()}). */
    public Promise promise() {
        return promise;
    }

    /** The signed transaction; null when the transaction committed nothing. */
    public SignedTransaction signedTransaction() {
        return signed;
    }

    public Transaction transaction() {
        return signed == null ? null : signed.tx();
    }

    /** The promised block; 0 for a read-only transaction, which lands in no block, and for an empty one. */
    public long block() {
        return promise == null ? 0 : promise.blockNo();
    }

    public boolean committedNothing() {
        return promise == null;
    }

    /** The values read, with the versions read: what the background verifier checks besides the writes. */
    public List<PromiseVerifier.Read> reads() {
        return reads;
    }

    /**
     * Set once the shard has not proven this promise by its deadline, and stays set after it is proven late (see
     * {@link PromiseOverdue}); for a cross-shard transaction, the first part that went overdue. Empty otherwise.
     */
    public java.util.Optional<PromiseOverdue> overdue() {
        if (parts.size() > 1) {
            return parts.stream().map(p -> p.overdue).filter(java.util.Objects::nonNull).findFirst();
        }
        return java.util.Optional.ofNullable(overdue);
    }

    /** Marks this promise overdue; true the first time. */
    boolean markOverdue(PromiseOverdue o) {
        synchronized (this) {
            if (overdue != null) {
                return false;
            }
            overdue = o;
            return true;
        }
    }

    /** The check's outcome. A copy of the verifier's future: completing it does not complete the check. */
    public CompletableFuture<VerificationOutcome> verification() {
        return outcome.copy();
    }

    CompletableFuture<VerificationOutcome> outcome() {
        return outcome;
    }

    long ackNanos() {
        return ackNanos;
    }

    List<Mutation> writes() {
        return signed == null ? List.of() : signed.tx().writes();
    }

    /** The claims this promise makes, for evidence: each write's value (null: deleted), then each read's. */
    List<KeyClaim> claims() {
        List<KeyClaim> out = new ArrayList<>();
        for (Mutation m : writes()) {
            out.add(new KeyClaim(m.key(), m.value()));
        }
        for (PromiseVerifier.Read r : reads) {
            out.add(new KeyClaim(r.key(), r.value()));
        }
        return out;
    }

    @Override
    public String toString() {
        if (promise == null) {
            return "tx " + txId.hex() + ": nothing to commit";
        }
        if (parts.size() > 1) {
            return "promise: tx " + txId.hex() + " across shards " + parts.stream().map(p -> p.promise.shard())
                    .toList() + ": " + parts.stream().map(CommitPromise::toString).toList();
        }
        return "promise: tx " + txId.hex() + " of shard " + promise.shard()
                + (promise.readOnly() ? " (read-only)" : " in block " + promise.blockNo()) + ", served at "
                + promise.served() + ", " + signed.tx().writes().size() + " writes, " + reads.size() + " reads";
    }
}
