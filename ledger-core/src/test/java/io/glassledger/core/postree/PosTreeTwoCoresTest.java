package io.glassledger.core.postree;

import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Batches large enough that every level's new nodes are hashed on two cores ({@link SplitWork}): inserts, value
 * updates and deletes over a tree whose small nodes give several hundred nodes per level. Whatever thread hashed a
 * node, the tree must be the bulk build's, and every created node must hash as its encoding does.
 */
class PosTreeTwoCoresTest {
    private static final TreeParams SMALL = new TreeParams(8, 32, 4, 32);

    @Test
    void largeBatches_giveTheBulkTree_andNodesThatHashAsTheirEncoding() {
        long seed = System.nanoTime();
        System.out.println("PosTreeTwoCoresTest seed " + seed);
        SplittableRandom r = new SplittableRandom(seed);
        MemNodes mem = new MemNodes();
        PosTree t = new PosTree(mem, SMALL);
        TreeMap<Bytes, Bytes> model = new TreeMap<>();
        for (int i = 0; i < 20_000; i++) {
            model.put(key(r), value(r));
        }
        Hash root = mem.store(t.build(TreeGen.entries(model)));
        List<Bytes> keys = new ArrayList<>(model.keySet());
        for (int round = 0; round < 6; round++) {
            TreeMap<Bytes, Mutation> batch = new TreeMap<>();
            for (int j = 0; j < 3_000; j++) {
                int kind = r.nextInt(10);
                Bytes k = kind == 0 ? key(r) : keys.get(r.nextInt(keys.size()));
                batch.put(k, kind == 1 ? Mutation.delete(k) : Mutation.put(k, value(r)));
            }
            PosTree.Result res = t.apply(root, new ArrayList<>(batch.values()),
                    (m, old) -> m.isDelete() ? null : Entry.of(m.key(), m.value(), 0));
            assertTrue(res.created().size() > 4 * SplitWork.MIN_ITEMS, "seed " + seed + ": batch too small to split");
            for (Node n : res.created()) {
                assertEquals(Node.decode(n.encode()).hash(), n.hash(), "seed " + seed + ": level " + n.level());
            }
            root = mem.store(res);
            for (Map.Entry<Bytes, Mutation> e : batch.entrySet()) {
                if (e.getValue().isDelete()) {
                    model.remove(e.getKey());
                } else {
                    model.put(e.getKey(), e.getValue().value());
                }
            }
            assertEquals(mem.store(t.build(TreeGen.entries(model))), root, "seed " + seed + ", round " + round);
            keys = new ArrayList<>(model.keySet());
        }
    }

    private static Bytes key(SplittableRandom r) {
        byte[] k = new byte[8 + r.nextInt(8)];
        r.nextBytes(k);
        return Bytes.wrap(k);
    }

    private static Bytes value(SplittableRandom r) {
        byte[] v = new byte[r.nextInt(40)];
        r.nextBytes(v);
        return Bytes.wrap(v);
    }
}
