package io.glassledger.client;

import io.glassledger.api.Dto;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.txn.PromiseVerifier;
import io.glassledger.verify.txn.SignedTransaction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One cross-shard commit, coordinated by the client (GlassDB §3.3.2) with the decision made durable at the primary
 * participant (the first in the participant list) before any other participant hears it:
 * <ol>
 *   <li>prepare at every participant, in parallel;</li>
 *   <li>all voted yes: commit at the primary, which records the decision; then at the others, in parallel. A
 *       participant that does not answer in time applies the decision itself once it asks the primary. Any answer
 *       from the primary other than its promise is followed by asking it for its recorded state (GET
 *       /v1/tx/{id}), and only that state is passed on; without one the caller gets {@code outcome_unknown};</li>
 *   <li>otherwise: abort at the primary first (a durable no), then at the others.</li>
 * </ol>
 * Requests that get no answer are repeated until {@link ClientConfig#requestTimeout()} has passed: deciding is
 * idempotent at the server, and a decision once recorded is what every later request learns.
 */
final class TwoPhaseCommit {
    private final GlassLedgerClient client;
    private final Bytes txId;
    private final List<Integer> participants;
    private final Map<Integer, SignedTransaction> signed;
    private final Map<Integer, List<PromiseVerifier.Read>> reads;
    private final long deadline;

    TwoPhaseCommit(GlassLedgerClient client, Bytes txId, List<Integer> participants,
                   Map<Integer, SignedTransaction> signed, Map<Integer, List<PromiseVerifier.Read>> reads) {
        this.client = client;
        this.txId = txId;
        this.participants = List.copyOf(participants);
        this.signed = signed;
        this.reads = reads;
        this.deadline = System.nanoTime() + client.config().requestTimeout().toNanos();
    }

    CompletableFuture<CommitPromise> run() {
        Map<Integer, TrustedState> before = new java.util.HashMap<>();
        participants.forEach(p -> before.put(p, client.shardLink(p).trust.current()));
        List<CompletableFuture<Dto.TxStateDto>> votes = new ArrayList<>();
        for (int p : participants) {
            votes.add(client.shardLink(p).prepare(signed.get(p)));
        }
        return settle(votes).thenCompose(x -> {
            for (int i = 0; i < votes.size(); i++) {
                if (votes.get(i).isCompletedExceptionally()) {
                    return abortAll(noVote(participants.get(i), cause(votes.get(i))));
                }
            }
            int primary = participants.get(0);
            return retrying(() -> client.shardLink(primary).decideCommit(txId)).handle((dto, err) -> err == null
                    ? commitOthers(dto, before) : afterPrimaryFailed(Violations.unwrap(err), before))
                    .thenCompose(f -> f);
        });
    }

    /**
     * A prepare that got no vote: no answer (a leader died with the request), or the group still without a leader
     * when the request's time ran out. No commit was sent, so nothing can have committed: once the abort is
     * recorded the transaction is refused as {@code aborted}, retryable, which {@link
     * GlassLedgerClient#runTransaction} runs again, instead of a transport error. A refusal (a conflict, a bad
     * request) stays what it is.
     */
    private Throwable noVote(int shard, Throwable failure) {
        if (failure instanceof GlassLedgerException g && (GlassLedgerException.TRANSPORT.equals(g.code())
                || g.retryable() && g.status() >= 500)) {
            return new GlassLedgerException(GlassLedgerException.ABORTED, 0, true, "transaction " + txId.hex()
                    + " was aborted before any commit: shard " + shard + " gave no vote on its prepare ("
                    + g.getMessage() + "); nothing was committed, it may be run again", null, g);
        }
        return failure;
    }

    /**
     * The primary's answer to the commit was not a promise: a refusal, an error from something in between (which
     * may come after the primary committed), or none at all. Only the primary's recorded state tells which, so it
     * is asked before any other participant hears anything: committed, the others commit; aborted, they abort; no
     * decision or no answer, nobody else is touched and the caller gets {@code outcome_unknown}.
     */
    private CompletableFuture<CommitPromise> afterPrimaryFailed(Throwable failure, Map<Integer, TrustedState> before) {
        int primary = participants.get(0);
        return retrying(() -> client.shardLink(primary).status(txId)).handle((st, err) -> {
            String state = err == null && st != null ? st.state() : null;
            if ("COMMITTED".equals(state)) {
                // Committing again is idempotent and answers the recorded promise, which the caller needs.
                return retrying(() -> client.shardLink(primary).decideCommit(txId)).handle((dto, again) -> again == null
                        ? commitOthers(dto, before) : committedWithoutPrimaryPromise(Violations.unwrap(again)))
                        .thenCompose(f -> f);
            }
            if ("PREPARED".equals(state)) {
                return abortUndecided(failure, before);
            }
            if ("ABORTED".equals(state)) {
                return abortAll(new GlassLedgerException(GlassLedgerException.ABORTED, failure instanceof
                        GlassLedgerException g ? g.status() : 0, true, "transaction " + txId.hex() + " was aborted by "
                        + "its primary shard " + primary + " (" + failure.getMessage() + ")", null, failure));
            }
            String why = state != null ? "it reports " + state : "it could not be asked ("
                    + Violations.unwrap(err).getMessage() + ")";
            return CompletableFuture.<CommitPromise>failedFuture(new GlassLedgerException(
                    GlassLedgerException.OUTCOME_UNKNOWN, 0, false, "primary shard " + primary + " did not answer the "
                    + "commit of transaction " + txId.hex() + " with a decision (" + failure.getMessage() + ") and "
                    + why + "; no other shard was told anything, and the shards resolve it themselves after their "
                    + "prepare timeout", null, failure));
        }).thenCompose(f -> f);
    }

    /**
     * The primary holds the transaction prepared with no decision: the commit that got no answer was lost (the new
     * leader would have applied it otherwise) or is still on its way. Deciding abort at the primary settles it
     * either way, in the order its log applies the two: recorded, the transaction is refused as {@code aborted}
     * (retryable); {@code already_decided}, the commit came first, and its promise is fetched as if it had answered.
     */
    private CompletableFuture<CommitPromise> abortUndecided(Throwable failure, Map<Integer, TrustedState> before) {
        int primary = participants.get(0);
        return retrying(() -> client.shardLink(primary).decideAbort(txId)).handle((st, err) -> {
            if (err == null) {
                return abortAll(new GlassLedgerException(GlassLedgerException.ABORTED, 0, true, "transaction "
                        + txId.hex() + " was aborted at its primary shard " + primary + ", whose commit got no answer ("
                        + failure.getMessage() + ") and left it undecided; nothing was committed, it may be run "
                        + "again", null, failure));
            }
            Throwable t = Violations.unwrap(err);
            if (t instanceof GlassLedgerException g && "already_decided".equals(g.code())) {
                return retrying(() -> client.shardLink(primary).decideCommit(txId)).handle((dto, again) ->
                        again == null ? commitOthers(dto, before)
                                : committedWithoutPrimaryPromise(Violations.unwrap(again))).thenCompose(f -> f);
            }
            return CompletableFuture.<CommitPromise>failedFuture(new GlassLedgerException(
                    GlassLedgerException.OUTCOME_UNKNOWN, 0, false, "primary shard " + primary + " holds transaction "
                    + txId.hex() + " prepared and undecided after its commit got no answer (" + failure.getMessage()
                    + "), and its abort was not recorded either (" + t.getMessage() + "); the shards resolve it "
                    + "after their prepare timeout", null, failure));
        }).thenCompose(f -> f);
    }

    /** The primary recorded the commit but will not hand out its promise: the others still commit. */
    private CompletableFuture<CommitPromise> committedWithoutPrimaryPromise(Throwable failure) {
        List<CompletableFuture<Dto.PromiseDto>> acks = new ArrayList<>();
        for (int p : participants.subList(1, participants.size())) {
            acks.add(retrying(() -> client.shardLink(p).decideCommit(txId)));
        }
        return settle(acks).thenApply(x -> {
            throw new GlassLedgerException(GlassLedgerException.INCOMPLETE, 0, false, "transaction " + txId.hex()
                    + " committed (decision recorded at primary shard " + participants.get(0) + ", which did not "
                    + "answer with its promise: " + failure.getMessage() + "); the other shards were told to commit "
                    + "it, and any that did not acknowledge commit it when they ask the primary", null, failure);
        });
    }

    private CompletableFuture<CommitPromise> commitOthers(Dto.PromiseDto primaryDto, Map<Integer, TrustedState> before) {
        List<CompletableFuture<Dto.PromiseDto>> acks = new ArrayList<>();
        acks.add(CompletableFuture.completedFuture(primaryDto));
        for (int p : participants.subList(1, participants.size())) {
            acks.add(retrying(() -> client.shardLink(p).decideCommit(txId)));
        }
        return settle(acks).thenApply(x -> {
            List<CommitPromise> parts = new ArrayList<>();
            List<Integer> silent = new ArrayList<>();
            for (int i = 0; i < participants.size(); i++) {
                int p = participants.get(i);
                CompletableFuture<Dto.PromiseDto> a = acks.get(i);
                if (a.isCompletedExceptionally()) {
                    silent.add(p);
                    continue;
                }
                parts.add(client.shardLink(p).accept("/v1/tx/" + txId.hex() + "/commit", signed.get(p), reads.get(p),
                        a.join(), before.get(p), client.config()));
            }
            if (!silent.isEmpty()) {
                throw new GlassLedgerException(GlassLedgerException.INCOMPLETE, 0, false, "transaction "
                        + txId.hex() + " committed (decision recorded at primary shard " + participants.get(0)
                        + ") but shards " + silent + " did not acknowledge in time; they commit it when they ask the "
                        + "primary", null, cause(acks.get(participants.indexOf(silent.get(0)))));
            }
            return CommitPromise.combined(parts);
        });
    }

    /**
     * Primary first, so the abort is recorded there before anyone else releases; best effort elsewhere. Then fails
     * with {@code failure}, unless a shard answered {@code already_decided}: the primary committed (a participant
     * asks the primary, and applies its decision), so the caller gets {@code outcome_unknown} instead.
     */
    private CompletableFuture<CommitPromise> abortAll(Throwable failure) {
        int primary = participants.get(0);
        List<Integer> committed = new java.util.concurrent.CopyOnWriteArrayList<>();
        return retrying(() -> client.shardLink(primary).decideAbort(txId)).handle((x, e) -> decidedOtherwise(e,
                        primary, committed))
                .thenCompose(x -> {
                    List<CompletableFuture<?>> rest = new ArrayList<>();
                    for (int p : participants.subList(1, participants.size())) {
                        rest.add(client.shardLink(p).decideAbort(txId).handle((y, e) -> decidedOtherwise(e, p,
                                committed)));
                    }
                    return CompletableFuture.allOf(rest.toArray(new CompletableFuture<?>[0]));
                }).thenCompose(x -> CompletableFuture.failedFuture(committed.isEmpty() ? failure
                        : new GlassLedgerException(GlassLedgerException.OUTCOME_UNKNOWN, 0, false, "transaction "
                                + txId.hex() + " was to be aborted (" + failure.getMessage() + "), but shards "
                                + committed + " answered that its primary shard " + primary + " committed it",
                                null, failure)));
    }

    private static Void decidedOtherwise(Throwable err, int shard, List<Integer> committed) {
        if (err != null && Violations.unwrap(err) instanceof GlassLedgerException g
                && "already_decided".equals(g.code())) {
            committed.add(shard);
        }
        return null;
    }

    /** Repeats {@code call} on a transport failure or a retryable refusal, with backoff, until the deadline. */
    private <T> CompletableFuture<T> retrying(Supplier<CompletableFuture<T>> call) {
        return attempt(call, 0);
    }

    private <T> CompletableFuture<T> attempt(Supplier<CompletableFuture<T>> call, int n) {
        return call.get().handle((v, err) -> {
            if (err == null) {
                return CompletableFuture.completedFuture(v);
            }
            Throwable t = Violations.unwrap(err);
            long ms = Math.min(1000, 20L << Math.min(n, 6));
            ms = ms / 2 + ThreadLocalRandom.current().nextLong(ms / 2 + 1);
            if (t instanceof GlassLedgerException g && g.retryable()
                    && System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms) < deadline) {
                return CompletableFuture.runAsync(() -> { },
                        CompletableFuture.delayedExecutor(ms, TimeUnit.MILLISECONDS)).thenCompose(y -> attempt(call, n + 1));
            }
            return CompletableFuture.<T>failedFuture(t);
        }).thenCompose(f -> f);
    }

    private static CompletableFuture<Void> settle(List<? extends CompletableFuture<?>> fs) {
        return CompletableFuture.allOf(fs.stream().map(f -> f.handle((v, e) -> null))
                .toArray(CompletableFuture<?>[]::new));
    }

    private static Throwable cause(CompletableFuture<?> f) {
        try {
            f.join();
            return null;
        } catch (RuntimeException e) {
            return Violations.unwrap(e);
        }
    }
}
