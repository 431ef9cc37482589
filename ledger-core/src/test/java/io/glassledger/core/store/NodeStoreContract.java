package io.glassledger.core.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.core.ledger.LedgerModel;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.verify.proof.KeysProof;
import io.glassledger.verify.proof.ProofVerifier;
import io.glassledger.verify.proof.VerificationException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link NodeStore} contract, run against every implementation: content by hash, blocks appended in order
 * without gaps, a rejected batch changes nothing, upper-tree hashes, metadata, and a ledger on top.
 */
abstract class NodeStoreContract {
    protected NodeStore store;

    /** A new, empty store. */
    protected abstract NodeStore newStore() throws Exception;

    @BeforeEach
    void open() throws Exception {
        store = newStore();
    }

    @AfterEach
    void close() {
        store.close();
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static Hash hashOf(String s) {
        return Hashing.raw(bytes(s));
    }

    @Test
    void emptyStore_hasNothing() {
        assertEquals(0, store.blockCount());
        assertNull(store.node(hashOf("x")));
        assertNull(store.block(0));
        assertNull(store.block(-1));
        assertNull(store.upper(0, 0));
        assertNull(store.meta("x"));
    }

    @Test
    void nodes_readBackByHash() {
        store.write(new StoreBatch().putNode(hashOf("a"), bytes("node a")).putNode(hashOf("b"), bytes("node b")));
        assertArrayEquals(bytes("node a"), store.node(hashOf("a")));
        assertArrayEquals(bytes("node b"), store.node(hashOf("b")));
        assertNull(store.node(hashOf("c")));
        assertEquals(0, store.blockCount(), "nodes alone add no block");
    }

    @Test
    void node_rePutWithSameContent_isIdempotent() {
        store.write(new StoreBatch().putNode(hashOf("a"), bytes("node a")));
        store.write(new StoreBatch().putNode(hashOf("a"), bytes("node a")).putNode(hashOf("b"), bytes("node b")));
        store.write(new StoreBatch().putNode(hashOf("a"), bytes("node a")));
        assertArrayEquals(bytes("node a"), store.node(hashOf("a")));
        assertArrayEquals(bytes("node b"), store.node(hashOf("b")));
    }

    @Test
    void blocks_appendInOrder_oneOrManyPerBatch() {
        store.write(new StoreBatch().putBlock(0, bytes("b0")));
        assertEquals(1, store.blockCount());
        store.write(new StoreBatch().putBlock(1, bytes("b1")).putBlock(2, bytes("b2")).putBlock(3, bytes("b3")));
        assertEquals(4, store.blockCount());
        for (int i = 0; i < 4; i++) {
            assertArrayEquals(bytes("b" + i), store.block(i));
        }
        assertNull(store.block(4));
        // A batch without blocks leaves the count alone.
        store.write(new StoreBatch().putMeta("m", bytes("v")));
        assertEquals(4, store.blockCount());
    }

    @Test
    void blocks_putOutOfOrderInOneBatch_areSortedByNumber() {
        store.write(new StoreBatch().putBlock(1, bytes("b1")).putBlock(0, bytes("b0")));
        assertEquals(2, store.blockCount());
        assertArrayEquals(bytes("b0"), store.block(0));
        assertArrayEquals(bytes("b1"), store.block(1));
    }

    @Test
    void outOfOrderBlockAppend_isRejectedAndChangesNothing() {
        store.write(new StoreBatch().putBlock(0, bytes("b0")).putBlock(1, bytes("b1"))
                .putNode(hashOf("kept"), bytes("kept")).putUpper(0, 0, hashOf("u00")).putMeta("m", bytes("old")));

        List<StoreBatch> bad = List.of(
                new StoreBatch().putBlock(3, bytes("gap")),
                new StoreBatch().putBlock(2, bytes("b2")).putBlock(4, bytes("gap after b2")),
                new StoreBatch().putBlock(1, bytes("rewrite of b1")),
                new StoreBatch().putBlock(0, bytes("rewrite of b0")).putBlock(1, bytes("b1")).putBlock(2, bytes("b2")));
        for (StoreBatch b : bad) {
            b.putNode(hashOf("new"), bytes("new node")).putNode(hashOf("kept"), bytes("kept"))
                    .putUpper(0, 1, hashOf("u01")).putUpper(0, 0, hashOf("other u00")).putMeta("m", bytes("new"));
            assertThrows(RuntimeException.class, () -> store.write(b));

            assertEquals(2, store.blockCount());
            assertArrayEquals(bytes("b0"), store.block(0));
            assertArrayEquals(bytes("b1"), store.block(1));
            assertNull(store.block(2));
            assertNull(store.block(3));
            assertNull(store.node(hashOf("new")), "node of a rejected batch is visible");
            assertArrayEquals(bytes("kept"), store.node(hashOf("kept")));
            assertNull(store.upper(0, 1), "upper hash of a rejected batch is visible");
            assertEquals(hashOf("u00"), store.upper(0, 0));
            assertArrayEquals(bytes("old"), store.meta("m"), "meta of a rejected batch is visible");
        }
        // The store still takes the right next block.
        store.write(new StoreBatch().putBlock(2, bytes("b2")));
        assertEquals(3, store.blockCount());
    }

    @Test
    void upperHashes_readBackByLevelAndIndex() {
        store.write(new StoreBatch().putUpper(0, 0, hashOf("0/0")).putUpper(0, 1, hashOf("0/1"))
                .putUpper(1, 0, hashOf("1/0")).putUpper(40, 1L << 33, hashOf("40/big")));
        assertEquals(hashOf("0/0"), store.upper(0, 0));
        assertEquals(hashOf("0/1"), store.upper(0, 1));
        assertEquals(hashOf("1/0"), store.upper(1, 0));
        assertEquals(hashOf("40/big"), store.upper(40, 1L << 33));
        assertNull(store.upper(1, 1));
        assertNull(store.upper(2, 0));
        assertNull(store.upper(0, 2));
    }

    @Test
    void meta_readsBackAndIsOverwritten() {
        store.write(new StoreBatch().putMeta("a", bytes("1")).putMeta("b", new byte[0]));
        assertArrayEquals(bytes("1"), store.meta("a"));
        assertArrayEquals(new byte[0], store.meta("b"));
        store.write(new StoreBatch().putMeta("a", bytes("2")));
        assertArrayEquals(bytes("2"), store.meta("a"));
        assertNull(store.meta("c"));
    }

    @Test
    void sizeBytes_isNonNegativeAndGrowsFromEmpty() {
        long empty = store.sizeBytes();
        store.write(new StoreBatch().putNode(hashOf("a"), new byte[4096]).putBlock(0, new byte[100]));
        assertTrue(empty >= 0);
        assertTrue(store.sizeBytes() >= 0);
    }

    @Test
    void ledger_onThisStore_readsAndProvesWhatItWrote() throws VerificationException {
        Random r = new Random(5);
        LedgerModel m = LedgerModel.random(store, new TreeParams(4, 32, 4, 16), r, 12, 60, 40);
        Ledger l = m.ledger();
        assertEquals(m.head() + 1, store.blockCount());
        for (long b = 0; b <= m.head(); b++) {
            for (Bytes k : m.pool()) {
                assertEquals(m.value(k, b), l.get(k, b).orElse(null), "value of " + k + " at " + b);
            }
        }
        for (Bytes k : m.pool()) {
            KeysProof p = l.proveKeys(List.of(k), m.head(), m.head());
            Bytes v = m.value(k, m.head());
            if (v == null) {
                ProofVerifier.verifyNonExistence(l.digest(), k, p);
            } else {
                ProofVerifier.verifyCurrentValue(l.digest(), k, v, p);
            }
        }
        // A second ledger object over the same store sees the same ledger.
        Ledger again = Ledger.open(store);
        assertEquals(l.digest(), again.digest());
    }
}
