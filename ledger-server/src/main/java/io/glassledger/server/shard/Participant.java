package io.glassledger.server.shard;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.txn.Promise;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.core.txn.TxState;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * This shard's side of phase two of a cross-shard transaction (docs/FORMAT.md §17.2): a decision asked for by the
 * client is applied here only if it is the decision of the transaction's primary participant (the first in its
 * participant list), so that no client, proxy or lost answer can split a transaction.
 * <ul>
 *   <li>Here as primary (or for a transaction not prepared here: the engine answers from its record), the request
 *       is the decision and is recorded as asked.</li>
 *   <li>Elsewhere a commit asks the primary {@code GET /v1/tx/{id}} and applies what it answers; an abort asks the
 *       primary {@code POST /v1/tx/{id}/resolve} (which records an abort there if the primary has no decision) and
 *       applies what it answers. A decision that is the other way from the one asked is applied too, and the
 *       request is then refused with {@code already_decided}.</li>
 *   <li>A primary that holds the transaction prepared, or has never seen it, has decided nothing: refused with
 *       {@link Refused} {@code undecided}. An admin may decide a transaction whose primary no longer remembers it
 *       ({@link TxState#UNKNOWN}, older than the primary's decision retention): the operator's way out named by
 *       {@link Resolver}'s log.</li>
 *   <li>A primary that cannot be asked: refused with {@link Refused} {@code primary_unreachable} (503, retryable);
 *       nothing changes here.</li>
 * </ul>
 * Thread-safe; never blocks the caller's thread.
 */
@org.springframework.stereotype.Component
public class Participant {
    private final Shard shard;
    private final PeerLink peers;

    public Participant(Shard shard, PeerLink peers) {
        this.shard = shard;
        this.peers = peers;
    }

    /** A phase-two request refused because the primary's decision does not allow it; nothing changed here. */
    public static final class Refused extends RuntimeException {
        private final String code;
        private final int status;
        private final boolean retryable;

        Refused(String code, int status, boolean retryable, String detail, Throwable cause) {
            super(detail, cause);
            this.code = code;
            this.status = status;
            this.retryable = retryable;
        }

        public String code() {
            return code;
        }

        public int status() {
            return status;
        }

        public boolean retryable() {
            return retryable;
        }
    }

    /** Commits {@code txId} here if its primary committed it; the promise as {@code TxnEngine.decide} gives it. */
    public CompletableFuture<Promise> commit(Bytes txId, boolean admin) {
        return decide(txId, true, admin);
    }

    /** Aborts {@code txId} here if its primary aborted it (recording the abort there if it had no decision). */
    public CompletableFuture<Promise> abort(Bytes txId, boolean admin) {
        return decide(txId, false, admin);
    }

    private CompletableFuture<Promise> decide(Bytes txId, boolean commit, boolean admin) {
        Optional<SignedTransaction> stx = shard.engine().prepared(txId);
        int primary = stx.map(s -> s.tx().participants().get(0)).orElse(shard.number());
        if (primary == shard.number()) {
            return shard.engine().decide(txId, commit);
        }
        CompletableFuture<TxState> asked = commit ? peers.status(primary, txId) : peers.resolve(primary, txId);
        return asked.handle((state, err) -> {
            if (err != null) {
                Throwable c = err instanceof java.util.concurrent.CompletionException && err.getCause() != null
                        ? err.getCause() : err;
                throw new Refused("primary_unreachable", 503, true, "cannot learn the decision of transaction "
                        + txId.hex() + " from its primary shard " + primary + " (" + c.getMessage() + "); nothing "
                        + "was changed here", c);
            }
            return state;
        }).thenCompose(state -> switch (state) {
            case COMMITTED -> follow(txId, true, commit, primary);
            case ABORTED -> follow(txId, false, commit, primary);
            case UNKNOWN -> {
                if (admin) {
                    yield shard.engine().decide(txId, commit);
                }
                throw undecided(txId, primary, "has no record of it", false);
            }
            case PREPARED -> throw undecided(txId, primary, "holds it prepared and has not decided", true);
        });
    }

    /** Applies the primary's decision; refuses the request afterwards if it asked for the other one. */
    private CompletableFuture<Promise> follow(Bytes txId, boolean decided, boolean asked, int primary) {
        CompletableFuture<Promise> applied = shard.engine().decide(txId, decided);
        if (decided == asked) {
            return applied;
        }
        return applied.thenApply(p -> {
            throw new Refused("already_decided", 409, false, "transaction " + txId.hex() + " was "
                    + (decided ? "committed" : "aborted") + " by its primary shard " + primary + "; applied so here",
                    null);
        });
    }

    private static Refused undecided(Bytes txId, int primary, String why, boolean retryable) {
        return new Refused("undecided", 409, retryable, "the primary shard " + primary + " of transaction "
                + txId.hex() + " " + why + ": decide it there first; nothing was changed here", null);
    }
}
