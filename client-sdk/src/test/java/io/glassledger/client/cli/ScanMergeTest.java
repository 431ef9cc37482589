package io.glassledger.client.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.hash.Bytes;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * {@link ScanMerge} against a model: keys spread over shards, each shard's page cut early at random (its limit or
 * its byte budget). The listing must be exactly a prefix of all keys in order (no gaps), at most the limit, say
 * {@code more} exactly when keys remain, and always make progress.
 */
class ScanMergeTest {
    static final Function<Bytes, Bytes> KEY = b -> b;

    @Test
    void merge_randomPagesOverShards_isAGaplessPrefix() {
        long seed = System.nanoTime();
        System.out.println("ScanMergeTest seed " + seed);
        Random r = new Random(seed);
        for (int round = 0; round < 2000; round++) {
            int shards = 1 + r.nextInt(4);
            int limit = 1 + r.nextInt(8);
            List<TreeSet<Bytes>> perShard = new ArrayList<>();
            TreeSet<Bytes> all = new TreeSet<>();
            for (int s = 0; s < shards; s++) {
                perShard.add(new TreeSet<>());
            }
            int n = r.nextInt(20);
            for (int i = 0; i < n; i++) {
                Bytes k = Bytes.utf8("k" + r.nextInt(50));
                if (all.add(k)) {
                    perShard.get(r.nextInt(shards)).add(k);
                }
            }
            List<ScanMerge.Page<Bytes>> pages = new ArrayList<>();
            for (TreeSet<Bytes> keys : perShard) {
                // A page holds at least one entry when the shard has any, at most the limit; fewer when its byte
                // budget ran out.
                int take = keys.isEmpty() ? 0 : Math.min(keys.size(), 1 + r.nextInt(limit));
                List<Bytes> page = new ArrayList<>(keys).subList(0, take);
                pages.add(new ScanMerge.Page<>(page, take < keys.size()));
            }
            ScanMerge.Result<Bytes> got = ScanMerge.merge(pages, limit, KEY);
            List<Bytes> expected = new ArrayList<>(all).subList(0, got.items().size());
            String ctx = "seed " + seed + " round " + round + " pages " + pages + " got " + got;
            assertEquals(expected, got.items(), ctx);
            assertTrue(got.items().size() <= limit, ctx);
            assertEquals(got.items().size() < all.size(), got.more(), ctx);
            assertTrue(all.isEmpty() || !got.items().isEmpty(), "progress: " + ctx);
        }
    }

    @Test
    void merge_shardEndedEarly_holdsBackLaterKeysOfOtherShards() {
        // Shard 0 stopped after "a" (its byte budget): it may still hold "aa" or "c", so shard 1's "b" and "d" wait.
        var pages = List.of(new ScanMerge.Page<>(List.of(Bytes.utf8("a")), true),
                new ScanMerge.Page<>(List.of(Bytes.utf8("b"), Bytes.utf8("d")), false));
        ScanMerge.Result<Bytes> got = ScanMerge.merge(pages, 10, KEY);
        assertEquals(List.of(Bytes.utf8("a")), got.items());
        assertTrue(got.more());
        assertFalse(ScanMerge.merge(List.of(new ScanMerge.Page<>(List.of(Bytes.utf8("a")), false)), 10, KEY).more());
    }
}
