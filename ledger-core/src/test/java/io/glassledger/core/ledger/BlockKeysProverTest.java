package io.glassledger.core.ledger;

import io.glassledger.verify.block.BlockSpec;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.core.store.InMemoryNodeStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * {@link BlockKeysProver#proveSorted}: one walk gives the proof and the entries the claims need, and they are what
 * a separate read of each key and {@link BlockKeysProver#prove} give.
 */
class BlockKeysProverTest {
    private static Bytes k(int i) {
        return Bytes.utf8(String.format("key-%04d", i));
    }

    @Test
    void proveSorted_givesTheProofOfProve_andEachKeysEntry_presentAbsentOrTombstone() {
        long seed = System.nanoTime();
        System.out.println("BlockKeysProverTest seed " + seed);
        Random rnd = new Random(seed);
        Ledger l = Ledger.openOrCreate(new InMemoryNodeStore(), new TreeParams(4, 32, 4, 16), 0);
        List<Mutation> load = new ArrayList<>();
        for (int i = 0; i < 600; i += 2) {
            load.add(Mutation.put(k(i), Bytes.utf8("v" + i)));
        }
        l.append(List.of(new BlockSpec(1, List.of(), load)));
        List<Mutation> deletes = new ArrayList<>();
        for (int i = 0; i < 600; i += 10) {
            deletes.add(Mutation.delete(k(i)));
        }
        l.append(List.of(new BlockSpec(2, List.of(), deletes)));
        long head = l.head().block().number();
        int tombstones = 0;
        int absent = 0;
        for (int round = 0; round < 50; round++) {
            TreeSet<Bytes> set = new TreeSet<>();
            int n = 1 + rnd.nextInt(40);
            while (set.size() < n) {
                set.add(k(rnd.nextInt(620)));
            }
            List<Bytes> keys = new ArrayList<>(set);
            long atBlock = 1 + rnd.nextInt(2);
            BlockKeysProver.Proved p = l.keysProver(atBlock, head).proveSorted(keys, new ByteBudget(1 << 20, "t"));
            assertArrayEquals(l.keysProver(atBlock, head).prove(keys, new ByteBudget(1 << 20, "t")).encode(),
                    p.proof().encode(), "seed " + seed);
            assertEquals(keys.size(), p.entries().size());
            for (int i = 0; i < keys.size(); i++) {
                Entry want = l.entry(keys.get(i), atBlock);
                Entry got = p.entries().get(i);
                if (want == null) {
                    assertNull(got, keys.get(i) + " (seed " + seed + ")");
                    absent++;
                } else {
                    assertEquals(want, got, keys.get(i) + " (seed " + seed + ")");
                    tombstones += got.isTombstone() ? 1 : 0;
                }
            }
        }
        assertEquals(true, tombstones > 0 && absent > 0, "the rounds met tombstones and absent keys");
    }

    @Test
    void proveSorted_refusesUnsortedOrRepeatedKeys() {
        Ledger l = Ledger.openOrCreate(new InMemoryNodeStore(), TreeParams.DEFAULT, 0);
        l.append(List.of(new BlockSpec(1, List.of(), List.of(Mutation.put(k(1), Bytes.utf8("a")),
                Mutation.put(k(2), Bytes.utf8("b"))))));
        BlockKeysProver p = l.keysProver(1, 1);
        ByteBudget b = new ByteBudget(1 << 20, "t");
        assertThrows(IllegalArgumentException.class, () -> p.proveSorted(List.of(k(2), k(1)), b));
        assertThrows(IllegalArgumentException.class, () -> p.proveSorted(List.of(k(1), k(1)), b));
        assertThrows(IllegalArgumentException.class, () -> p.proveSorted(List.of(), b));
        assertSame(null, p.proveSorted(List.of(k(3)), b).entries().get(0));
    }
}
