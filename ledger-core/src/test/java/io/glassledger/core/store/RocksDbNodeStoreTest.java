package io.glassledger.core.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.glassledger.verify.LedgerException;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.block.BlockSpec;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.core.ledger.LedgerModel;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.ProofVerifier;
import io.glassledger.verify.proof.VerificationException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RocksDbNodeStoreTest extends NodeStoreContract {
    private static final TreeParams PARAMS = new TreeParams(4, 32, 4, 16);

    @TempDir
    Path dir;

    private Path db() {
        return dir.resolve("db");
    }

    @Override
    protected NodeStore newStore() {
        return new RocksDbNodeStore(db());
    }

    /** Closes the current store and opens the same directory again. */
    private NodeStore reopen() {
        store.close();
        store = new RocksDbNodeStore(db());
        return store;
    }

    @Test
    void reopen_keepsNodesBlocksUpperHashesAndMeta() {
        store.write(new StoreBatch().putNode(hashOf("a"), bytes("node a")).putBlock(0, bytes("b0"))
                .putBlock(1, bytes("b1")).putUpper(0, 0, hashOf("u")).putUpper(3, 7, hashOf("u37"))
                .putMeta("m", bytes("v")));
        reopen();
        assertEquals(2, store.blockCount());
        assertArrayEquals(bytes("node a"), store.node(hashOf("a")));
        assertArrayEquals(bytes("b0"), store.block(0));
        assertArrayEquals(bytes("b1"), store.block(1));
        assertEquals(hashOf("u"), store.upper(0, 0));
        assertEquals(hashOf("u37"), store.upper(3, 7));
        assertArrayEquals(bytes("v"), store.meta("m"));
        // Appending goes on at the right number after a reopen, and gaps are still refused.
        assertThrows(RuntimeException.class, () -> store.write(new StoreBatch().putBlock(3, bytes("gap"))));
        store.write(new StoreBatch().putBlock(2, bytes("b2")));
        reopen();
        assertEquals(3, store.blockCount());
    }

    @Test
    void reopen_ofEmptyStore_isEmpty() {
        reopen();
        assertEquals(0, store.blockCount());
    }

    @Test
    void ledger_afterCloseAndReopen_hasSameDigestsValuesAndProofsAndKeepsAppending() throws VerificationException {
        long seed = 77;
        LedgerModel m = LedgerModel.random(store, PARAMS, new Random(seed), 15, 80, 50);
        // The same blocks in memory, as the reference.
        LedgerModel ref = LedgerModel.random(new InMemoryNodeStore(), PARAMS, new Random(seed), 15, 80, 50);
        Ledger before = m.ledger();
        long head = m.head();
        List<Digest> digests = new ArrayList<>();
        for (long b = 0; b <= head; b++) {
            digests.add(before.digest(b));
            assertEquals(ref.ledger().digest(b), before.digest(b), "digest at " + b + " differs from in-memory");
        }
        List<byte[]> proofs = proofs(before, m, head);

        reopen();
        Ledger after = Ledger.open(store);
        assertEquals(before.digest(), after.digest());
        assertEquals(before.params(), after.params());
        for (long b = 0; b <= head; b++) {
            assertEquals(digests.get((int) b), after.digest(b), "digest at " + b);
            assertArrayEquals(ref.ledger().block(b).encode(), after.block(b).encode(), "block " + b);
        }
        for (Bytes k : m.pool()) {
            for (long b = 0; b <= head; b++) {
                assertEquals(m.value(k, b), after.get(k, b).orElse(null), "value of " + k + " at " + b);
            }
        }
        List<byte[]> again = proofs(after, m, head);
        for (int i = 0; i < proofs.size(); i++) {
            assertArrayEquals(proofs.get(i), again.get(i), "proof " + i + " changed across the reopen");
        }

        // Appending continues where it left off, exactly as in memory.
        Random more = new Random(seed + 1);
        for (int i = 0; i < 5; i++) {
            BlockSpec spec = LedgerModel.randomSpec(more, m.pool(), after.digest().blockNo() + 1, 50);
            after.append(List.of(spec));
            ref.append(spec);
            assertEquals(ref.ledger().digest(), after.digest());
        }
        assertEquals(head + 6, store.blockCount());
        for (Bytes k : m.pool()) {
            Bytes v = ref.value(k, ref.head());
            if (v != null) {
                ProofVerifier.verifyCurrentValue(after.digest(), k, v,
                        after.proveKeys(List.of(k), ref.head(), ref.head()));
            }
        }
        ProofVerifier.verifyAppendOnly(digests.get((int) head), after.digest(),
                after.proveAppendOnly(head, ref.head()));

        // openOrCreate with other parameters refuses the existing ledger.
        reopen();
        assertThrows(LedgerException.class,
                () -> Ledger.openOrCreate(store, new TreeParams(8, 32, 4, 16), LedgerModel.GENESIS_TS));
        assertEquals(ref.ledger().digest(), Ledger.openOrCreate(store, PARAMS, 0).digest());
    }

    private static List<byte[]> proofs(Ledger l, LedgerModel m, long head) {
        List<byte[]> out = new ArrayList<>();
        out.add(l.proveKeys(m.pool(), head, head).encode());
        out.add(l.proveKeys(m.pool().subList(0, 10), head / 2, head).encode());
        for (int i = 0; i < 10; i++) {
            out.add(l.proveHistory(m.pool().get(i), 4, head).proof().encode());
        }
        for (long b = 0; b < head; b++) {
            out.add(l.proveAppendOnly(b, head).encode());
        }
        return out;
    }

    @Test
    void readsAndWrites_afterClose_throwStoreClosed_andCloseIsIdempotent() {
        store.write(new StoreBatch().putNode(hashOf("a"), bytes("node a")).putBlock(0, bytes("b0")));
        store.close();
        assertThrows(StoreClosedException.class, () -> store.node(hashOf("a")));
        assertThrows(StoreClosedException.class, () -> store.block(0));
        assertThrows(StoreClosedException.class, () -> store.meta("m"));
        assertThrows(StoreClosedException.class, () -> store.write(new StoreBatch().putBlock(1, bytes("b1"))));
        store.close();  // again, as the contract's clean-up does
    }

    @Test
    void readsInFlight_whileClosing_endOnlyWithStoreClosed() throws Exception {
        store.write(new StoreBatch().putNode(hashOf("a"), bytes("node a")).putBlock(0, bytes("b0")));
        var failures = new java.util.concurrent.ConcurrentLinkedQueue<Throwable>();
        java.util.concurrent.atomic.AtomicLong reads = new java.util.concurrent.atomic.AtomicLong();
        List<Thread> readers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Thread r = new Thread(() -> {
                for (int i = 0; i < 10_000_000; i++) {
                    try {
                        assertArrayEquals(bytes("node a"), store.node(hashOf("a")));
                        assertArrayEquals(bytes("b0"), store.block(0));
                        reads.incrementAndGet();
                    } catch (Throwable e) {
                        failures.add(e);
                        return;
                    }
                }
            });
            r.start();
            readers.add(r);
        }
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() -> reads.get() > 1_000);
        store.close();
        for (Thread r : readers) {
            r.join(30_000);
        }
        assertEquals(readers.size(), failures.size());
        failures.forEach(e -> assertEquals(StoreClosedException.class, e.getClass(), e.toString()));
    }

    @Test
    void open_whenRocksDbRefuses_throwsAndLeavesTheOpenStoreWorking() {
        store.write(new StoreBatch().putBlock(0, bytes("b0")));
        // A second open of the same directory fails on RocksDB's lock; its native objects are released on that path.
        for (int i = 0; i < 20; i++) {
            assertThrows(LedgerException.class, () -> new RocksDbNodeStore(db()));
        }
        assertArrayEquals(bytes("b0"), store.block(0));
    }
}
