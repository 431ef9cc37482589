package io.glassledger.client.cli;

/**
 * {@code ledger-cli}'s exit statuses, one per kind of outcome, so a script can tell a lying server from a typo or a
 * server that is down. Documented in {@link LedgerCli#USAGE} and the README; tests assert them.
 */
final class Exit {
    /** Done; for {@code verify} and {@code evidence}: the file proves what it claims. */
    static final int OK = 0;
    /**
     * Failed otherwise: a saved proof or evidence file that does not verify, a local file that cannot be read or
     * written, a commit not verified within {@code --timeout}, a key absent for {@code get --out}, a cross-shard
     * {@code tx} left {@code incomplete} or of {@code outcome_unknown}.
     */
    static final int FAILED = 1;
    /** The command line is wrong or contradicts itself (a missing argument, an unknown option, two sources). */
    static final int USAGE = 2;
    /** INTEGRITY VIOLATION: the server's answer contradicts what this client verified before (evidence kept). */
    static final int VIOLATION = 3;
    /** No answer: the server is not reachable, its TLS certificate is not trusted or not the pinned one, a timeout. */
    static final int TRANSPORT = 4;
    /**
     * The server answered with a refusal (an RFC 9457 problem: its code is printed), such as a {@code conflict} that
     * {@code tx} still met after its retries; or a cross-shard transaction's primary shard aborted it.
     */
    static final int REFUSED = 5;

    private Exit() {
    }
}
