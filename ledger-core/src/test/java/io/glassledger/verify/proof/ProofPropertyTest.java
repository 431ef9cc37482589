package io.glassledger.verify.proof;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.core.ledger.LedgerModel;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.core.store.InMemoryNodeStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random ledgers: every kind of proof the ledger produces verifies after an encode/decode round trip, and a proof
 * presented for another key, another value, or against another digest is rejected.
 */
class ProofPropertyTest {

    /** Executable verification that may throw; rejection is a VerificationException or a RuntimeException. */
    @FunctionalInterface
    interface Check {
        void run() throws VerificationException;
    }

    static void assertRejected(String what, Check check) {
        try {
            check.run();
        } catch (VerificationException | RuntimeException expected) {
            return;
        }
        fail("accepted: " + what);
    }

    @Provide
    Arbitrary<TreeParams> params() {
        return Combinators.combine(Arbitraries.of(64, 128, 256), Arbitraries.integers().between(512, 1024),
                Arbitraries.of(2, 4), Arbitraries.integers().between(8, 16)).as(TreeParams::new);
    }

    static LedgerModel randomLedger(TreeParams p, Random r) {
        return LedgerModel.random(new InMemoryNodeStore(), p, r, 2 + r.nextInt(10), 5 + r.nextInt(120),
                1 + r.nextInt(60));
    }

    static KeysProof roundTrip(KeysProof p) {
        byte[] enc = p.encode();
        KeysProof back = KeysProof.decode(enc);
        assertArrayEquals(enc, back.encode(), "keys proof encoding is not canonical");
        return back;
    }

    static HistoryProof roundTrip(HistoryProof p) {
        byte[] enc = p.encode();
        HistoryProof back = HistoryProof.decode(enc);
        assertArrayEquals(enc, back.encode(), "history proof encoding is not canonical");
        return back;
    }

    static AppendOnlyProof roundTrip(AppendOnlyProof p) {
        byte[] enc = p.encode();
        AppendOnlyProof back = AppendOnlyProof.decode(enc);
        assertArrayEquals(enc, back.encode(), "append-only proof encoding is not canonical");
        return back;
    }

    /** Random keys outside the ledger's key pool, so never written. */
    static List<Bytes> absentKeys(LedgerModel m, Random r, int n) {
        List<Bytes> out = new ArrayList<>();
        while (out.size() < n) {
            Bytes k = LedgerModel.randomKey(r);
            if (!m.pool().contains(k)) {
                out.add(k);
            }
        }
        return out;
    }

