package io.glassledger.core.txn;

import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.LedgerException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Start-up recovery: replays the WAL's segments through {@link TxnStateMachine#applyRecord}, persists the sealed
 * epochs the ledger lacks, and puts the open epoch's decided transactions back into the committed-data map,
 * visible (they were acknowledged, or may have been). Runs once, on the opening thread, before the sequencer and
 * persisting threads start.
 */
final class Recovery {
    private Recovery() {
    }

    /**
     * @param head the ledger's last block at open
     * @throws LedgerException if the segments do not follow on from each other or from the ledger
     */
    static void replay(List<Wal.Segment> segs, long head, EngineLog log, TxnStateMachine state, Persister persister) {
        List<BlockSequencer.Epoch> sealed = new ArrayList<>();
        List<Map.Entry<SignedTransaction, Long>> openTxs = new ArrayList<>();
        Wal.Segment lastSeg = segs.isEmpty() ? null : segs.get(segs.size() - 1);
        int stopAt = lastSeg == null ? Integer.MAX_VALUE : log.replayLimit(lastSeg);
        for (Wal.Segment s : segs) {
            if (s.epochBase() != state.blocks.epochBase() || !state.blocks.isEmpty()) {
                throw new LedgerException("WAL segment " + s.path() + " starts at block " + s.epochBase()
                        + ", but replay is at " + state.blocks.epochBase());
            }
            List<Wal.Record> records = s == lastSeg ? s.records().subList(0, Math.min(stopAt, s.records().size()))
                    : s.records();
            for (Wal.Record r : records) {
                state.applyRecord(r, false, openTxs, sealed);
            }
        }
        for (BlockSequencer.Epoch e : sealed) {
            if (e.lastBlock() <= head) {
                continue;
            }
            if (e.firstBlock() <= head) {
                throw new LedgerException("ledger holds part of epoch " + e.firstBlock() + ".." + e.lastBlock());
            }
            persister.persist(e);
        }
        state.data.resetUnpersisted();  // replayed epochs were never staged, so persisting them drove the count below 0
        for (Map.Entry<SignedTransaction, Long> t : openTxs) {
            state.data.stage(t.getKey(), t.getValue(), true);
        }
    }
}
