package io.glassledger.core.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.block.BlockSpec;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.block.Block;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.core.store.InMemoryNodeStore;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.TxnDraft;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The auditor's block check against an operator who forms blocks itself: honest blocks pass; a block whose state no
 * serial order produces, a stale read, and a replayed transaction (re-appended later, or with an id outside the
 * window) are each reported with the transaction that shows it.
 */
class BlockAuditTest {
    private static final long T0 = 1_800_000_000_000L;
    private static final long WINDOW = Duration.ofMinutes(3).toMillis();
    private final SigningKey client = SigningKey.generate();
    private final Ledger shard = Ledger.openOrCreate(new InMemoryNodeStore(), TreeParams.DEFAULT, T0);
    private final Ledger auditor = Ledger.openOrCreate(new InMemoryNodeStore(), TreeParams.DEFAULT, T0);
    private final RecentTxIds recent = new RecentTxIds(WINDOW);
    private long ts = T0;

    private static Bytes b(String s) {
        return Bytes.utf8(s);
    }

    private TxnDraft draft(long clock) {
        return new TxnDraft(client, 0, clock);
    }

    /** The operator appends a block of these transactions to its ledger; the auditor audits it. */
    private BlockAudit.Outcome serve(SignedTransaction... txs) {
        ts += 1000;
        Block theirs = shard.append(List.of(BlockSpec.of(ts, List.of(txs)))).get(0);
        return BlockAudit.replay(auditor, 0, theirs, List.of(txs), k -> true, recent);
    }

    @Test
    void honestBlocksPass_includingReadsOfTheBlocksOwnEarlierWritesAndDeletesOfAbsentKeys() {
        assertNull(serve(draft(T0).put(b("a"), b("1")).sign(), draft(T0).read(b("a"), 1).put(b("b"), b("2")).sign())
                .kind());
        // A delete of a key never written moves no version: a later reader of the same block still reads 0.
        assertNull(serve(draft(T0).read(b("a"), 1).delete(b("ghost")).put(b("c"), b("3")).sign(),
                draft(T0).read(b("ghost"), 0).read(b("b"), 1).put(b("d"), b("4")).sign()).kind());
        assertNull(serve(draft(T0).read(b("a"), 1).delete(b("a")).sign(), draft(T0).read(b("a"), 3).put(b("e"),
                b("5")).sign()).kind());
        assertEquals(shard.digest(), auditor.digest());
        assertEquals(6, recent.size());
    }

    /** The example, as blocks formed by the old rule: block 11 shows T3 without T2, which read K before T3. */
    @Test
    void aBlockShowingALaterWriterWithoutTheEarlierReaderOfItsKey_isAStaleRead() {
        assertNull(serve(draft(T0).put(b("L"), b("0")).put(b("K"), b("1")).sign()).kind());   // block 1: T0 + T1
        assertNull(serve(draft(T0).put(b("L"), b("0b")).sign(),                                   // block 2: T0b, T3
                draft(T0).put(b("K"), b("3")).sign()).kind());
        BlockAudit.Outcome o = serve(draft(T0).read(b("K"), 1).put(b("L"), b("2")).sign());       // block 3: T2
        assertEquals("stale_read", o.kind(), o.detail());
        assertEquals(b("K"), o.key());
        assertEquals(2L, o.version());
        assertEquals(2, auditor.head().block().number(), "a refused block is not appended");
    }

    @Test
    void aReadOfAVersionAlreadyOverwrittenInTheSameBlock_isAStaleRead() {
        assertNull(serve(draft(T0).put(b("k"), b("1")).sign()).kind());
        BlockAudit.Outcome o = serve(draft(T0).read(b("k"), 1).put(b("k"), b("2")).sign(),
                draft(T0).read(b("k"), 1).put(b("x"), b("y")).sign());
        assertEquals("stale_read", o.kind(), o.detail());
        assertEquals(2L, o.version());
    }

    /** An operator re-appends a client's old, validly signed {@code put balance=100} after the client wrote 50. */
    @Test
    void anOldSignedWriteAppendedAgain_isAReplayNamingTheBlockThatCarriedIt() {
        SignedTransaction hundred = draft(T0).put(b("balance"), b("100")).sign();
        assertNull(serve(hundred).kind());
        assertNull(serve(draft(T0 + 5000).read(b("balance"), 1).put(b("balance"), b("50")).sign()).kind());
        BlockAudit.Outcome o = serve(hundred);
        assertEquals("replayed_transaction", o.kind(), o.detail());
        assertEquals(hundred.txId(), o.txId());
        assertEquals(1L, o.earlierBlock());
    }

    @Test
    void anIdOutsideTheWindowOfItsBlock_isAReplay_andIdsOlderThanTheWindowAreForgotten() {
        assertNull(serve(draft(T0).put(b("k"), b("1")).sign()).kind());
        ts += WINDOW + 10_000;
        BlockAudit.Outcome o = serve(draft(T0).put(b("j"), b("1")).sign());
        assertEquals("replayed_transaction", o.kind(), o.detail());
        assertNull(o.earlierBlock());
        assertTrue(o.detail().contains("outside the replay window"), o.detail());
        RecentTxIds fresh = new RecentTxIds(WINDOW);
        fresh.add(1, T0, List.of(draft(T0).put(b("k"), b("1")).sign().txId()));
        fresh.add(2, T0 + WINDOW + 1, List.of(draft(T0 + WINDOW).put(b("k"), b("1")).sign().txId()));
        assertEquals(1, fresh.size(), "an id no later block may carry is forgotten");
    }

    @Test
    void theMemoryIsRebuiltFromTheAuditedLedger_soAReplayAfterARestartIsCaught() {
        SignedTransaction t = draft(T0).put(b("k"), b("1")).sign();
        assertNull(serve(t).kind());
        assertNull(serve(draft(T0).put(b("j"), b("1")).sign()).kind());
        RecentTxIds rebuilt = RecentTxIds.rebuild(auditor, WINDOW);
        assertEquals(1L, rebuilt.seenIn(t.txId()));
        assertEquals(2, rebuilt.size());
    }
}
