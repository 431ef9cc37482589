package io.glassledger.client;

import static io.glassledger.client.TestLedger.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
import io.glassledger.verify.proof.KeyClaim;
import io.glassledger.verify.txn.PromiseVerifier;
import io.glassledger.verify.txn.SignedTransaction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Proof-batch answers from a real ledger, honest and tampered, and the evidence a violation carries. */
class BatchCheckerTest {
    TestLedger l;
    CommitPromise transfer;
    CommitPromise readOnly;
    List<ProofBatchPlanner.Item> items;

    @BeforeEach
    void setUp() {
        l = new TestLedger();
        l.append(l.tx(d -> d.put(b("k1"), b("v1")).put(b("k2"), b("v2"))));
        l.append(l.tx(d -> d.put(b("other"), b("o"))));
        l.append(l.tx(d -> d.put(b("more"), b("m"))));
        // a transaction that read k1 with the block-3 state served, wrote a, and landed in block 4
        PromiseVerifier.Read k1 = l.read("k1", 3);
        SignedTransaction t = l.tx(d -> d.read(k1.key(), k1.version()).put(b("a"), b("1")));
        assertEquals(4, l.append(t));
        transfer = l.promise(t, 4, 3, List.of(k1));
        PromiseVerifier.Read k2 = l.read("k2", 3);
        readOnly = l.promise(l.tx(d -> d.read(k2.key(), k2.version())), 0, 3, List.of(k2));
        items = ProofBatchPlanner.plan(List.of(transfer, readOnly), 10_000);
    }

    private BatchChecker check(Dto.ProofBatchResponse resp) {
        BatchChecker c = new BatchChecker(l.trust(3));
        c.check(items, resp);
        return c;
    }

    @Test
    void honestAnswer_verifiesWritesAndReads_andLinksTheNewDigest() {
        BatchChecker c = check(l.answer(items, 3));
        BatchChecker.Result t = c.results().get(transfer);
        assertNull(t.violation);
        assertFalse(t.pending);
        assertEquals(1, t.writes);
        assertEquals(1, t.reads);
        assertEquals(l.digest(), t.digest);
        assertEquals(1, c.results().get(readOnly).reads);
        assertEquals(List.of(4L), new ArrayList<>(c.links().keySet()));
        assertNotNull(c.links().get(4L).fromBase());
        assertTrue(c.links().get(4L).users().contains(transfer));
    }

    @Test
    void wrongValueInTheBlock_failsOnlyThatPromise_withEvidence() {
        Dto.ProofBatchResponse honest = l.answer(items, 3);
        List<Dto.KeysProofDto> proofs = new ArrayList<>(honest.proofs());
        int i = blockIndex(4);
        Dto.KeysProofDto p = proofs.get(i);
        proofs.set(i, new Dto.KeysProofDto(p.block(), p.status(), p.digest(),
                List.of(new Dto.ClaimDto(Wire.b64(b("a")), Wire.b64(b("999")))), p.proof(), null));
        BatchChecker c = check(new Dto.ProofBatchResponse(proofs, honest.appendOnly(), honest.head()));

        IntegrityViolation v = c.results().get(transfer).violation;
        assertNotNull(v);
        assertEquals(IntegrityViolation.Kind.BAD_PROOF, v.kind());
        IntegrityViolation.Evidence e = v.evidence();
        assertEquals(l.ledger.digest(3), e.trusted());
        assertEquals(l.head(3), e.trustedHead());
        assertEquals(l.digest(), e.serverDigest());
        assertEquals(l.head(), e.serverHead());
        assertEquals(p.proof(), e.proof());
        assertEquals(honest.appendOnly().get(0).proof(), e.appendOnlyProof());
        assertEquals(List.of(transfer.txId()), e.txIds());
        assertTrue(e.claims().contains(new KeyClaim(b("a"), b("1"))), "the promise's own claim is in the evidence");
        assertNull(c.results().get(readOnly).violation, "the read-only promise is checked at another block");
    }

    @Test
    void staleRead_isCaughtAtTheServedBlock() {
        // k1 changes in block 5; a promise served at 5 that says it read k1 at its block-1 version is a stale read
        l.append(l.tx(d -> d.put(b("k1"), b("changed"))));
        PromiseVerifier.Read stale = new PromiseVerifier.Read(b("k1"), b("v1"), 1);
        CommitPromise p = l.promise(l.tx(d -> d.read(b("k1"), 1)), 0, 5, List.of(stale));
        items = ProofBatchPlanner.plan(List.of(p), 10_000);
        BatchChecker c = new BatchChecker(l.trust(5));
        c.check(items, l.answer(items, 5));
        IntegrityViolation v = c.results().get(p).violation;
        assertNotNull(v);
        assertEquals(IntegrityViolation.Kind.BAD_PROOF, v.kind());
    }

    @Test
    void missingAppendOnlyProof_leavesTheLinkToAdoption() {
        Dto.ProofBatchResponse honest = l.answer(items, 3);
        BatchChecker c = check(new Dto.ProofBatchResponse(honest.proofs(), List.of(), honest.head()));
        assertNull(c.results().get(transfer).violation);
        assertNull(c.links().get(4L).fromBase(), "TrustKeeper.adopt fetches it before anything counts as verified");
    }

