package io.glassledger.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.hash.Bytes;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a real child JVM ({@link FlatStoreCrashWriter}) with SIGKILL while it writes syncing blocks to a flat store,
 * three times over the same directory, and checks after each kill that the store holds exactly the blocks up to its
 * head, the head at least the last block the child reported and at most the one after it (the write in flight), and
 * every version and value of every key equal to the model's. The kill comes when the child has reported a number of
 * blocks drawn from the seed, which is printed; {@code -Dflat.crash.seed=N} repeats a run's choices.
 */
class FlatStoreCrashTest {
    @TempDir
    Path tmp;

    @RepeatedTest(2)
    void killedWriter_leavesExactlyAPrefixOfItsBlocks(RepetitionInfo rep) throws Exception {
        long seed = Long.getLong("flat.crash.seed", new Random().nextLong()) + rep.getCurrentRepetition();
        System.out.println("FlatStoreCrashTest seed " + seed);
        Random r = new Random(seed);
        Path dir = tmp.resolve("flat");
        long resumed = -1;
        for (int cycle = 0; cycle < 3; cycle++) {
            int killAfter = 5 + r.nextInt(150);
            List<String> lines = KilledChild.runAndKill(tmp, "flat-" + cycle, FlatStoreCrashWriter.class,
                    List.of(dir.toString(), Long.toString(seed)), killAfter);
            String ctx = "seed " + seed + ", cycle " + cycle + ", killed after " + killAfter + " blocks reported";
            assertEquals("open " + resumed, lines.get(0), ctx);
            long reported = Long.parseLong(lines.get(lines.size() - 1).trim());
            try (FlatStore store = FlatStore.open(dir, 1 << 20, true)) {
                long head = store.head();
                ctx += ", last reported " + reported + ", head " + head;
                assertTrue(head == reported || head == reported + 1, ctx);
                FlatStoreModel model = new FlatStoreModel();
                for (long b = 0; b <= head; b++) {
                    model.apply(b, FlatStoreModel.block(seed, b));
                }
                for (Map.Entry<Bytes, TreeMap<Long, Bytes>> e : model.versions.entrySet()) {
                    List<FlatRows.Version> got = store.versions(e.getKey(), Long.MAX_VALUE, Integer.MAX_VALUE);
                    assertEquals(List.copyOf(e.getValue().descendingKeySet()),
                            got.stream().map(FlatRows.Version::block).toList(), ctx + ", versions of " + e.getKey());
                }
                List<Map.Entry<Bytes, Bytes>> want = model.scan(null, null, head, Integer.MAX_VALUE);
                List<FlatStore.Item> state = store.scan(null, null, head, Integer.MAX_VALUE);
                assertEquals(want.stream().map(Map.Entry::getKey).toList(),
                        state.stream().map(FlatStore.Item::key).toList(), ctx);
                assertEquals(want.stream().map(Map.Entry::getValue).toList(),
                        state.stream().map(FlatStore.Item::value).toList(), ctx);
                System.out.println("FlatStoreCrashTest " + ctx + ": ok, " + state.size() + " keys");
                resumed = head;
            }
        }
    }
}
