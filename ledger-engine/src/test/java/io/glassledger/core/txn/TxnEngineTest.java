package io.glassledger.core.txn;

import io.glassledger.verify.txn.Transaction;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.TxnDraft;
import io.glassledger.verify.txn.Promise;
import io.glassledger.verify.txn.PromiseVerifier;
import io.glassledger.verify.txn.BlockProof;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.block.Block;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.KeyClaim;
import io.glassledger.verify.proof.VerificationException;
import io.glassledger.core.store.InMemoryNodeStore;
import io.glassledger.core.txn.TxnException.Reason;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TxnEngineTest {
    @TempDir
    Path dir;
    final SigningKey client = SigningKey.generate();

    static Bytes b(String s) {
        return Bytes.utf8(s);
    }

    TxnEngine open() {
        return TxnEngine.open(EngineConfig.defaults(dir).withPersistInterval(Duration.ofMillis(20)));
    }

    TxnDraft draft() {
        return new TxnDraft(client, 0, System.currentTimeMillis());
    }

    static TxnException failure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, f::get);
        return assertInstanceOf(TxnException.class, e.getCause());
    }

    Digest verify(TxnEngine e, Digest trusted, Promise p, Transaction tx) throws Exception {
        ProofResult r = e.proveWrites(p.blockNo(), tx.writes().stream().map(m -> m.key()).toList(),
                Duration.ofSeconds(10)).get();
        BlockProof bp = assertInstanceOf(ProofResult.Ready.class, r).proof();
        var ao = bp.digest().blockNo() == trusted.blockNo() ? null
                : e.proveAppendOnly(trusted.blockNo(), bp.digest().blockNo());
        return PromiseVerifier.verify(trusted, p, tx, bp, ao);
    }

    @Test
    void commitIsReadableAtOnceAndItsPromiseVerifies() throws Exception {
        try (TxnEngine e = open()) {
            Digest genesis = e.digest();
            SignedTransaction t = draft().read(b("a"), 0).put(b("a"), b("1")).put(b("b"), b("2")).sign();
            Promise p = e.commit(t).get();
            assertEquals(1, p.blockNo());
            assertEquals(genesis, p.served());
            assertEquals(new TxnEngine.Versioned(b("1"), 1), e.get(b("a")));
            Digest d = verify(e, genesis, p, t.tx());
            assertTrue(d.blockNo() >= 1);
            assertEquals(List.of(t), e.blockTransactions(1));
        }
    }

    @Test
    void staleReadAbortsWithConflictAndChangesNothing() throws Exception {
        try (TxnEngine e = open()) {
            e.commit(draft().put(b("k"), b("v1")).sign()).get();
            long v = e.get(b("k")).version();
            SignedTransaction t1 = draft().read(b("k"), v).put(b("k"), b("v2")).sign();
            SignedTransaction t2 = draft().read(b("k"), v).put(b("k"), b("v3")).sign();
            e.commit(t1).get();
            assertEquals(Reason.CONFLICT, failure(e.commit(t2)).reason());
            assertEquals(b("v2"), e.get(b("k")).value());
        }
    }

    @Test
    void badInputIsRejectedWithAReason() throws Exception {
        try (TxnEngine e = open()) {
            SignedTransaction good = draft().put(b("x"), b("1")).sign();
            byte[] rec = good.record();
            rec[rec.length - 1] ^= 1;
            assertEquals(Reason.BAD_SIGNATURE, failure(e.commit(SignedTransaction.decode(rec))).reason());
            SignedTransaction other = new TxnDraft(client, 7, System.currentTimeMillis()).put(b("x"), b("1")).sign();
            assertEquals(Reason.WRONG_SHARD, failure(e.commit(other)).reason());
            SignedTransaction stale = new TxnDraft(client, 0, System.currentTimeMillis() - 3_600_000)
                    .put(b("x"), b("1")).sign();
            assertEquals(Reason.STALE, failure(e.commit(stale)).reason());
            e.commit(good).get();
            assertEquals(Reason.DUPLICATE, failure(e.commit(good)).reason());
            SignedTransaction big = draft().put(b("y"), Bytes.of(new byte[(1 << 20) - 16])).sign();
            assertEquals(Reason.INVALID, failure(e.commit(big)).reason());
            assertEquals(b("1"), e.get(b("x")).value());
            assertNull(e.get(b("y")).value());
        }
    }

    @Test
    void aBlockHoldsOneVersionOfAKeyAndReadersFollowTheirWriters() throws Exception {
        try (TxnEngine e = TxnEngine.open(EngineConfig.defaults(dir).withPersistInterval(Duration.ofHours(1)))) {
            Promise p1 = e.commit(draft().put(b("k"), b("1")).sign()).get();
            Promise p2 = e.commit(draft().read(b("k"), p1.blockNo()).put(b("k"), b("2")).sign()).get();
            Promise p3 = e.commit(draft().put(b("other"), b("x")).sign()).get();
            Promise p4 = e.commit(draft().read(b("k"), p2.blockNo()).put(b("dep"), b("y")).sign()).get();
            assertEquals(1, p1.blockNo());
            assertEquals(2, p2.blockNo());
            assertEquals(1, p3.blockNo());
            assertEquals(2, p4.blockNo());
            ProofResult r = e.proveWrites(2, List.of(b("k")), Duration.ZERO).get();
            assertInstanceOf(ProofResult.Pending.class, r);
            e.persistSoon();
            e.awaitPersisted(2).get();
            assertEquals(b("1"), e.ledger().get(b("k"), 1).orElseThrow());
            assertEquals(b("2"), e.ledger().get(b("k"), 2).orElseThrow());
            assertEquals(2, e.ledger().block(1).txIds().size());
        }
    }

    @Test
    void proveWrites_sharedBatchTooLargeForOneRequest_isSplitAndOnlyTheOverBudgetRequestIsRefused() throws Exception {
        try (TxnEngine e = TxnEngine.open(EngineConfig.defaults(dir).withPersistInterval(Duration.ofHours(1)))) {
            Promise p = e.commit(draft().put(b("big"), Bytes.of(new byte[200_000])).put(b("s"), b("1")).sign()).get();
            // The block is not persisted yet, so all three wait in one batch, released together by the persist.
            var small = e.proveWrites(p.blockNo(), List.of(b("s")), Duration.ofSeconds(30),
                    new io.glassledger.core.ledger.ByteBudget(10_000, "small"));
            var large = e.proveWrites(p.blockNo(), List.of(b("big")), Duration.ofSeconds(30),
                    new io.glassledger.core.ledger.ByteBudget(1_000_000, "large"));
            var tooLarge = e.proveWrites(p.blockNo(), List.of(b("big")), Duration.ofSeconds(30),
                    new io.glassledger.core.ledger.ByteBudget(10_000, "too large"));
            e.persistSoon();
            BlockProof sp = assertInstanceOf(ProofResult.Ready.class, small.get()).proof();
            assertEquals(List.of(b("s")), sp.claims().stream().map(c -> c.key()).toList(), "its own keys only");
            BlockProof lp = assertInstanceOf(ProofResult.Ready.class, large.get()).proof();
            assertEquals(200_000, lp.claims().get(0).value().length());
            ExecutionException x = assertThrows(ExecutionException.class, tooLarge::get);
            assertInstanceOf(io.glassledger.core.ledger.ProofTooLargeException.class, x.getCause());
        }
    }

    @Test
    void withoutBatchingEveryTransactionGetsABlockOfItsOwn() throws Exception {
        EngineConfig cfg = EngineConfig.defaults(dir).withPersistInterval(Duration.ofHours(1)).withBatching(false);
        try (TxnEngine e = TxnEngine.open(cfg)) {
            Promise p1 = e.commit(draft().put(b("a"), b("1")).sign()).get();
            Promise p2 = e.commit(draft().put(b("b"), b("2")).sign()).get();
            Promise p3 = e.commit(draft().read(b("a"), p1.blockNo()).put(b("c"), b("3")).sign()).get();
            assertEquals(List.of(1L, 2L, 3L), List.of(p1.blockNo(), p2.blockNo(), p3.blockNo()));
            e.persistSoon();
            e.awaitPersisted(3).get();
            for (long n = 1; n <= 3; n++) {
                assertEquals(1, e.ledger().block(n).txIds().size());
            }
            assertInstanceOf(ProofResult.Ready.class, e.proveWrites(2, List.of(b("b")), Duration.ZERO).get());
        }
        // the open epoch is re-formed the same way from the WAL
        Promise p4;
        try (TxnEngine e = TxnEngine.open(cfg)) {
            p4 = e.commit(draft().put(b("d"), b("4")).sign()).get();
            assertEquals(4, p4.blockNo());
        }
        try (TxnEngine e = TxnEngine.open(cfg)) {
            assertEquals(5, e.commit(draft().put(b("e"), b("5")).sign()).get().blockNo());
            e.persistSoon();
            e.awaitPersisted(5).get();
            assertEquals(b("4"), e.ledger().get(b("d"), 4).orElseThrow());
        }
    }

    @Test
    void proofsOfAPersistedBlockAskedTogetherWithoutWaitingAreNeverPending() throws Exception {
        try (TxnEngine e = open()) {
            Promise p = e.commit(draft().put(b("h"), b("1")).sign(), true).get();
            List<CompletableFuture<ProofResult>> fs = java.util.Collections.synchronizedList(new ArrayList<>());
            List<Thread> askers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Thread asker = new Thread(() -> {
                    for (int i = 0; i < 2000; i++) {
                        fs.add(e.proveWrites(p.blockNo(), List.of(b("h")), Duration.ZERO));
                    }
                });
                asker.start();
                askers.add(asker);
            }
            for (Thread t : askers) {
                t.join();
            }
            long pending = 0;
            for (CompletableFuture<ProofResult> f : fs) {
                pending += f.get() instanceof ProofResult.Pending ? 1 : 0;
            }
            assertEquals(0, pending, "answers Pending for a block in the ledger");
        }
    }

    @Test
    void delayZeroPersistsBeforeTheAcknowledgement() throws Exception {
        try (TxnEngine e = TxnEngine.open(EngineConfig.defaults(dir).withPersistInterval(Duration.ofHours(1)))) {
            Promise p = e.commit(draft().put(b("now"), b("1")).sign(), true).get();
            assertTrue(e.persistedBlock() >= p.blockNo());
            assertInstanceOf(ProofResult.Ready.class, e.proveWrites(p.blockNo(), List.of(b("now")), Duration.ZERO)
                    .get());
        }
    }

    @Test
    void preparedTransactionsHoldTheirKeysAndSurviveARestart() throws Exception {
        SignedTransaction t = draft().put(b("p"), b("1")).sign();
        try (TxnEngine e = open()) {
            e.prepare(t).get();
            assertEquals(Reason.CONFLICT, failure(e.commit(draft().put(b("p"), b("other")).sign())).reason());
            assertEquals(List.of(t.txId()), e.preparedTransactions());
        }
        try (TxnEngine e = open()) {
            assertEquals(List.of(t.txId()), e.preparedTransactions());
            assertNull(e.get(b("p")).value());
            Promise p = e.decide(t.txId(), true).get();
            assertEquals(p, e.decide(t.txId(), true).get());
            assertEquals(TxState.COMMITTED, e.status(t.txId()).get());
            assertEquals(b("1"), e.get(b("p")).value());
            assertEquals(Reason.UNKNOWN_TRANSACTION, failure(e.decide(Bytes.of(new byte[16]), true)).reason());
        }
        try (TxnEngine e = open()) {
            assertEquals(List.of(), e.preparedTransactions());
            assertEquals(b("1"), e.get(b("p")).value());
        }
    }

    @Test
    void committedButUnpersistedWritesComeBackFromTheWal() throws Exception {
        SignedTransaction t = draft().put(b("w"), b("1")).sign();
        EngineConfig cfg = EngineConfig.defaults(dir).withPersistInterval(Duration.ofHours(1));
        TxnEngine e = TxnEngine.open(cfg);
        Promise p = e.commit(t).get();
        e.crashForTest();
        try (TxnEngine r = TxnEngine.open(cfg)) {
            assertEquals(b("1"), r.get(b("w")).value());
            r.persistSoon();
            r.awaitPersisted(p.blockNo()).get();
            assertEquals(List.of(t), r.blockTransactions(p.blockNo()));
        }
    }

    @Test
    void aFullQueueRejectsAtOnceWithARetryableError() throws Exception {
        EngineConfig cfg = EngineConfig.defaults(dir).withQueueCapacity(1).withWorkers(1);
        try (TxnEngine e = TxnEngine.open(cfg)) {
            List<CompletableFuture<Promise>> fs = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                fs.add(e.commit(draft().put(b("q" + i), b("v")).sign()));
            }
            int overloaded = 0;
            for (CompletableFuture<Promise> f : fs) {
                try {
                    f.join();
                } catch (CompletionException x) {
                    TxnException te = assertInstanceOf(TxnException.class, x.getCause());
                    assertEquals(Reason.OVERLOADED, te.reason());
                    assertTrue(te.retryable());
                    overloaded++;
                }
            }
            assertTrue(overloaded > 0, "some requests must be rejected");
        }
    }

    @Test
    void tamperedProofsAndForeignDigestsFailVerification() throws Exception {
        try (TxnEngine e = open()) {
            Digest genesis = e.digest();
            SignedTransaction t = draft().put(b("a"), b("1")).sign();
            Promise p = e.commit(t).get();
            SignedTransaction u = draft().put(b("b"), b("2")).sign();
            Promise q = e.commit(u).get();
            e.awaitPersisted(Math.max(p.blockNo(), q.blockNo())).get();
            BlockProof bp = ((ProofResult.Ready) e.proveWrites(p.blockNo(), List.of(b("a")), Duration.ZERO).get())
                    .proof();
            var ao = e.proveAppendOnly(0, bp.digest().blockNo());
            PromiseVerifier.verify(genesis, p, t.tx(), bp, ao);
            // The proof of another transaction's block, and a digest from another ledger.
            assertThrows(VerificationException.class, () -> PromiseVerifier.verify(genesis, p, u.tx(), bp, ao));
            Digest foreign = new Digest(0, io.glassledger.verify.hash.Hashing.raw(new byte[]{1}));
            assertThrows(VerificationException.class, () -> PromiseVerifier.verify(foreign, p, t.tx(), bp, ao));
            byte[] enc = bp.proof().encode();
            for (int i = 0; i < enc.length; i++) {
                byte[] bad = enc.clone();
                bad[i] ^= 0x01;
                BlockProof tampered;
                try {
                    tampered = new BlockProof(bp.blockNo(), bp.digest(), bp.claims(),
                            io.glassledger.verify.proof.KeysProof.decode(bad));
                } catch (RuntimeException malformed) {
                    continue;
                }
                BlockProof tp = tampered;
                assertThrows(VerificationException.class, () -> PromiseVerifier.verify(genesis, p, t.tx(), tp, ao),
                        "flipped byte " + i);
            }
        }
    }

    @Test
    void replayingTheBlocksTransactionsFormsTheSameLedger() throws Exception {
        List<Block> blocks = new ArrayList<>();
        List<Bytes> records = new ArrayList<>();
        long genesisTs;
        try (TxnEngine e = open()) {
            for (int i = 0; i < 50; i++) {
                Bytes k = b("k" + (i % 7));
                long v = e.get(k).version();
                e.commit(draft().read(k, v).put(k, b("v" + i)).put(b("u" + i), b("x")).sign()).get();
            }
            e.persistSoon();
            long last = e.ledger().head().block().number();
            e.awaitPersisted(last).get();
            genesisTs = e.ledger().block(0).timestamp();
            for (long n = 1; n <= e.persistedBlock(); n++) {
                blocks.add(e.ledger().block(n));
                records.add(e.ledger().blockTransactions(n));
            }
        }
        Ledger replica = Ledger.openOrCreate(new InMemoryNodeStore(), io.glassledger.core.postree.TreeParams.DEFAULT,
                genesisTs);
        for (int i = 0; i < blocks.size(); i++) {
            List<SignedTransaction> txs = SignedTransaction.decodeList(records.get(i));
            Block original = blocks.get(i);
            BlockSequencer s = new BlockSequencer(original.number());
            txs.forEach(tx -> assertEquals(original.number(), s.assign(tx)));
            var spec = s.seal(original.timestamp()).specs();
            Block rb = replica.append(spec).get(0);
            assertEquals(original, rb);
        }
    }

    @Test
    void anAbortedPreparedTransactionReleasesItsKeysAndLeavesNoTrace() throws Exception {
        try (TxnEngine e = open()) {
            SignedTransaction t = draft().read(b("r"), 0).put(b("w"), b("1")).sign();
            e.prepare(t).get();
            assertEquals(Reason.CONFLICT, failure(e.commit(draft().put(b("r"), b("x")).sign())).reason());
            assertEquals(Reason.DUPLICATE, failure(e.prepare(t)).reason());
            assertEquals(TxState.PREPARED, e.status(t.txId()).get());
            assertNull(e.decide(t.txId(), false).get());
            assertNull(e.decide(t.txId(), false).get());
            assertEquals(TxState.ABORTED, e.status(t.txId()).get());
            assertEquals(TxState.UNKNOWN, e.status(Bytes.of(new byte[16])).get());
            assertEquals(Reason.ALREADY_DECIDED, failure(e.decide(t.txId(), true)).reason());
            e.commit(draft().put(b("r"), b("x")).put(b("w"), b("y")).sign()).get();
            assertEquals(b("y"), e.get(b("w")).value());
        }
    }

    @Test
    void thePrimaryResolvesWithItsRecordedDecisionOrADurableAbort() throws Exception {
        EngineConfig cfg = EngineConfig.defaults(dir).withPersistInterval(Duration.ofMillis(10))
                .withWalSegmentBytes(2_000);
        SignedTransaction committed = new TxnDraft(client, 0, List.of(0, 1), Transaction.newTxId(
                System.currentTimeMillis())).put(b("c"), b("1")).sign();
        SignedTransaction held = new TxnDraft(client, 0, List.of(0, 1), Transaction.newTxId(
                System.currentTimeMillis())).put(b("h"), b("1")).sign();
        Bytes never = Transaction.newTxId(System.currentTimeMillis());
        try (TxnEngine e = TxnEngine.open(cfg)) {
            e.prepare(committed).get();
            e.decide(committed.txId(), true).get();
            e.prepare(held).get();
            assertEquals(TxState.COMMITTED, e.resolve(committed.txId()).get());
            // Still prepared and undecided: the primary decides, and it decides abort.
            assertEquals(TxState.ABORTED, e.resolve(held.txId()).get());
            assertEquals(Reason.ALREADY_DECIDED, failure(e.decide(held.txId(), true)).reason());
            assertNull(e.get(b("h")).value());
            // Never seen: an abort is recorded, so the prepare that arrives late is refused.
            assertEquals(TxState.ABORTED, e.resolve(never).get());
            SignedTransaction late = new TxnDraft(client, 0, List.of(0, 1), never).put(b("late"), b("1")).sign();
            assertEquals(Reason.DUPLICATE, failure(e.prepare(late)).reason());
            // Enough commits to rotate the WAL and delete the segments that held the decisions.
            for (int i = 0; i < 60; i++) {
                e.commit(draft().put(b("fill" + i), Bytes.of(new byte[100])).sign(), true).get();
            }
        }
        try (TxnEngine e = TxnEngine.open(cfg)) {
            assertEquals(TxState.COMMITTED, e.resolve(committed.txId()).get());
            assertEquals(TxState.ABORTED, e.resolve(held.txId()).get());
            assertEquals(TxState.ABORTED, e.resolve(never).get());
            SignedTransaction late = new TxnDraft(client, 0, List.of(0, 1), never).put(b("late"), b("1")).sign();
            assertEquals(Reason.DUPLICATE, failure(e.prepare(late)).reason());
            assertEquals(b("1"), e.get(b("c")).value());
            assertNull(e.get(b("late")).value());
        }
        try (var segments = java.nio.file.Files.list(dir.resolve("wal"))) {
            assertTrue(segments.count() < 5, "old segments were deleted, so the decisions came from carried records");
        }
    }

    @Test
    void heldTransactionsReportWhenTheyWerePrepared() throws Exception {
        try (TxnEngine e = open()) {
            long before = System.nanoTime();
            SignedTransaction t = new TxnDraft(client, 0, List.of(1, 0), Transaction.newTxId(
                    System.currentTimeMillis())).put(b("x"), b("1")).sign();
            e.prepare(t).get();
            List<TxnEngine.Held> held = e.held();
            assertEquals(1, held.size());
            assertEquals(t.txId(), held.get(0).stx().txId());
            assertEquals(List.of(1, 0), held.get(0).stx().tx().participants());
            assertTrue(held.get(0).sinceNanos() >= before);
            e.decide(t.txId(), false).get();
            assertEquals(List.of(), e.held());
        }
    }

    @Test
    void walSegmentsRotateAndAreDeletedOnceTheirBlocksArePersisted() throws Exception {
        EngineConfig cfg = EngineConfig.defaults(dir).withPersistInterval(Duration.ofMillis(10))
                .withWalSegmentBytes(2_000);
        SignedTransaction held = draft().put(b("held"), b("1")).sign();
        Promise last = null;
        try (TxnEngine e = TxnEngine.open(cfg)) {
            e.prepare(held).get();
            for (int i = 0; i < 60; i++) {
                last = e.commit(draft().put(b("k" + i), Bytes.of(new byte[100])).sign()).get();
                if (i % 10 == 9) {
                    e.awaitPersisted(last.blockNo()).get();
                }
            }
            e.awaitPersisted(last.blockNo()).get();
            Promise p = e.commit(draft().put(b("tail"), b("t")).sign()).get();
            e.awaitPersisted(p.blockNo()).get();
            // Give the sequencer a moment to act on the truncation request that follows the persist.
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> walFiles() <= 2);
            e.crashForTest();
        }
        try (TxnEngine e = TxnEngine.open(cfg)) {
            assertEquals(List.of(held.txId()), e.preparedTransactions());
            for (int i = 0; i < 60; i++) {
                assertEquals(Bytes.of(new byte[100]), e.get(b("k" + i)).value());
            }
            assertEquals(b("t"), e.get(b("tail")).value());
        }
    }

    long walFiles() throws java.io.IOException {
        try (var s = java.nio.file.Files.list(dir.resolve("wal"))) {
            return s.count();
        }
    }

    @Test
    void proofRequestsForOneBlockShareOneTraversal() throws Exception {
        // The persist interval is an hour, so nothing seals the block until persistSoon(): all 20 commits land in one
        // block and all 20 requests wait on it, however slow the machine (a 200 ms interval failed under load).
        try (TxnEngine e = TxnEngine.open(EngineConfig.defaults(dir).withPersistInterval(Duration.ofHours(1)))) {
            List<SignedTransaction> txs = new ArrayList<>();
            List<Promise> ps = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                SignedTransaction t = draft().put(b("batch" + i), b("v" + i)).sign();
                txs.add(t);
                ps.add(e.commit(t).get());
            }
            long block = ps.get(0).blockNo();
            ps.forEach(p -> assertEquals(block, p.blockNo()));
            long before = e.stats().proofBatches();
            List<CompletableFuture<ProofResult>> rs = new ArrayList<>();
            for (SignedTransaction t : txs) {
                rs.add(e.proveWrites(block, List.of(t.tx().writes().get(0).key()), Duration.ofMinutes(1)));
            }
            rs.forEach(r -> assertFalse(r.isDone(), "a proof of a block not yet persisted waits for it"));
            e.persistSoon();
            Digest trusted = e.digest(0);
            for (int i = 0; i < txs.size(); i++) {
                BlockProof bp = assertInstanceOf(ProofResult.Ready.class, rs.get(i).get()).proof();
                PromiseVerifier.verify(trusted, ps.get(i), txs.get(i).tx(), bp,
                        e.proveAppendOnly(0, bp.digest().blockNo()));
            }
            // The batcher counts a traversal once its answers are handed out: wait for the count, then check it.
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
                    .until(() -> e.stats().proofBatches() - before >= 1);
            assertEquals(1, e.stats().proofBatches() - before, "20 requests waiting on one block, one traversal");
            assertEquals(Reason.INVALID, failure(e.proveWrites(block + 1000, List.of(b("x")), Duration.ZERO))
                    .reason());
        }
    }

    @Test
    void proofRequestsForOneBlock_eachGetOnlyItsOwnClaims_fromOneTraversal() throws Exception {
        try (TxnEngine e = TxnEngine.open(EngineConfig.defaults(dir).withPersistInterval(Duration.ofHours(1)))) {
            List<SignedTransaction> txs = new ArrayList<>();
            List<Promise> ps = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                TxnDraft d = draft();
                for (int k = 0; k < 5; k++) {
                    d.put(b("own" + i + "-" + k), b("v" + i + k));
                }
                SignedTransaction t = d.sign();
                txs.add(t);
                ps.add(e.commit(t).get());
            }
            long block = ps.get(0).blockNo();
            assertEquals(block, ps.get(1).blockNo());
            long before = e.stats().proofBatches();
            List<CompletableFuture<ProofResult>> rs = new ArrayList<>();
            for (SignedTransaction t : txs) {
                rs.add(e.proveWrites(block, t.tx().writes().stream().map(w -> w.key()).toList(),
                        Duration.ofMinutes(1)));
            }
            e.persistSoon();
            Digest trusted = e.digest(0);
            List<BlockProof> proofs = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                BlockProof bp = assertInstanceOf(ProofResult.Ready.class, rs.get(i).get()).proof();
                proofs.add(bp);
                PromiseVerifier.verify(trusted, ps.get(i), txs.get(i).tx(), bp,
                        e.proveAppendOnly(0, bp.digest().blockNo()));
                Set<Bytes> own = txs.get(i).tx().writes().stream().map(w -> w.key()).collect(Collectors.toSet());
                assertEquals(own, bp.claims().stream().map(KeyClaim::key).collect(Collectors.toSet()),
                        "request " + i + " gets claims of its own keys only");
            }
            assertEquals(1, e.stats().proofBatches() - before, "two requests waiting on one block, one traversal");
            List<Bytes> all = txs.stream().flatMap(t -> t.tx().writes().stream().map(w -> w.key())).toList();
            BlockProof shared = assertInstanceOf(ProofResult.Ready.class,
                    e.proveWrites(block, all, Duration.ofMinutes(1)).get()).proof();
            // Each request's proof is cut for its own keys, not the shared traversal's proof of both: the other
            // request's keys are pruned from it. (Not a size comparison: in a tree this small, a proof of every key
            // prunes nothing and can be the shorter one.)
            for (BlockProof bp : proofs) {
                assertFalse(java.util.Arrays.equals(bp.proof().encode(), shared.proof().encode()),
                        "a request got the shared proof of both requests' keys");
            }
        }
    }

    @Test
    void deletesArePromisedAndProvenAsTombstones() throws Exception {
        try (TxnEngine e = open()) {
            Digest trusted = e.digest();
            Promise p1 = e.commit(draft().put(b("d"), b("1")).sign()).get();
            SignedTransaction del = draft().read(b("d"), p1.blockNo()).delete(b("d")).sign();
            Promise p2 = e.commit(del).get();
            assertNull(e.get(b("d")).value());
            assertEquals(p2.blockNo(), e.get(b("d")).version());
            verify(e, trusted, p2, del.tx());
        }
    }

    @Test
    void deletingAnAbsentKeyLeavesItsVersionAloneAndItsPromiseVerifies() throws Exception {
        try (TxnEngine e = TxnEngine.open(EngineConfig.defaults(dir).withPersistInterval(Duration.ofHours(1)))) {
            Digest trusted = e.digest();
            SignedTransaction del = draft().read(b("ghost"), 0).delete(b("ghost")).put(b("real"), b("1")).sign();
            Promise p = e.commit(del).get();
            assertEquals(new TxnEngine.Versioned(null, 0), e.get(b("ghost")));
            e.persistSoon();
            e.awaitPersisted(p.blockNo()).get();
            assertEquals(new TxnEngine.Versioned(null, 0), e.get(b("ghost")));
            // A reader of version 0 is not refused after the persist (the version did not move under it).
            e.commit(draft().read(b("ghost"), 0).put(b("after"), b("x")).sign()).get();
            verify(e, trusted, p, del.tx());
            // A delete promise for a key the block holds live must not verify.
            SignedTransaction lie = draft().delete(b("real")).sign();
            Promise forged = new Promise(lie.txId(), 0, p.blockNo(), p.served());
            assertThrows(VerificationException.class, () -> verify(e, trusted, forged, lie.tx()));
        }
    }

    @Test
    void anUnpersistedBacklogRefusesNewCommitsUntilThePersistCatchesUp() throws Exception {
        EngineConfig cfg = EngineConfig.defaults(dir).withPersistInterval(Duration.ofHours(1))
                .withMaxUnpersistedWrites(4);
        try (TxnEngine e = TxnEngine.open(cfg)) {
            // Once the backlog reaches the limit, the next commit is refused at once, and nothing of it is applied.
            CompletableFuture<Promise> first = e.commit(draft().put(b("a"), b("1")).put(b("b"), b("1"))
                    .put(b("c"), b("1")).put(b("d"), b("1")).sign());
            first.get();
            TxnException refused = failure(e.commit(draft().put(b("e"), b("1")).sign()));
            assertEquals(Reason.OVERLOADED, refused.reason());
            assertTrue(refused.retryable());
            assertNull(e.get(b("e")).value());
            // The refusal asked for a persist; then the same kind of transaction goes through.
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> e.stats().unpersistedWrites() == 0);
            e.commit(draft().put(b("e"), b("1")).sign()).get();
            assertEquals(b("1"), e.get(b("e")).value());
        }
    }

    @Test
    void aBlocksPromisesVerifyTogetherAgainstOneProofAndTamperingFails() throws Exception {
        try (TxnEngine e = TxnEngine.open(EngineConfig.defaults(dir).withPersistInterval(Duration.ofHours(1)))) {
            Digest trusted = e.digest();
            List<SignedTransaction> txs = new ArrayList<>();
            List<Promise> promises = new ArrayList<>();
            List<Bytes> keys = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                SignedTransaction t = draft().put(b("k" + i), b("v" + i)).put(b("j" + i), b("w" + i)).sign();
                txs.add(t);
                promises.add(e.commit(t).get());
                keys.add(b("k" + i));
                keys.add(b("j" + i));
            }
            assertTrue(promises.stream().allMatch(p -> p.blockNo() == 1));
            e.persistSoon();
            BlockProof bp = assertInstanceOf(ProofResult.Ready.class,
                    e.proveWrites(1, keys, Duration.ofSeconds(30)).get()).proof();
            var ao = e.proveAppendOnly(trusted.blockNo(), bp.digest().blockNo());
            List<PromiseVerifier.Claim> all = new ArrayList<>();
            for (int i = 0; i < txs.size(); i++) {
                all.add(new PromiseVerifier.Claim(promises.get(i), txs.get(i).tx()));
            }
            assertEquals(bp.digest(), PromiseVerifier.verifyAll(trusted, all, bp, ao));

            // One changed value among thirty promises fails the batch.
            Transaction t0 = txs.get(7).tx();
            Transaction changed = new Transaction(t0.txId(), t0.clientKey(), t0.shard(), t0.participants(),
                    t0.reads(), List.of(t0.writes().get(0),
                    io.glassledger.verify.entry.Mutation.put(b("k7"), b("other"))));
            List<PromiseVerifier.Claim> bad = new ArrayList<>(all);
            bad.set(7, new PromiseVerifier.Claim(promises.get(7), changed));
            assertThrows(VerificationException.class, () -> PromiseVerifier.verifyAll(trusted, bad, bp, ao));
            // A promise paired with another transaction fails.
            List<PromiseVerifier.Claim> swapped = new ArrayList<>(all);
            swapped.set(3, new PromiseVerifier.Claim(promises.get(4), txs.get(3).tx()));
            assertThrows(VerificationException.class, () -> PromiseVerifier.verifyAll(trusted, swapped, bp, ao));
            // The same promise twice claims two versions of one key in one block.
            List<PromiseVerifier.Claim> twice = new ArrayList<>(all);
            twice.add(all.get(0));
            assertThrows(VerificationException.class, () -> PromiseVerifier.verifyAll(trusted, twice, bp, ao));
            // A promise of a key the proof does not cover fails.
            SignedTransaction outside = draft().put(b("zz"), b("1")).sign();
            List<PromiseVerifier.Claim> extra = new ArrayList<>(all);
            extra.add(new PromiseVerifier.Claim(new Promise(outside.txId(), 0, 1, trusted), outside.tx()));
            assertThrows(VerificationException.class, () -> PromiseVerifier.verifyAll(trusted, extra, bp, ao));
            // Every byte of the proof flipped in turn: never accepted.
            byte[] enc = bp.proof().encode();
            for (int i = 0; i < enc.length; i++) {
                byte[] t = enc.clone();
                t[i] ^= 0x01;
                io.glassledger.verify.proof.KeysProof kp;
                try {
                    kp = io.glassledger.verify.proof.KeysProof.decode(t);
                } catch (RuntimeException rejected) {
                    continue;
                }
                BlockProof tampered = new BlockProof(bp.blockNo(), bp.digest(), bp.claims(), kp);
                int at = i;
                assertThrows(VerificationException.class, () -> PromiseVerifier.verifyAll(trusted, all, tampered, ao),
                        "flipped byte " + at + " accepted");
            }
            assertThrows(VerificationException.class, () -> PromiseVerifier.verifyAll(trusted, List.of(), bp, ao));
        }
    }

    @Test
    void readsVerifyAtTheirVersionAndAStaleReadFails() throws Exception {
        try (TxnEngine e = open()) {
            Digest trusted = e.digest();
            Promise w1 = e.commit(draft().put(b("r"), b("1")).sign(), true).get();
            TxnEngine.Versioned seen = e.get(b("r"));
            SignedTransaction t = draft().read(b("r"), seen.version()).read(b("none"), 0).put(b("w"), b("x")).sign();
            Promise p = e.commit(t, true).get();
            List<PromiseVerifier.Read> reads = List.of(new PromiseVerifier.Read(b("r"), b("1"), w1.blockNo()),
                    new PromiseVerifier.Read(b("none"), null, 0));
            Digest d = trusted;
            for (var g : PromiseVerifier.readsByBlock(p, reads).entrySet()) {
                BlockProof bp = assertInstanceOf(ProofResult.Ready.class, e.proveWrites(g.getKey(),
                        g.getValue().stream().map(PromiseVerifier.Read::key).toList(), Duration.ofSeconds(10)).get())
                        .proof();
                var ao = bp.digest().blockNo() == d.blockNo() ? null : e.proveAppendOnly(d.blockNo(),
                        bp.digest().blockNo());
                d = PromiseVerifier.verifyReads(d, g.getValue(), bp, ao);

                // The right value at an older version, or the wrong value at the right version, fails.
                List<PromiseVerifier.Read> older = g.getValue().stream()
                        .map(r -> new PromiseVerifier.Read(r.key(), r.value(), r.version() + 1)).toList();
                Digest dd = d;
                assertThrows(VerificationException.class, () -> PromiseVerifier.verifyReads(dd, older, bp, null));
                List<PromiseVerifier.Read> wrong = g.getValue().stream()
                        .map(r -> new PromiseVerifier.Read(r.key(), b("other"), r.version())).toList();
                assertThrows(VerificationException.class, () -> PromiseVerifier.verifyReads(dd, wrong, bp, null));
            }
            // A read the server served stale: r's newer version was in a block before the served digest.
            Promise w2 = e.commit(draft().put(b("r"), b("2")).sign(), true).get();
            SignedTransaction late = draft().put(b("z"), b("1")).sign();
            Promise pl = e.commit(late, true).get();
            assertTrue(pl.served().blockNo() >= w2.blockNo());
            List<PromiseVerifier.Read> stale = List.of(new PromiseVerifier.Read(b("r"), b("1"), w1.blockNo()));
            var groups = PromiseVerifier.readsByBlock(pl, stale);
            long at = groups.keySet().iterator().next();
            assertEquals(pl.served().blockNo(), at);
            BlockProof bp = assertInstanceOf(ProofResult.Ready.class, e.proveWrites(at, List.of(b("r")),
                    Duration.ofSeconds(10)).get()).proof();
            var ao = bp.digest().blockNo() == d.blockNo() ? null : e.proveAppendOnly(d.blockNo(), bp.digest().blockNo());
            Digest dd = d;
            assertThrows(VerificationException.class, () -> PromiseVerifier.verifyReads(dd, stale, bp, ao));
        }
    }
}
