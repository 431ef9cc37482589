package io.glassledger.verify.proof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.block.BlockSpec;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.core.store.InMemoryNodeStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A proof never carries a value it was not asked for (FORMAT.md §3, §9): its size is bounded by the tree's shape and
 * the claimed values, whatever the values of the neighbours it shows. The ledger holds keys {@code k/00..k/11}
 * under DEFAULT parameters; even-numbered keys hold 1 MiB values, odd-numbered ones a byte. Under the old entry
 * hash (over the whole value) a neighbour shown for absence cost its whole value, so these proofs were over 1 MiB.
 */
class ProofSizeTest {
    /** Far below one neighbour value (1 MiB), far above any path of this tree. */
    private static final int BOUND = 16 * 1024;

    private static Ledger ledger;

    @BeforeAll
    static void build() {
        Random rnd = new Random(0x51CEL);
        ledger = Ledger.openOrCreate(new InMemoryNodeStore(), TreeParams.DEFAULT, 1_700_000_000_000L);
        for (int block = 1; block <= 3; block++) {
            List<Mutation> writes = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                // Every block rewrites the 1 MiB neighbours, and k/01 too: a history of small values among them.
                if (i % 2 == 0 || i == 1 || block == 1) {
                    byte[] v = new byte[i % 2 == 0 ? Entry.MAX_VALUE_BYTES : 1];
                    rnd.nextBytes(v);
                    writes.add(Mutation.put(key(i), Bytes.wrap(v)));
                }
            }
            ledger.append(List.of(new BlockSpec(1_700_000_000_000L + block, List.of(Bytes.utf8("t" + block)),
                    writes)));
        }
    }

    private static Bytes key(int i) {
        return Bytes.utf8(String.format("k/%02d", i));
    }

    private static void assertSmall(String what, byte[] proof) {
        assertTrue(proof.length < BOUND, what + ": " + proof.length + " bytes, bound " + BOUND);
    }

    @Test
    void nonExistence_betweenMiBNeighbours_isSmall() throws VerificationException {
        Digest d = ledger.digest();
        for (int i = 0; i < 12; i += 2) {
            // k/00x sorts right after k/00 (1 MiB) and before k/01: the path ends on one of them.
            Bytes absent = Bytes.utf8(String.format("k/%02dx", i));
            byte[] proof = ledger.proveKeys(List.of(absent), d.blockNo(), d.blockNo()).encode();
            assertSmall("absence of " + absent, proof);
            ProofVerifier.verifyNonExistence(d, absent, proof);
        }
    }

    @Test
    void currentValue_betweenMiBNeighbours_isSmall() throws VerificationException {
        Digest d = ledger.digest();
        Bytes value = ledger.get(key(3)).orElseThrow();
        byte[] proof = ledger.proveKeys(List.of(key(3)), d.blockNo(), d.blockNo()).encode();
        assertSmall("current value of k/03", proof);
        ProofVerifier.verifyCurrentValue(d, key(3), value, proof);
    }

    @Test
    void batchOfAbsentKeys_amongMiBNeighbours_isSmall() throws VerificationException {
        Digest d = ledger.digest();
        List<KeyClaim> claims = new ArrayList<>();
        List<Bytes> keys = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            Bytes k = Bytes.utf8(String.format("k/%02dx", i));
            keys.add(k);
            claims.add(KeyClaim.absent(k));
        }
        byte[] proof = ledger.proveKeys(keys, d.blockNo(), d.blockNo()).encode();
        assertSmall("12 absent keys", proof);
        ProofVerifier.verifyBatch(d, d.blockNo(), claims, proof);
    }

    @Test
    void history_amongMiBNeighbours_costsItsClaimedValuesOnly() throws VerificationException {
        Digest d = ledger.digest();
        Ledger.History h = ledger.proveHistory(key(1), 10, d.blockNo());
        assertEquals(3, h.versions().size());
        byte[] proof = h.proof().encode();
        assertSmall("history of k/01", proof);
        ProofVerifier.verifyHistory(d, key(1), 10, h.versions(), proof);

        Bytes absent = Bytes.utf8("k/04x");
        Ledger.History none = ledger.proveHistory(absent, 10, d.blockNo());
        assertTrue(none.versions().isEmpty());
        byte[] noneProof = none.proof().encode();
        assertSmall("history of an absent key", noneProof);
        ProofVerifier.verifyHistory(d, absent, 10, List.of(), noneProof);
    }
}
