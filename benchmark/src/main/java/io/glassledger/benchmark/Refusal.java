package io.glassledger.benchmark;

import io.glassledger.client.GlassLedgerException;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

/** How the benchmarks' closed-loop clients treat a refused commit: anything else is an error of the run. */
enum Refusal {
    /** OCC conflict, or a cross-shard transaction aborted: re-run it with fresh reads. */
    CONFLICT,
    /** The shard sheds load: back off 5–10 ms, then re-run. */
    OVERLOADED;

    /** Classifies {@code e}; rethrows it when it is neither. */
    static Refusal of(GlassLedgerException e) {
        if ("conflict".equals(e.code()) || GlassLedgerException.ABORTED.equals(e.code())) {
            return CONFLICT;
        }
        if ("overloaded".equals(e.code())) {
            return OVERLOADED;
        }
        throw e;
    }

    static void backOff(SplittableRandom r) {
        LockSupport.parkNanos(5_000_000 + r.nextInt(5_000_000));
    }

    /**
     * Whether a replicated shard refused because it has no leader yet (an election after a kill, which on a loaded
     * machine can outlast the client's own failover tries), a replica is restarting, or the killed replica refused the
     * connection (a retryable transport failure). Only a load that kills replicas on purpose re-runs such a transaction
     * ({@link #awaitLeader}); everywhere else it is a failure. A commit whose answer was lost is re-run as a new
     * transaction, which a load of random puts allows; its promise is not counted.
     */
    static boolean noLeaderYet(GlassLedgerException e) {
        return "not_leader".equals(e.code()) || "unavailable".equals(e.code())
                || GlassLedgerException.TRANSPORT.equals(e.code()) && e.retryable();
    }

    /** The pause before re-running a transaction that a shard without a leader refused: 50–100 ms. */
    static void awaitLeader(SplittableRandom r) {
        LockSupport.parkNanos(50_000_000 + r.nextInt(50_000_000));
    }
}
