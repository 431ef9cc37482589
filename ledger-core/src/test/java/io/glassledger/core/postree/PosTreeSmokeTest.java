package io.glassledger.core.postree;

import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class PosTreeSmokeTest {
    static Bytes rnd(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return Bytes.wrap(b);
    }

    @Test
    void incrementalBatchesMatchBulkBuild() {
        Random rnd = new Random(1);
        TreeParams p = new TreeParams(8, 32, 4, 16);
        MemNodes mem = new MemNodes();
        PosTree t = new PosTree(mem, p);
        TreeMap<Bytes, Bytes> model = new TreeMap<>();
        Hash root = Hash.ZERO;
        List<Bytes> keys = new ArrayList<>();
        for (int round = 0; round < 200; round++) {
            TreeMap<Bytes, Mutation> batch = new TreeMap<>();
            int n = 1 + rnd.nextInt(round < 20 ? 300 : 40);
            for (int i = 0; i < n; i++) {
                int kind = rnd.nextInt(10);
                if (kind < 2 && !keys.isEmpty()) {
                    Bytes k = keys.get(rnd.nextInt(keys.size()));
                    batch.put(k, Mutation.delete(k));
                } else if (kind < 5 && !keys.isEmpty()) {
                    Bytes k = keys.get(rnd.nextInt(keys.size()));
                    batch.put(k, Mutation.put(k, rnd(rnd, 1 + rnd.nextInt(60))));
                } else {
                    Bytes k = rnd(rnd, 1 + rnd.nextInt(12));
                    keys.add(k);
                    batch.put(k, Mutation.put(k, rnd(rnd, 1 + rnd.nextInt(60))));
                }
            }
            for (Mutation m : batch.values()) {
                if (m.isDelete()) {
                    model.remove(m.key());
                } else {
                    model.put(m.key(), m.value());
                }
            }
            root = mem.store(t.apply(root, new ArrayList<>(batch.values()), EntryMaker.PLAIN));
            List<Entry> all = new ArrayList<>();
            model.forEach((k, v) -> all.add(Entry.of(k, v, 0)));
            Hash bulk = mem.store(t.build(all));
            assertEquals(bulk, root, "round " + round + " size " + model.size());
            List<Entry> scanned = new ArrayList<>();
            t.scan(root, null, null, e -> scanned.add(e));
            assertEquals(all, scanned);
        }
    }
}
