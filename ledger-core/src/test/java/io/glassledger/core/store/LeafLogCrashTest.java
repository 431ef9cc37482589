package io.glassledger.core.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a real child JVM ({@link LeafLogCrashWriter}) with SIGKILL while it writes blocks to a leaf log and collects
 * it after every block, then reopens the log at the last block the child reported committed (its owner's durable
 * state) and checks every leaf against the model of that block: a block synced but not reported is cut off, a
 * collection cut short loses nothing. Each repetition kills the same directory four times, each child going on from
 * the block the last reopen held. The kill comes when the child has reported a number of blocks drawn from the seed.
 *
 * <p>{@code -Dleaflog.crash.seed=N} repeats a run's choices (not its timing); the seed is printed.
 */
class LeafLogCrashTest {
    private static final int CYCLES = 4;

    @TempDir
    Path tmp;

    @RepeatedTest(2)
    void killedWriter_reopensAtTheCommittedBlock_exactly(RepetitionInfo rep) throws Exception {
        long seed = Long.getLong("leaflog.crash.seed", new Random().nextLong()) + rep.getCurrentRepetition();
        System.out.println("LeafLogCrashTest seed " + seed);
        Random r = new Random(seed);
        Path dir = tmp.resolve("leaflog");
        long persisted = 0;
        long cut = 0;
        for (int cycle = 0; cycle < CYCLES; cycle++) {
            int killAfter = 20 + r.nextInt(300);
            List<String> lines = KilledChild.runAndKill(tmp, "leaflog-" + cycle, LeafLogCrashWriter.class,
                    List.of(dir.toString(), Long.toString(seed), Long.toString(persisted)), killAfter);
            assertTrue(lines.get(0).startsWith("open "), "first line " + lines.get(0));
            for (String line : lines.subList(1, lines.size())) {
                long b = Long.parseLong(line.trim().substring("committed ".length()));
                assertEquals(persisted + 1, b, "child reported blocks out of order; seed " + seed);
                persisted = b;
            }
            String ctx = "seed " + seed + ", cycle " + cycle + ", persisted block " + persisted;
            Map<Integer, byte[]> model = new HashMap<>();
            for (long b = 1; b <= persisted; b++) {
                LeafLogCrashWriter.apply(seed, b, model, null);
            }
            try (LeafLog log = LeafLog.open(dir, LeafLogCrashWriter.SEGMENT, persisted)) {
                System.out.println("LeafLogCrashTest " + ctx + ": recovered " + log.recovery() + ", "
                        + log.sizeBytes() + " bytes, " + log.liveBytes() + " live");
                cut += log.recovery().cutRecords() > 0 ? 1 : 0;
                assertNull(log.recovery().checkpointIgnored(), ctx + ": a kill never leaves a checkpoint unusable");
                for (int leaf = 0; leaf < LeafLogCrashWriter.LEAVES; leaf++) {
                    if (model.containsKey(leaf)) {
                        assertArrayEquals(model.get(leaf), log.get(leaf), ctx + ": leaf " + leaf);
                    } else {
                        assertNull(log.get(leaf), ctx + ": leaf " + leaf);
                    }
                }
                assertEquals(model.size(), log.leaves(), ctx);
            }
        }
        System.out.println("LeafLogCrashTest seed " + seed + ": " + cut + " of " + CYCLES
                + " kills left a synced block its owner had not committed");
        assertTrue(persisted >= CYCLES * 20L, "the child committed " + persisted + " blocks");
    }
}