    @Property(tries = 100)
    void everyProofKind_verifiesAfterRoundTrip(@ForAll("params") TreeParams p, @ForAll Random r)
            throws VerificationException {
        LedgerModel m = randomLedger(p, r);
        Ledger l = m.ledger();
        long head = m.head();
        Digest d = l.digest();
        assertEquals(head, d.blockNo());

        List<Bytes> keys = new ArrayList<>(m.pool());
        keys.addAll(absentKeys(m, r, 5));
        for (Bytes k : keys) {
            // Current value or non-existence at the head.
            Bytes v = m.value(k, head);
            assertEquals(v, l.get(k).orElse(null), "ledger value of " + k);
            KeysProof cur = roundTrip(l.proveKeys(List.of(k), head, head));
            if (v != null) {
                ProofVerifier.verifyCurrentValue(d, k, v, cur);
            } else {
                ProofVerifier.verifyNonExistence(d, k, cur);
            }

            // Inclusion (or absence) at an older block, against a digest at or after it.
            long b = r.nextInt((int) head + 1);
            long db = b + r.nextInt((int) (head - b) + 1);
            Bytes vb = m.value(k, b);
            assertEquals(vb, l.get(k, b).orElse(null), "ledger value of " + k + " at " + b);
            KeysProof incl = roundTrip(l.proveKeys(List.of(k), b, db));
            if (vb != null) {
                ProofVerifier.verifyInclusion(l.digest(db), b, k, vb, incl);
            } else {
                ProofVerifier.verifyBatch(l.digest(db), b, List.of(KeyClaim.absent(k)), incl);
            }
        }

        // Batches: random subsets of present and absent keys, claims in any order.
        for (int i = 0; i < 5; i++) {
            List<Bytes> subset = new ArrayList<>(new LinkedHashSet<>(randomSubset(keys, r)));
            long b = r.nextInt((int) head + 1);
            long db = b + r.nextInt((int) (head - b) + 1);
            List<KeyClaim> claims = new ArrayList<>();
            for (Bytes k : subset) {
                claims.add(new KeyClaim(k, m.value(k, b)));
            }
            Collections.shuffle(claims, r);
            ProofVerifier.verifyBatch(l.digest(db), b, claims, roundTrip(l.proveKeys(subset, b, db)));
        }

        // History, newest first, including deletions.
        for (int i = 0; i < 8; i++) {
            Bytes k = keys.get(r.nextInt(keys.size()));
            int limit = 1 + r.nextInt(5);
            long db = r.nextInt((int) head + 1);
            Ledger.History h = l.proveHistory(k, limit, db);
            assertEquals(m.history(k, db, limit), h.versions(), "history of " + k + " at " + db);
            assertEquals(h.versions(), l.history(k, limit, db));
            ProofVerifier.verifyHistory(l.digest(db), k, limit, h.versions(), roundTrip(h.proof()));
        }

        // Append-only between random pairs of blocks.
        for (int i = 0; i < 8; i++) {
            long b1 = r.nextInt((int) head);
            long b2 = b1 + 1 + r.nextInt((int) (head - b1));
            ProofVerifier.verifyAppendOnly(l.digest(b1), l.digest(b2), roundTrip(l.proveAppendOnly(b1, b2)));
        }
    }

    @Property(tries = 60)
    void proofForOneKey_checkedForAnotherKeyOrValue_fails(@ForAll("params") TreeParams p, @ForAll Random r) {
        LedgerModel m = randomLedger(p, r);
        Ledger l = m.ledger();
        long head = m.head();
        Digest d = l.digest();
        List<Bytes> present = new ArrayList<>(m.state(head).keySet());
        List<Bytes> others = new ArrayList<>(m.pool());
        others.addAll(absentKeys(m, r, 3));
        for (int i = 0; i < Math.min(20, present.size()); i++) {
            Bytes a = present.get(r.nextInt(present.size()));
            Bytes va = m.value(a, head);
            KeysProof pa = roundTrip(l.proveKeys(List.of(a), head, head));
            Bytes b = others.get(r.nextInt(others.size()));
            if (!b.equals(a)) {
                Bytes vb = m.value(b, head);
                assertRejected("proof of " + a + " as value of " + b,
                        () -> ProofVerifier.verifyCurrentValue(d, b, va, pa));
                assertRejected("proof of " + a + " as absence of " + b,
                        () -> ProofVerifier.verifyNonExistence(d, b, pa));
                // (With b absent, a proof of a may legitimately prove b's absence too, when b's search path ends on
                // a's entry; so only a present b is a false claim here.)
                if (vb != null) {
                    assertRejected("proof of " + a + " as true value of " + b,
                            () -> ProofVerifier.verifyCurrentValue(d, b, vb, pa));
                    assertRejected("proof of " + a + " in a batch with " + b, () -> ProofVerifier.verifyBatch(d, head,
                            List.of(KeyClaim.present(a, va), KeyClaim.present(b, vb)), pa));
                }
            }
            Bytes wrong = LedgerModel.randomValue(r);
            if (!wrong.equals(va)) {
                assertRejected("wrong value for " + a, () -> ProofVerifier.verifyCurrentValue(d, a, wrong, pa));
            }
            Bytes longer = Bytes.wrap(java.util.Arrays.copyOf(va.toByteArray(), va.length() + 1));
            assertRejected("extended value for " + a, () -> ProofVerifier.verifyCurrentValue(d, a, longer, pa));
            assertRejected("present key " + a + " claimed absent", () -> ProofVerifier.verifyNonExistence(d, a, pa));
        }
        // A non-existence proof does not show a value for the key.
        for (Bytes k : absentKeys(m, r, 5)) {
            KeysProof pk = roundTrip(l.proveKeys(List.of(k), head, head));
            assertRejected("absent key " + k + " claimed present",
                    () -> ProofVerifier.verifyCurrentValue(d, k, Bytes.EMPTY, pk));
        }
    }