    @Test
    void appendOnlyProofOfAnotherLedger_isFork() {
        TestLedger other = new TestLedger();
        for (int i = 0; i < 4; i++) {
            int n = i;
            other.append(other.tx(d -> d.put(b("z" + n), b("z"))));
        }
        Dto.ProofBatchResponse honest = l.answer(items, 3);
        Dto.AppendOnlyProofDto ao = honest.appendOnly().get(0);
        Dto.AppendOnlyProofDto forged = new Dto.AppendOnlyProofDto(ao.from(), ao.to(), other.appendOnly(3, 4).proof());
        BatchChecker c = check(new Dto.ProofBatchResponse(honest.proofs(), List.of(forged), honest.head()));
        IntegrityViolation v = c.results().get(transfer).violation;
        assertEquals(IntegrityViolation.Kind.FORK, v.kind());
        assertEquals(forged.proof(), v.evidence().appendOnlyProof());
    }

    @Test
    void blockNotYetPersisted_isPending() {
        SignedTransaction later = l.tx(d -> d.put(b("later"), b("x")));
        CommitPromise p = l.promise(later, 9, 4, List.of());
        items = ProofBatchPlanner.plan(List.of(p), 10_000);
        BatchChecker c = new BatchChecker(l.trust(4));
        c.check(items, l.answer(items, 4));
        assertTrue(c.results().get(p).pending);
        assertNull(c.results().get(p).violation);
    }

    @Test
    void headSignedByAnotherKey_throwsIdentityViolation() {
        Dto.ProofBatchResponse honest = l.answer(items, 3);
        TestLedger other = new TestLedger();
        Dto.SignedHeadDto h = honest.head();
        Dto.SignedHeadDto forged = new Dto.SignedHeadDto(h.shard(), h.block(), h.hash(), h.timestamp(),
                other.server.publicKey().hex(), h.signature());
        IntegrityViolation v = assertThrows(IntegrityViolation.class,
                () -> check(new Dto.ProofBatchResponse(honest.proofs(), honest.appendOnly(), forged)));
        assertEquals(IntegrityViolation.Kind.SERVER_IDENTITY, v.kind());
        Dto.SignedHeadDto badSig = new Dto.SignedHeadDto(h.shard(), h.block(), h.hash(), h.timestamp() + 1,
                h.serverKey(), h.signature());
        v = assertThrows(IntegrityViolation.class,
                () -> check(new Dto.ProofBatchResponse(honest.proofs(), honest.appendOnly(), badSig)));
        assertEquals(IntegrityViolation.Kind.BAD_SIGNATURE, v.kind());
    }

    @Test
    void answerOfTheWrongShape_isBadResponse_notVerified() {
        GlassLedgerException e = assertThrows(GlassLedgerException.class,
                () -> check(new Dto.ProofBatchResponse(List.of(), List.of(), Wire.signedHead(l.head()))));
        assertEquals(GlassLedgerException.BAD_RESPONSE, e.code());
    }

    @Test
    void evidenceMap_usesTheWireForms() {
        Dto.ProofBatchResponse honest = l.answer(items, 3);
        List<Dto.KeysProofDto> proofs = new ArrayList<>(honest.proofs());
        int i = blockIndex(4);
        Dto.KeysProofDto p = proofs.get(i);
        byte[] tampered = Wire.requiredBytes("p", p.proof()).toByteArray();
        tampered[tampered.length - 1] ^= 1;
        proofs.set(i, new Dto.KeysProofDto(p.block(), p.status(), p.digest(), p.claims(), Wire.b64(tampered), null));
        IntegrityViolation v = check(new Dto.ProofBatchResponse(proofs, honest.appendOnly(), honest.head()))
                .results().get(transfer).violation;
        Map<String, Object> m = v.evidence().toMap();
        assertEquals("BAD_PROOF", m.get("kind"));
        assertEquals(new Dto.DigestDto(3, l.ledger.digest(3).root().hex()), m.get("trusted"));
        assertEquals(Wire.signedHead(l.head()), m.get("serverHead"));
        assertEquals(Wire.b64(tampered), m.get("proof"));
        assertEquals(List.of(transfer.txId().hex()), m.get("txIds"));
        assertEquals(List.of(Map.of("key", Wire.b64(b("a")), "value", Wire.b64(b("1"))),
                Map.of("key", Wire.b64(b("k1")), "value", Wire.b64(b("v1")))), m.get("claims"));
        assertTrue(v.getMessage().startsWith("BAD_PROOF: tx " + transfer.txId().hex()), v.getMessage());
        assertNotNull(v.getCause(), "the verifier's own exception is kept");
    }

    private int blockIndex(long block) {
        for (int i = 0; i < items.size(); i++) {
            if (items.get(i).block() == block) {
                return i;
            }
        }
        throw new AssertionError("no item for block " + block);
    }
}
