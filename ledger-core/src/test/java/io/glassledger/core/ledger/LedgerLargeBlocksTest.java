package io.glassledger.core.ledger;

import io.glassledger.verify.block.BlockSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.KeysProof;
import io.glassledger.verify.proof.ProofVerifier;
import io.glassledger.verify.proof.VerificationException;
import io.glassledger.core.store.InMemoryNodeStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Blocks of thousands of writes, whose nodes are hashed and whose records (full or delta) are encoded on two cores.
 * The ledger is then reopened over the same store with a cache of a few kilobytes, so that every node is decoded
 * again from its stored record and delta chain: every key must read back as the model says, with a proof that
 * verifies against the digest.
 */
class LedgerLargeBlocksTest {

    @Test
    void largeBlocks_readBackThroughTheirRecords_andProve() throws VerificationException {
        long seed = System.nanoTime();
        System.out.println("LedgerLargeBlocksTest seed " + seed);
        SplittableRandom r = new SplittableRandom(seed);
        InMemoryNodeStore store = new InMemoryNodeStore();
        Ledger ledger = Ledger.openOrCreate(store, new TreeParams(8, 64, 8, 64), 0);
        TreeMap<Bytes, Bytes> model = new TreeMap<>();
        List<Bytes> keys = new ArrayList<>();
        for (int b = 1; b <= 8; b++) {
            TreeMap<Bytes, Mutation> writes = new TreeMap<>();
            for (int j = 0; j < 2_500; j++) {
                int kind = keys.isEmpty() ? 0 : r.nextInt(8);
                Bytes k = kind <= 1 ? key(r) : keys.get(r.nextInt(keys.size()));
                writes.put(k, kind == 2 ? Mutation.delete(k) : Mutation.put(k, value(r)));
            }
            ledger.append(List.of(new BlockSpec(b, List.of(), new ArrayList<>(writes.values()))));
            for (Map.Entry<Bytes, Mutation> e : writes.entrySet()) {
                if (e.getValue().isDelete()) {
                    model.remove(e.getKey());
                } else {
                    model.put(e.getKey(), e.getValue().value());
                    keys.add(e.getKey());
                }
            }
        }
        Ledger reopened = Ledger.open(store, 4096);
        Digest d = reopened.digest();
        assertEquals(ledger.digest(), d, "seed " + seed);
        for (Bytes k : new ArrayList<>(new java.util.TreeSet<>(keys))) {
            Bytes v = model.get(k);
            Entry e = reopened.latestEntry(k);
            if (v == null) {
                assertEquals(true, e == null || e.isTombstone(), "seed " + seed + ": deleted " + k);
            } else {
                assertEquals(v, e.value(), "seed " + seed + ": " + k);
            }
        }
        for (int i = 0; i < 200; i++) {
            Bytes k = keys.get(r.nextInt(keys.size()));
            KeysProof p = reopened.proveKeys(List.of(k), d.blockNo(), d.blockNo());
            Bytes v = model.get(k);
            if (v == null) {
                ProofVerifier.verifyNonExistence(d, k, p);
            } else {
                ProofVerifier.verifyCurrentValue(d, k, v, p);
            }
        }
        assertNull(reopened.latestEntry(Bytes.utf8("never written")), "seed " + seed);
    }

    private static Bytes key(SplittableRandom r) {
        byte[] k = new byte[12];
        r.nextBytes(k);
        return Bytes.wrap(k);
    }

    private static Bytes value(SplittableRandom r) {
        byte[] v = new byte[20 + r.nextInt(60)];
        r.nextBytes(v);
        return Bytes.wrap(v);
    }
}
