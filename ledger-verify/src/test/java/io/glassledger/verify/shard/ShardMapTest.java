package io.glassledger.verify.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.hash.Bytes;
import org.junit.jupiter.api.Test;

class ShardMapTest {
    @Test
    void placementIsTheDocumentedFunction() {
        // FORMAT.md §17 test vectors, computed with an independent Python implementation of the text.
        assertEquals(0x8ed3f6ad685b959eL, ShardMap.hash64(Bytes.utf8("alpha")));
        assertEquals(0x4f4a9410ffcdf895L, ShardMap.hash64(Bytes.utf8("delta")));
        String[] keys = {"alpha", "beta", "gamma", "delta"};
        int[][] expected = {{0, 0, 2, 2, 2}, {0, 0, 0, 3, 3}, {0, 0, 0, 3, 7}, {0, 1, 1, 1, 1}};
        int[] sizes = {1, 2, 3, 4, 8};
        for (int k = 0; k < keys.length; k++) {
            for (int i = 0; i < sizes.length; i++) {
                assertEquals(expected[k][i], new ShardMap(1, sizes[i]).shardOf(Bytes.utf8(keys[k])),
                        keys[k] + " over " + sizes[i] + " shards");
            }
        }
    }

    @Test
    void keysSpreadEvenlyAndGrowingMovesOnlyTheNewShardsShare() {
        int n = 60_000;
        int[] counts = new int[4];
        int moved = 0;
        for (int i = 0; i < n; i++) {
            Bytes k = Bytes.utf8("key-" + i);
            int three = new ShardMap(1, 3).shardOf(k);
            int four = new ShardMap(2, 4).shardOf(k);
            counts[four]++;
            if (three != four) {
                moved++;
                assertEquals(3, four, "a key that moves goes to the new shard");
            }
        }
        for (int c : counts) {
            assertTrue(Math.abs(c - n / 4) < n / 40, "within 10% of an even share: " + c);
        }
        assertTrue(Math.abs(moved - n / 4) < n / 40, "about a quarter moves: " + moved);
    }

    @Test
    void refusesNonsense() {
        assertThrows(IllegalArgumentException.class, () -> new ShardMap(0, 3));
        assertThrows(IllegalArgumentException.class, () -> new ShardMap(1, 0));
        assertThrows(IllegalArgumentException.class, () -> new ShardMap(1, ShardMap.MAX_SHARDS + 1));
    }
}
