package io.glassledger.client;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.proof.SignedHead;
import java.time.Duration;
import java.util.List;

/**
 * A promise the shard has not proven by its deadline: unavailability, not cheating. A verifiable ledger accuses its
 * operator only on evidence a third party can check (an {@link IntegrityViolation}: a proof or signed head that
 * contradicts the promise, an append-only proof that fails, two heads of one block). A shard that does not answer,
 * answers {@code replica_behind}, {@code unavailable} or {@code PENDING}, or says it never promised the block, has
 * shown nothing anyone could check: its replicas may be failing over, a quorum may be down, or the operator may be
 * withholding the proof. The promise is then <em>overdue</em>.
 *
 * <p>An overdue promise is reported once, to {@link ClientConfig#overdueHandler()}, and stays in the verifier: it is
 * asked for again with backoff (at most {@link #RETRY_CAP} apart), at any replica, until the shard proves it (the
 * promise's future then completes with its {@link VerificationOutcome}), answers with evidence against it (an
 * {@link IntegrityViolation}), or the client closes ({@code closed}). Its place in
 * {@link ClientConfig#maxUnverifiedPromises} stays taken meanwhile, so a shard that stays silent pushes back on new
 * commits with {@code verifier_backlog} rather than letting unproven promises pile up. Its future does not complete
 * with this: an application that must not wait reads {@link CommitPromise#overdue()}.
 *
 * <p>Code {@code promise_overdue}, status 0, retryable.
 */
public final class PromiseOverdue extends GlassLedgerException {
    /** The code of this exception. */
    public static final String CODE = "promise_overdue";
    /** The longest pause between two requests for an overdue promise's proofs. */
    public static final Duration RETRY_CAP = Duration.ofSeconds(5);

    private final transient Bytes txId;
    private final int shard;
    private final long block;
    private final String lastAnswer;
    private final transient List<SignedHead> headsSeen;

    PromiseOverdue(Bytes txId, int shard, long block, Duration late, String lastAnswer, List<SignedHead> headsSeen) {
        super(CODE, 0, true, "tx " + txId.hex() + " of shard " + shard + " in block " + block + " is not proven "
                + late + " after its acknowledgement; the shard last answered: " + lastAnswer
                + " (not evidence of cheating: asked again until it proves or disproves it)", null, null);
        this.txId = txId;
        this.shard = shard;
        this.block = block;
        this.lastAnswer = lastAnswer;
        this.headsSeen = List.copyOf(headsSeen);
    }

    /** The overdue transaction. */
    public Bytes txId() {
        return txId;
    }

    public int shard() {
        return shard;
    }

    /** The block the shard promised the transaction in. */
    public long block() {
        return block;
    }

    /** What the shard last answered instead of the proof: a problem's code and detail, or {@code PENDING}. */
    public String lastAnswer() {
        return lastAnswer;
    }

    /** The verified signed heads of the shard the client had seen when the promise went overdue, oldest first. */
    public List<SignedHead> headsSeen() {
        return headsSeen;
    }
}
