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
}
