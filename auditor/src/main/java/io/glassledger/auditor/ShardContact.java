package io.glassledger.auditor;

import java.time.Clock;
import java.time.Duration;

/**
 * When the auditor last heard from one shard, and the last error its audit got, so that a dead shard is not taken for
 * a quiet one (an auditor once said {@code ok}, lag 0, for 14 minutes while a shard it audits was dead). Heard means
 * an answer 200 from any of the shard's replicas to any request ({@link ShardHttp}); silence counts from the
 * auditor's start until the first answer. A shard silent for longer than {@code glassledger.auditor.max-silence}
 * makes the auditor's readiness DOWN and its status not {@code ok} ({@link AuditorHealth}, {@link AuditController}).
 *
 * <p>Time comes from the given clock only, so a test can move it. Thread-safe: written by the shard's poll round,
 * read by the status route and the health probes.
 */
final class ShardContact {
    /**
     * What the status route and the health probes show, read at one instant.
     *
     * @param lastHeardAtMillis when a replica last answered; null: none since the auditor started
     * @param silentForMillis   how long ago that was (or the start, if none answered yet)
     * @param silent            longer than the bound, while the shard is being audited
     * @param lastError         what ended the last poll round early; null once a round succeeds
     * @param lastErrorAtMillis when that happened
     */
    record Report(Long lastHeardAtMillis, long silentForMillis, boolean silent, String lastError,
                  Long lastErrorAtMillis) {
    }

    private record Failure(String message, long atMillis) {
    }

    private final Clock clock;
    private final long maxSilenceMillis;
    private final long startedAtMillis;
    /** Negative until the first answer. */
    private volatile long lastHeardAtMillis = -1;
    private volatile Failure lastError;

    ShardContact(Clock clock, Duration maxSilence) {
        this.clock = clock;
        this.maxSilenceMillis = maxSilence.toMillis();
        this.startedAtMillis = clock.millis();
    }

    /** A replica answered a request. */
    void heard() {
        lastHeardAtMillis = clock.millis();
    }

    /** A poll round ended early: the shard did not answer, refused, or answered something the audit cannot use. */
    void failed(String message) {
        lastError = new Failure(message, clock.millis());
    }

    /** A poll round went through: the last error is over. */
    void roundSucceeded() {
        lastError = null;
    }

    /**
     * @param audited false once the shard's audit has halted at a violation: it is no longer polled, so its silence
     *                says nothing (the violation already makes the status not {@code ok})
     */
    Report report(boolean audited) {
        long now = clock.millis();
        long heard = lastHeardAtMillis;
        long silentFor = Math.max(0, now - (heard < 0 ? startedAtMillis : heard));
        Failure f = lastError;
        return new Report(heard < 0 ? null : heard, silentFor, audited && silentFor > maxSilenceMillis,
                f == null ? null : f.message(), f == null ? null : f.atMillis());
    }

    /** An exception as the status shows it: with its causes, since the JDK's HTTP client often has no message. */
    static String describe(Throwable e) {
        StringBuilder b = new StringBuilder(e.toString());
        Throwable c = e.getCause();
        for (int depth = 0; c != null && depth < 4; depth++, c = c.getCause()) {
            b.append("; caused by ").append(c);
        }
        return b.toString();
    }
}