    @Property(tries = 60)
    void proof_checkedAgainstStaleNewerOrForeignDigest_fails(@ForAll("params") TreeParams p, @ForAll Random r) {
        LedgerModel m = randomLedger(p, r);
        Ledger l = m.ledger();
        long head = m.head();
        // Another ledger of the same length, with different data.
        LedgerModel other = LedgerModel.random(new InMemoryNodeStore(), p, new Random(r.nextLong()), (int) head,
                5 + r.nextInt(50), 1 + r.nextInt(30));
        // Genesis blocks are equal (same parameters and timestamp); everything after differs.
        for (long b = 1; b <= head; b++) {
            // Rarely both generators make the same first blocks (say, only no-op deletes); no foreign digest then.
            net.jqwik.api.Assume.that(!l.digest(b).equals(other.ledger().digest(b)));
        }

        List<Bytes> present = new ArrayList<>(m.state(head).keySet());
        if (!present.isEmpty()) {
            Bytes k = present.get(r.nextInt(present.size()));
            Bytes v = m.value(k, head);
            KeysProof cur = roundTrip(l.proveKeys(List.of(k), head, head));
            assertRejected("current value against the previous digest",
                    () -> ProofVerifier.verifyCurrentValue(l.digest(head - 1), k, v, cur));
            assertRejected("current value against the previous digest's root at the head's number",
                    () -> ProofVerifier.verifyCurrentValue(new Digest(head, l.digest(head - 1).root()), k, v, cur));
            assertRejected("current value against a foreign digest",
                    () -> ProofVerifier.verifyCurrentValue(other.ledger().digest(head), k, v, cur));
        }
        m.appendRandomBlock(r, 5);
        long now = m.head();
        if (!present.isEmpty()) {
            Bytes k = present.get(r.nextInt(present.size()));
            Bytes v = m.value(k, head);
            KeysProof cur = roundTrip(l.proveKeys(List.of(k), head, head));
            assertRejected("current value against a newer digest",
                    () -> ProofVerifier.verifyCurrentValue(l.digest(now), k, v, cur));
            assertRejected("current-value proof used as inclusion under a newer digest",
                    () -> ProofVerifier.verifyInclusion(l.digest(now), head, k, v, cur));
        }
        // Inclusion proofs at block b against the digest at db, checked against other digests.
        for (int i = 0; i < 10; i++) {
            long b = r.nextInt((int) now);
            long db = b + 1 + r.nextInt((int) (now - b));
            List<Bytes> keys = new ArrayList<>(m.state(b).keySet());
            if (keys.isEmpty()) {
                continue;
            }
            Bytes k = keys.get(r.nextInt(keys.size()));
            Bytes v = m.value(k, b);
            KeysProof incl = roundTrip(l.proveKeys(List.of(k), b, db));
            for (long other2 = b; other2 <= now; other2++) {
                if (other2 != db) {
                    long x = other2;
                    assertRejected("inclusion at " + b + " made for digest " + db + ", checked against " + x,
                            () -> ProofVerifier.verifyInclusion(l.digest(x), b, k, v, incl));
                }
            }
            if (db <= head) {
                assertRejected("inclusion against a foreign digest",
                        () -> ProofVerifier.verifyInclusion(other.ledger().digest(db), b, k, v, incl));
            }
            assertRejected("inclusion claimed for another block",
                    () -> ProofVerifier.verifyInclusion(l.digest(db), b == 0 ? 1 : b - 1, k, v, incl));
        }
        // Append-only proofs against the wrong digests.
        for (int i = 0; i < 10; i++) {
            long b1 = r.nextInt((int) head);
            long b2 = b1 + 1 + r.nextInt((int) (head - b1));
            AppendOnlyProof ap = roundTrip(l.proveAppendOnly(b1, b2));
            assertRejected("append-only with swapped digests",
                    () -> ProofVerifier.verifyAppendOnly(l.digest(b2), l.digest(b1), ap));
            assertRejected("append-only to a foreign newer digest",
                    () -> ProofVerifier.verifyAppendOnly(l.digest(b1), other.ledger().digest(b2), ap));
            if (b1 > 0) {
                assertRejected("append-only from a foreign older digest",
                        () -> ProofVerifier.verifyAppendOnly(other.ledger().digest(b1), l.digest(b2), ap));
            }
            if (b2 < now) {
                assertRejected("append-only against a newer second digest",
                        () -> ProofVerifier.verifyAppendOnly(l.digest(b1), l.digest(b2 + 1), ap));
            }
        }
        // History against other digests.
        Bytes hk = m.pool().get(r.nextInt(m.pool().size()));
        Ledger.History h = l.proveHistory(hk, 3, head);
        HistoryProof hp = roundTrip(h.proof());
        assertRejected("history against the previous digest",
                () -> ProofVerifier.verifyHistory(l.digest(head - 1), hk, 3, h.versions(), hp));
        assertRejected("history against a foreign digest",
                () -> ProofVerifier.verifyHistory(other.ledger().digest(head), hk, 3, h.versions(), hp));
    }

