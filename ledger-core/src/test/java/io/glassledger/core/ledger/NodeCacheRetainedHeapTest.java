package io.glassledger.core.ledger;

import io.glassledger.verify.block.BlockSpec;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.core.store.RocksDbNodeStore;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node cache's configured size bounds the heap it retains, measured from outside the cache: the heap in use
 * after full collections, with the ledger open over a state several times the cache and after many blocks of random
 * updates (which patch leaves in place, so that every cached leaf shares most of its entries with the version
 * before it).
 */
class NodeCacheRetainedHeapTest {
    private static final long CACHE = 8L << 20;
    private static final int KEYS = 160_000;
    private static final int VALUE_BYTES = 128;
    private static final int UPDATE_BLOCKS = 300;
    private static final int UPDATES_PER_BLOCK = 400;
    /** Heap the ledger holds besides its cache (head, upper tree, store handles), and the measurement's noise. */
    private static final long SLACK = 3L << 20;

    @TempDir
    Path dir;

    @Test
    void cacheRetainsAtMostItsConfiguredSize_afterRandomUpdatesOnAStateManyTimesLarger() {
        long seed = System.nanoTime();
        System.out.println("NodeCacheRetainedHeapTest seed " + seed);
        Random rnd = new Random(seed);
        long before = usedHeapAfterGc();
        long retained;
        long accounted;
        long t0 = System.nanoTime();
        try (RocksDbNodeStore store = new RocksDbNodeStore(dir.resolve("ledger"), false, 8L << 20)) {
            Ledger ledger = Ledger.openOrCreate(store, TreeParams.DEFAULT, 0, CACHE);
            long ts = 1;
            for (int start = 0; start < KEYS; start += 10_000) {
                List<Mutation> writes = new ArrayList<>(10_000);
                for (int i = start; i < start + 10_000; i++) {
                    writes.add(Mutation.put(key(i), value(rnd)));
                }
                ledger.append(List.of(new BlockSpec(ts++, List.of(), writes)));
            }
            long t1 = System.nanoTime();
            for (int b = 0; b < UPDATE_BLOCKS; b++) {
                List<Mutation> writes = new ArrayList<>(UPDATES_PER_BLOCK);
                java.util.Set<Integer> seen = new java.util.HashSet<>();
                while (writes.size() < UPDATES_PER_BLOCK) {
                    int k = rnd.nextInt(KEYS);
                    if (seen.add(k)) {
                        writes.add(Mutation.put(key(k), value(rnd)));
                    }
                }
                ledger.append(List.of(new BlockSpec(ts++, List.of(), writes)));
                // Reads of the head state between blocks, as proofs and transactions make them.
                for (int r = 0; r < 50; r++) {
                    ledger.latestEntry(key(rnd.nextInt(KEYS)));
                }
            }
            System.out.printf("NodeCacheRetainedHeapTest: load %d ms, updates %d ms%n", (t1 - t0) / 1_000_000,
                    (System.nanoTime() - t1) / 1_000_000);
            accounted = ledger.cachedWeight();
            retained = usedHeapAfterGc() - before;
            Reference.reachabilityFence(ledger);
        }
        long rawState = (long) KEYS * VALUE_BYTES;
        System.out.printf("NodeCacheRetainedHeapTest: cache %d MB, raw values %d MB, accounted %.1f MB, "
                + "retained %.1f MB%n", CACHE >> 20, rawState >> 20, accounted / 1048576.0, retained / 1048576.0);
        assertTrue(rawState >= 2 * CACHE, "the state is several times the cache");
        assertTrue(accounted <= CACHE + (1 << 20), "accounted " + accounted);
        assertTrue(retained <= CACHE + SLACK, "the ledger retains " + retained + " bytes with a cache of " + CACHE
                + " (seed " + seed + ")");
    }

    private static Bytes key(int i) {
        return Bytes.utf8(String.format("key%08d", i));
    }

    private static Bytes value(Random rnd) {
        byte[] v = new byte[VALUE_BYTES];
        rnd.nextBytes(v);
        return Bytes.wrap(v);
    }

    /** Heap in use after full collections: the least of a few, so that a collection still running does not count. */
    private static long usedHeapAfterGc() {
        MemoryMXBean mx = ManagementFactory.getMemoryMXBean();
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            least = Math.min(least, mx.getHeapMemoryUsage().getUsed());
        }
        return least;
    }
}
