package io.glassledger.core.ledger;

import io.glassledger.verify.block.BlockSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.verify.proof.ProofVerifier;
import io.glassledger.verify.proof.VerificationException;
import io.glassledger.core.store.ForwardingNodeStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The proofs of promises are taken at the blocks that held them, a few appends behind the head. The nodes those
 * blocks' trees had and later appends replaced stay cached for {@link Ledger#DEMOTE_AFTER_APPENDS} appends, so such
 * a proof reads nothing from the store; after that they leave the cache (it holds the live tree, not its history),
 * and the same proof reads their records again.
 */
class LedgerRecentVersionsTest {

    @Test
    void replacedNodes_serveProofsOfRecentBlocks_thenLeaveTheCache() throws VerificationException {
        CountingStore store = new CountingStore();
        Ledger ledger = Ledger.openOrCreate(store, new TreeParams(8, 64, 8, 64), 0, 256L << 20);
        List<Mutation> bulk = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            bulk.add(Mutation.put(key(i), Bytes.utf8("v0-" + i)));
        }
        ledger.append(List.of(new BlockSpec(1, List.of(), bulk)));
        long promised = ledger.head().block().number();
        List<Bytes> keys = List.of(key(7), key(900), key(1_999));
        for (int a = 1; a <= Ledger.DEMOTE_AFTER_APPENDS + 1; a++) {
            // Every key's leaf (and the index path above it) gets a new version: the promised block's nodes are replaced.
            List<Mutation> w = new ArrayList<>();
            for (int i = 0; i < 2_000; i += 9) {
                w.add(Mutation.put(key(i), Bytes.utf8("v" + a + "-" + i)));
            }
            for (Bytes k : keys) {
                if (w.stream().noneMatch(m -> m.key().equals(k))) {
                    w.add(Mutation.put(k, Bytes.utf8("v" + a)));
                }
            }
            w.sort((x, y) -> x.key().compareTo(y.key()));
            ledger.append(List.of(new BlockSpec(1 + a, List.of(), w)));
            long before = store.reads.get();
            ledger.proveKeys(keys, promised, ledger.digest().blockNo());
            long reads = store.reads.get() - before;
            // What the cache served is the promised block's tree: the value proven there is the one written then.
            ProofVerifier.verifyCurrentValue(ledger.digest(promised), key(7), Bytes.utf8("v0-7"),
                    ledger.proveKeys(List.of(key(7)), promised, promised));
            if (a <= Ledger.DEMOTE_AFTER_APPENDS) {
                assertEquals(0, reads, "append " + a + ": a proof at the promised block read the store");
            } else {
                assertTrue(reads > 0, "append " + a + ": the promised block's nodes should have left the cache");
            }
        }
    }

    private static Bytes key(int i) {
        return Bytes.utf8(String.format("key-%05d", i));
    }

    /** An in-memory store that counts node reads. */
    private static final class CountingStore extends ForwardingNodeStore {
        final AtomicLong reads = new AtomicLong();

        @Override
        public byte[] node(Hash hash) {
            reads.incrementAndGet();
            return super.node(hash);
        }
    }
}