    @Property(tries = 60)
    void randomBitFlips_inProofsOfRandomLedgers_areRejected(@ForAll("params") TreeParams p, @ForAll Random r) {
        LedgerModel m = randomLedger(p, r);
        Ledger l = m.ledger();
        long head = m.head();
        Digest d = l.digest();
        List<Bytes> keys = new ArrayList<>(m.pool());
        keys.addAll(absentKeys(m, r, 3));
        Bytes k = keys.get(r.nextInt(keys.size()));
        long b = r.nextInt((int) head + 1);
        Bytes vb = m.value(k, b);
        List<Bytes> subset = new ArrayList<>(new LinkedHashSet<>(randomSubset(keys, r)));
        List<KeyClaim> claims = new ArrayList<>();
        for (Bytes s : subset) {
            claims.add(new KeyClaim(s, m.value(s, b)));
        }
        int limit = 1 + r.nextInt(5);
        Ledger.History h = l.proveHistory(k, limit, head);
        long b1 = r.nextInt((int) head);
        long b2 = b1 + 1 + r.nextInt((int) (head - b1));

        List<byte[]> encodings = List.of(l.proveKeys(List.of(k), b, head).encode(),
                l.proveKeys(subset, b, head).encode(), h.proof().encode(), l.proveAppendOnly(b1, b2).encode());
        for (int i = 0; i < encodings.size(); i++) {
            int kind = i;
            for (int flip = 0; flip < 60; flip++) {
                byte[] t = encodings.get(kind).clone();
                int bit = r.nextInt(t.length * 8);
                t[bit / 8] ^= (byte) (1 << (bit % 8));
                String what = "kind " + kind + " bit " + bit + " of " + t.length + " bytes";
                assertRejected(what, () -> {
                    switch (kind) {
                        case 0 -> ProofVerifier.verifyBatch(d, b, List.of(new KeyClaim(k, vb)), KeysProof.decode(t));
                        case 1 -> ProofVerifier.verifyBatch(d, b, claims, KeysProof.decode(t));
                        case 2 -> ProofVerifier.verifyHistory(d, k, limit, h.versions(), HistoryProof.decode(t));
                        default -> ProofVerifier.verifyAppendOnly(l.digest(b1), l.digest(b2),
                                AppendOnlyProof.decode(t));
                    }
                });
            }
        }
    }

    private static List<Bytes> randomSubset(List<Bytes> keys, Random r) {
        List<Bytes> out = new ArrayList<>();
        int n = 1 + r.nextInt(Math.min(keys.size(), 40));
        for (int i = 0; i < n; i++) {
            out.add(keys.get(r.nextInt(keys.size())));
        }
        return out;
    }
}
