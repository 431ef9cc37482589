package io.glassledger.core.txn;

import io.glassledger.core.txn.TxnException.Reason;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * The engine's counters since start ({@link TxnEngine#stats()}). Written by the worker, sequencer and persisting
 * threads without locks (each counter is a {@link LongAdder}); read by any thread.
 */
final class EngineCounters {
    final LongAdder committed = new LongAdder();
    final LongAdder readOnly = new LongAdder();
    final LongAdder walSyncs = new LongAdder();
    final LongAdder walSyncNanos = new LongAdder();
    final LongAdder sequenced = new LongAdder();
    final LongAdder validateNanos = new LongAdder();
    final LongAdder epochs = new LongAdder();
    final LongAdder blocks = new LongAdder();
    final LongAdder keys = new LongAdder();
    final LongAdder persistNanos = new LongAdder();
    private final Map<Reason, LongAdder> aborted = new EnumMap<>(Reason.class);

    EngineCounters() {
        for (Reason r : Reason.values()) {
            aborted.put(r, new LongAdder());
        }
    }

    /** Refuses a request: counts {@code e}'s reason and completes {@code f} with it. */
    void abort(CompletableFuture<?> f, TxnException e) {
        aborted.get(e.reason()).increment();
        f.completeExceptionally(e);
    }

    /** The counters now, with the proof batcher's and the unpersisted backlog. */
    TxnEngine.Stats stats(ProofBatcher proofs, long unpersistedWrites) {
        return new TxnEngine.Stats(committed.sum(), readOnly.sum(), aborted(), walSyncs.sum(), walSyncNanos.sum(),
                sequenced.sum(), validateNanos.sum(), epochs.sum(), blocks.sum(), keys.sum(), persistNanos.sum(),
                proofs.batches(), proofs.keys(), proofs.nanos(), unpersistedWrites);
    }

    private Map<Reason, Long> aborted() {
        Map<Reason, Long> ab = new EnumMap<>(Reason.class);
        aborted.forEach((r, a) -> ab.put(r, a.sum()));
        return ab;
    }
}
