package io.glassledger.verify.proof;

import static io.glassledger.verify.proof.ProofPropertyTest.assertRejected;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.block.BlockSpec;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.core.ledger.LedgerModel;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.core.store.InMemoryNodeStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Tampering with small proofs of every type is caught: every single-bit flip of every byte, truncation at every
 * length, and a trailing byte. Also false history claims and swapped append-only digests. Rejection means a
 * {@link VerificationException} or a RuntimeException (such as MalformedException) from decoding.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ProofTamperTest {
    /** Decodes a (possibly tampered) encoding and verifies it against the fixed claim. */
    @FunctionalInterface
    interface Verifier {
        void verify(byte[] encoded) throws VerificationException;
    }

    record Case(String name, byte[] encoded, Verifier verifier) {
    }

    private static final TreeParams PARAMS = new TreeParams(2, 16, 2, 8);
    private static final Bytes HIST = key(7);

    private LedgerModel model;
    private Ledger ledger;
    private long head;
    private Digest digest;

    static Bytes key(int i) {
        return Bytes.utf8(String.format("key-%02d", i));
    }

    /**
     * Eight blocks over 40 keys. key-07 is written at blocks 1, 3, 6 and 8 and deleted at block 5, so its
     * history holds a deletion; key-11 is deleted at the head.
     */
    @BeforeAll
    void buildLedger() {
        List<Bytes> pool = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            pool.add(key(i));
        }
        model = LedgerModel.create(new InMemoryNodeStore(), PARAMS, pool);
        Random r = new Random(42);
        for (int b = 1; b <= 8; b++) {
            List<Mutation> w = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                boolean write = b == 1 || (i != 7 && r.nextInt(5) == 0);
                if (i == 7) {
                    write = b == 1 || b == 3 || b == 5 || b == 6 || b == 8;
                }
                if (i == 11 && b == 8) {
                    w.add(Mutation.delete(key(i)));
                } else if (i == 7 && b == 5) {
                    w.add(Mutation.delete(key(i)));
                } else if (write) {
                    w.add(Mutation.put(key(i), Bytes.utf8("v" + b + "-" + i + "-" + r.nextInt(1000))));
                }
            }
            model.append(new BlockSpec(LedgerModel.GENESIS_TS + b, List.of(Bytes.utf8("tx" + b)), w));
        }
        ledger = model.ledger();
        head = model.head();
        digest = ledger.digest();
        assertEquals(5, model.versionCount(HIST, head));
        assertTrue(ledger.proveKeys(List.of(HIST), head, head).lower().rootLevel() >= 2,
                "the test tree should have several levels");
    }

    private List<Case> cases() {
        List<Case> cases = new ArrayList<>();
        Bytes v7 = model.value(HIST, head);
        cases.add(new Case("current value", ledger.proveKeys(List.of(HIST), head, head).encode(),
                e -> ProofVerifier.verifyCurrentValue(digest, HIST, v7, KeysProof.decode(e))));
        Bytes never = Bytes.utf8("key-07x");
        cases.add(new Case("non-existence of a key never written",
                ledger.proveKeys(List.of(never), head, head).encode(),
                e -> ProofVerifier.verifyNonExistence(digest, never, KeysProof.decode(e))));
        Bytes deleted = key(11);
        cases.add(new Case("non-existence of a deleted key", ledger.proveKeys(List.of(deleted), head, head).encode(),
                e -> ProofVerifier.verifyNonExistence(digest, deleted, KeysProof.decode(e))));
        Bytes k3 = key(3);
        Bytes v3at2 = model.value(k3, 2);
        cases.add(new Case("inclusion at block 2", ledger.proveKeys(List.of(k3), 2, head).encode(),
                e -> ProofVerifier.verifyInclusion(digest, 2, k3, v3at2, KeysProof.decode(e))));
        cases.add(new Case("absence in the empty genesis state", ledger.proveKeys(List.of(k3), 0, head).encode(),
                e -> ProofVerifier.verifyBatch(digest, 0, List.of(KeyClaim.absent(k3)), KeysProof.decode(e))));
        List<Bytes> batchKeys = List.of(key(3), HIST, key(12), key(39), Bytes.utf8("key-20a"), Bytes.utf8("a"));
        List<KeyClaim> claims = new ArrayList<>();
        for (Bytes k : batchKeys) {
            claims.add(new KeyClaim(k, model.value(k, 5)));
        }
        cases.add(new Case("batch at block 5", ledger.proveKeys(batchKeys, 5, head).encode(),
                e -> ProofVerifier.verifyBatch(digest, 5, claims, KeysProof.decode(e))));
        for (int limit : new int[] {1, 2, 10}) {
            Ledger.History h = ledger.proveHistory(HIST, limit, head);
            cases.add(new Case("history limit " + limit, h.proof().encode(),
                    e -> ProofVerifier.verifyHistory(digest, HIST, limit, h.versions(), HistoryProof.decode(e))));
        }
        Ledger.History none = ledger.proveHistory(never, 3, head);
        cases.add(new Case("empty history", none.proof().encode(),
                e -> ProofVerifier.verifyHistory(digest, never, 3, List.of(), HistoryProof.decode(e))));
        for (long b1 = 0; b1 < head; b1++) {
            for (long b2 = b1 + 1; b2 <= head; b2++) {
                Digest d1 = ledger.digest(b1);
                Digest d2 = ledger.digest(b2);
                cases.add(new Case("append-only " + b1 + "→" + b2, ledger.proveAppendOnly(b1, b2).encode(),
                        e -> ProofVerifier.verifyAppendOnly(d1, d2, AppendOnlyProof.decode(e))));
            }
        }
        return cases;
    }

    private static boolean accepted(Case c, byte[] bytes) {
        try {
            c.verifier().verify(bytes);
            return true;
        } catch (VerificationException | RuntimeException rejected) {
            return false;
        }
    }

    @Test
    void untamperedProofs_verify() throws VerificationException {
        for (Case c : cases()) {
            c.verifier().verify(c.encoded().clone());
        }
    }

    @Test
    void everySingleBitFlip_isRejected() {
        List<String> accepted = new ArrayList<>();
        int total = 0;
        for (Case c : cases()) {
            byte[] enc = c.encoded();
            for (int i = 0; i < enc.length; i++) {
                for (int bit = 0; bit < 8; bit++) {
                    byte[] t = enc.clone();
                    t[i] ^= (byte) (1 << bit);
                    total++;
                    if (accepted(c, t)) {
                        accepted.add(c.name() + ": byte " + i + " bit " + bit + " of " + enc.length);
                    }
                }
            }
        }
        assertEquals(List.of(), accepted, "bit flips accepted out of " + total);
    }

    @Test
    void truncationAtEveryLength_isRejected() {
        List<String> accepted = new ArrayList<>();
        for (Case c : cases()) {
            byte[] enc = c.encoded();
            for (int len = 0; len < enc.length; len++) {
                if (accepted(c, Arrays.copyOf(enc, len))) {
                    accepted.add(c.name() + ": truncated to " + len + " of " + enc.length);
                }
            }
        }
        assertEquals(List.of(), accepted);
    }

    @Test
    void trailingByte_isRejected() {
        List<String> accepted = new ArrayList<>();
        for (Case c : cases()) {
            byte[] enc = c.encoded();
            for (int extra : new int[] {0x00, 0x01, 0x80, 0xff}) {
                byte[] t = Arrays.copyOf(enc, enc.length + 1);
                t[enc.length] = (byte) extra;
                if (accepted(c, t)) {
                    accepted.add(c.name() + ": trailing byte " + extra);
                }
            }
        }
        assertEquals(List.of(), accepted);
    }

    @Test
    void appendOnly_withSwappedDigests_fails() {
        for (long b1 = 0; b1 < head; b1++) {
            for (long b2 = b1 + 1; b2 <= head; b2++) {
                AppendOnlyProof p = ledger.proveAppendOnly(b1, b2);
                Digest d1 = ledger.digest(b1);
                Digest d2 = ledger.digest(b2);
                String pair = b1 + "→" + b2;
                assertRejected("swapped digests " + pair, () -> ProofVerifier.verifyAppendOnly(d2, d1, p));
                assertRejected("first digest twice " + pair, () -> ProofVerifier.verifyAppendOnly(d1, d1, p));
                assertRejected("second digest twice " + pair, () -> ProofVerifier.verifyAppendOnly(d2, d2, p));
                // A proof whose block numbers are swapped along with the digests is no proof either.
                AppendOnlyProof swapped = new AppendOnlyProof(b2, b1, p.upperRoot1(), p.lowerRoot2(), p.bodyHash2(),
                        p.lowerRoot1(), p.bodyHash1(), p.consistency(), p.inclusion());
                assertRejected("swapped proof " + pair, () -> ProofVerifier.verifyAppendOnly(d2, d1, swapped));
            }
        }
    }

    @Test
    void historyClaim_withVersionDroppedReorderedOrAltered_fails() throws VerificationException {
        Ledger.History h = ledger.proveHistory(HIST, 10, head);
        List<Version> vs = h.versions();
        assertEquals(model.history(HIST, head, 10), vs);
        assertEquals(5, vs.size());
        HistoryProof p = h.proof();
        ProofVerifier.verifyHistory(digest, HIST, 10, vs, p);

        for (int i = 0; i < vs.size(); i++) {
            List<Version> dropped = new ArrayList<>(vs);
            dropped.remove(i);
            assertRejected("version " + i + " dropped",
                    () -> ProofVerifier.verifyHistory(digest, HIST, 10, dropped, p));
            int j = i;
            for (long delta : new long[] {-1, 1, 100}) {
                List<Version> renumbered = new ArrayList<>(vs);
                renumbered.set(j, new Version(vs.get(j).value(), vs.get(j).blockNo() + delta));
                assertRejected("version " + j + " with block number moved by " + delta,
                        () -> ProofVerifier.verifyHistory(digest, HIST, 10, renumbered, p));
            }
            List<Version> revalued = new ArrayList<>(vs);
            Bytes v = vs.get(i).value();
            revalued.set(i, new Version(v == null ? Bytes.EMPTY : null, vs.get(i).blockNo()));
            assertRejected("version " + i + " with deletion and value swapped",
                    () -> ProofVerifier.verifyHistory(digest, HIST, 10, revalued, p));
            if (v != null) {
                List<Version> otherValue = new ArrayList<>(vs);
                otherValue.set(i, new Version(Bytes.utf8(v.utf8String() + "x"), vs.get(i).blockNo()));
                assertRejected("version " + i + " with another value",
                        () -> ProofVerifier.verifyHistory(digest, HIST, 10, otherValue, p));
            }
            for (int k = i + 1; k < vs.size(); k++) {
                List<Version> reordered = new ArrayList<>(vs);
                reordered.set(i, vs.get(k));
                reordered.set(k, vs.get(i));
                assertRejected("versions " + i + " and " + k + " swapped",
                        () -> ProofVerifier.verifyHistory(digest, HIST, 10, reordered, p));
            }
        }
        List<Version> duplicated = new ArrayList<>(vs);
        duplicated.add(vs.get(vs.size() - 1));
        assertRejected("last version repeated", () -> ProofVerifier.verifyHistory(digest, HIST, 10, duplicated, p));
        assertRejected("no versions claimed", () -> ProofVerifier.verifyHistory(digest, HIST, 10, List.of(), p));
        assertRejected("limit below the versions claimed",
                () -> ProofVerifier.verifyHistory(digest, HIST, 4, vs, p));
        assertRejected("limit zero", () -> ProofVerifier.verifyHistory(digest, HIST, 0, vs, p));
        assertRejected("history of another key", () -> ProofVerifier.verifyHistory(digest, key(8), 10, vs, p));

        // A history cut short by its limit cannot pass for the whole history under a larger limit.
        Ledger.History two = ledger.proveHistory(HIST, 2, head);
        ProofVerifier.verifyHistory(digest, HIST, 2, two.versions(), two.proof());
        assertRejected("truncated history under a larger limit",
                () -> ProofVerifier.verifyHistory(digest, HIST, 3, two.versions(), two.proof()));
        assertRejected("truncated history under an unbounded limit",
                () -> ProofVerifier.verifyHistory(digest, HIST, Integer.MAX_VALUE, two.versions(), two.proof()));

        // The history of a key with no versions cannot be claimed as empty for a key that has some.
        Ledger.History none = ledger.proveHistory(Bytes.utf8("key-07x"), 3, head);
        assertEquals(List.of(), none.versions());
        ProofVerifier.verifyHistory(digest, Bytes.utf8("key-07x"), 3, List.of(), none.proof());
        assertRejected("empty history proof used for a key with versions",
                () -> ProofVerifier.verifyHistory(digest, HIST, 3, List.of(), none.proof()));
    }
}
