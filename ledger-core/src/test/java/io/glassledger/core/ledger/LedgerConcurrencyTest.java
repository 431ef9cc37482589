package io.glassledger.core.ledger;

import io.glassledger.verify.block.BlockSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.ProofVerifier;
import io.glassledger.core.store.InMemoryNodeStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The threading contract in {@link Ledger}'s Javadoc: reads and proofs run concurrently with appends and see a
 * consistent ledger. A writer rewrites one key in every block (its value names the block); a reader asks for the
 * key at a block it just saw as the head, and proves it.
 *
 * <p>The race these look for has a window of a few nanoseconds per read, so each test runs for a few seconds (or
 * until the first wrong answer) with a ledger small enough that appends are fast.
 */
class LedgerConcurrencyTest {
    private static final Bytes KEY = Bytes.utf8("counter");
    private static final long RUN_MILLIS = 5_000;

    private static Bytes valueAt(long block) {
        return Bytes.utf8("block-" + block);
    }

    private static Ledger ledger(int filler) {
        Ledger l = Ledger.openOrCreate(new InMemoryNodeStore(), new TreeParams(4, 32, 4, 16), 0);
        List<Mutation> writes = new ArrayList<>();
        for (int i = 0; i < filler; i++) {
            writes.add(Mutation.put(Bytes.utf8("filler-" + i), Bytes.utf8("v" + i)));
        }
        writes.add(Mutation.put(KEY, valueAt(1)));
        l.append(List.of(new BlockSpec(1, List.of(), writes)));
        return l;
    }

    /** Runs the writer until {@code stop}, appending a block that sets KEY to its own number. */
    private static Thread writer(Ledger l, AtomicBoolean stop, ConcurrentLinkedQueue<String> errors) {
        Thread t = new Thread(() -> {
            try {
                while (!stop.get()) {
                    long n = l.digest().blockNo() + 1;
                    l.append(List.of(new BlockSpec(n, List.of(), List.of(Mutation.put(KEY, valueAt(n))))));
                }
            } catch (RuntimeException e) {
                errors.add("writer: " + e);
            }
        }, "ledger-writer");
        t.start();
        return t;
    }

    @Test
    void get_atTheBlockJustSeenAsHead_returnsThatBlocksValueWhileAppending() throws Exception {
        Ledger l = ledger(0);
        AtomicBoolean stop = new AtomicBoolean();
        ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        Thread w = writer(l, stop, errors);
        long deadline = System.currentTimeMillis() + RUN_MILLIS;
        long reads = 0;
        try {
            while (System.currentTimeMillis() < deadline && errors.isEmpty()) {
                for (int i = 0; i < 1000; i++) {
                    long n = l.digest().blockNo();
                    Bytes got = l.get(KEY, n).orElse(null);
                    reads++;
                    if (!valueAt(n).equals(got)) {
                        errors.add("get(key, " + n + ") returned " + (got == null ? null : got.utf8String())
                                + " after " + reads + " reads");
                        break;
                    }
                }
            }
        } finally {
            stop.set(true);
            w.join();
        }
        assertEquals(List.of(), List.copyOf(errors));
    }

    @Test
    void proofsAndHistory_forTheBlockJustSeenAsHead_verifyWhileAppending() throws Exception {
        Ledger l = ledger(300);
        AtomicBoolean stop = new AtomicBoolean();
        ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        Thread w = writer(l, stop, errors);
        long deadline = System.currentTimeMillis() + RUN_MILLIS / 3;
        try {
            while (System.currentTimeMillis() < deadline && errors.isEmpty()) {
                Digest d = l.digest();
                long n = d.blockNo();
                try {
                    ProofVerifier.verifyCurrentValue(d, KEY, valueAt(n), l.proveKeys(List.of(KEY), n, n));
                    Ledger.History h = l.proveHistory(KEY, 3, n);
                    ProofVerifier.verifyHistory(d, KEY, 3, h.versions(), h.proof());
                    assertEquals(valueAt(n), h.versions().get(0).value());
                    if (n > 1) {
                        ProofVerifier.verifyAppendOnly(l.digest(n - 1), d, l.proveAppendOnly(n - 1, n));
                    }
                } catch (Exception | AssertionError e) {
                    errors.add("at block " + n + ": " + e);
                }
            }
        } finally {
            stop.set(true);
            w.join();
        }
        assertEquals(List.of(), List.copyOf(errors));
    }
}
