package io.glassledger.client;

import java.time.Duration;

/**
 * A request the server refused or the client could not complete: the problem's {@code code} (docs/API.md, Errors),
 * its HTTP status, whether a retry can succeed, and the detail. Client-side codes have status 0:
 * {@code transport} (no answer; retryable), {@code bad_response} (an answer that is not what the API specifies),
 * {@code pending} (a proof's block is not persisted yet; retryable), {@code closed} (the client was closed), and for
 * cross-shard transactions {@code aborted} (retryable), {@code incomplete} and {@code outcome_unknown}.
 *
 * <p>Never used for a proof that fails or a ledger that forks: that is an {@link IntegrityViolation}.
 */
public class GlassLedgerException extends RuntimeException {
    public static final String TRANSPORT = "transport";
    public static final String BAD_RESPONSE = "bad_response";
    public static final String PENDING = "pending";
    public static final String CLOSED = "closed";
    /**
     * Local, retryable: the shard's background verifier already holds {@link ClientConfig#maxUnverifiedPromises}
     * unchecked promises, so the commit was refused before anything was sent.
     */
    public static final String VERIFIER_BACKLOG = "verifier_backlog";
    /** A cross-shard transaction was aborted (its primary decided so, for example after a prepare timeout). */
    public static final String ABORTED = "aborted";
    /**
     * A cross-shard transaction committed (its primary recorded the decision) but a participant did not acknowledge
     * it in time, or the primary did not hand out its promise; a shard that did not acknowledge applies the decision
     * itself once reachable (docs/ARCHITECTURE.md, Cluster).
     */
    public static final String INCOMPLETE = "incomplete";
    /**
     * The primary did not answer the commit with its promise and, asked for its state, reported no decision or could
     * not be asked in time. No other participant was told anything; the shards resolve it among themselves after
     * their prepare timeout (committed only if the primary committed). Not retryable as such: read the transaction's
     * keys to learn what happened.
     */
    public static final String OUTCOME_UNKNOWN = "outcome_unknown";

    private final String code;
    private final int status;
    private final boolean retryable;
    private final String detail;
    private final Duration retryAfter;

    public GlassLedgerException(String code, int status, boolean retryable, String detail, Duration retryAfter,
                                Throwable cause) {
        super(code + (status > 0 ? " (HTTP " + status + ")" : "") + (detail == null ? "" : ": " + detail), cause);
        this.code = code;
        this.status = status;
        this.retryable = retryable;
        this.detail = detail;
        this.retryAfter = retryAfter;
    }

    public GlassLedgerException(String code, int status, boolean retryable, String detail) {
        this(code, status, retryable, detail, null, null);
    }

    static GlassLedgerException transport(String detail, Throwable cause) {
        return new GlassLedgerException(TRANSPORT, 0, true, detail, null, cause);
    }

    static GlassLedgerException badResponse(String detail, Throwable cause) {
        return new GlassLedgerException(BAD_RESPONSE, 0, false, detail, null, cause);
    }

    /** The problem's {@code code}: {@code conflict}, {@code overloaded}, ... or a client-side code above. */
    public String code() {
        return code;
    }

    /** The HTTP status, or 0 when the server did not answer with one. */
    public int status() {
        return status;
    }

    public boolean retryable() {
        return retryable;
    }

    public String detail() {
        return detail;
    }

    /** The server's {@code Retry-After} (with {@code overloaded}), or null. */
    public Duration retryAfter() {
        return retryAfter;
    }
}
