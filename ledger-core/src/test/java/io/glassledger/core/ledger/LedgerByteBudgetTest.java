package io.glassledger.core.ledger;

import io.glassledger.verify.block.BlockSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.verify.proof.KeysProof;
import io.glassledger.verify.proof.ProofVerifier;
import io.glassledger.core.store.InMemoryNodeStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The byte budgets of proofs, histories and scans (issue 15.3): an answer over budget stops with
 * {@link ProofTooLargeException} while it is collected; what a budget admits is never larger, encoded, than what was
 * charged for it.
 */
class LedgerByteBudgetTest {
    static final int BIG = 100_000;
    private Ledger ledger;
    private long seed;

    @BeforeEach
    void bigValues() {
        seed = System.nanoTime();
        System.out.println("LedgerByteBudgetTest seed " + seed);
        Random rnd = new Random(seed);
        ledger = Ledger.openOrCreate(new InMemoryNodeStore(), TreeParams.DEFAULT, 0);
        List<Mutation> w = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            w.add(Mutation.put(Bytes.utf8("big-" + i), big(rnd)));
        }
        for (int i = 0; i < 200; i++) {
            w.add(Mutation.put(Bytes.utf8("small-" + i), Bytes.utf8("v" + i)));
        }
        ledger.append(List.of(new BlockSpec(1, List.of(), w)));
        for (int v = 0; v < 4; v++) {
            ledger.append(List.of(new BlockSpec(2 + v, List.of(), List.of(Mutation.put(Bytes.utf8("hist"), big(rnd))))));
        }
    }

    /**
     * A neighbour shows its value by hash (FORMAT.md §3), so proving a key absent next to a large value needs a small
     * budget whatever that value's size; a budget below even that is still refused while the proof is collected.
     */
    @Test
    void proveKeys_absentKeyNextToALargeValue_fitsASmallBudget_andATinyOneThrows() throws Exception {
        List<Bytes> absent = List.of(Bytes.utf8("big-0x"));
        assertThrows(ProofTooLargeException.class, () -> ledger.proveKeys(absent, 1, 1, 64));
        ByteBudget enough = new ByteBudget(16 << 10, "test");
        KeysProof p = ledger.proveKeys(absent, 1, 1, enough);
        ProofVerifier.verifyNonExistence(ledger.digest(1), absent.get(0), p);
        assertTrue(p.encode().length <= enough.used(), p.encode().length + " encoded, " + enough.used() + " charged");
    }

    @Test
    void proveKeys_chargesAtLeastTheEncodedSize() {
        Random rnd = new Random(seed);
        for (int round = 0; round < 20; round++) {
            List<Bytes> keys = new ArrayList<>();
            for (int i = 0, n = 1 + rnd.nextInt(30); i < n; i++) {
                keys.add(Bytes.utf8(rnd.nextBoolean() ? "small-" + rnd.nextInt(300) : "big-" + rnd.nextInt(6) + "x"));
            }
            ByteBudget b = new ByteBudget(Long.MAX_VALUE, "test");
            KeysProof p = ledger.proveKeys(keys, 1, ledger.digest().blockNo(), b);
            assertTrue(p.encode().length <= b.used(), "round " + round + ": " + p.encode().length + " encoded, "
                    + b.used() + " charged (seed " + seed + ")");
        }
    }

    @Test
    void proveHistory_overBudget_saysHowManyVersionsFit() {
        var x = assertThrows(ProofTooLargeException.class, () -> ledger.proveHistory(Bytes.utf8("hist"), 1000,
                ledger.digest().blockNo(), 2L * BIG + BIG / 2));
        assertTrue(x.getMessage().contains("its latest 2 versions fit"), x.getMessage());
        var h = ledger.proveHistory(Bytes.utf8("hist"), 2, ledger.digest().blockNo(), 2L * BIG + BIG / 2);
        assertEquals(2, h.versions().size());
    }

    @Test
    void scan_overBudget_endsThePageEarlyWithMore() {
        Ledger.ScanPage page = ledger.scan(Bytes.utf8("big-"), Bytes.utf8("big."), 1, 100, 2L * BIG + BIG / 2);
        assertEquals(2, page.entries().size());
        assertTrue(page.more());
        Ledger.ScanPage all = ledger.scan(Bytes.utf8("big-"), Bytes.utf8("big."), 1, 100, 10L * BIG);
        assertEquals(5, all.entries().size());
        assertFalse(all.more());
    }

    static Bytes big(Random rnd) {
        byte[] v = new byte[BIG];
        rnd.nextBytes(v);
        return Bytes.of(v);
    }
}
