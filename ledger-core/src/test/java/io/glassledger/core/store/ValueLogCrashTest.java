package io.glassledger.core.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a real child JVM ({@link ValueLogCrashWriter}) with SIGKILL while it appends to a value log whose 4 KiB
 * segments roll every value or two (a roll is two fsyncs, a file creation and a directory fsync, so most kills land
 * in or around one), then reopens the log and reads back every value the child reported synced, byte for byte.
 * Each repetition kills the same directory four times, so later kills hit a log that had recovered already; the
 * last reopen also appends. The kill comes when the child has reported a number of values drawn from the seed
 * (waiting for that, not for a time), and each recovery's report is printed: how many kills tore a tail or left a
 * segment without its header.
 *
 * <p>{@code -Dvlog.crash.seed=N} repeats a run's choices (not its timing); the seed is printed.
 */
class ValueLogCrashTest {
    private static final int CYCLES = 4;
    private static final long SEGMENT = 4096;

    @TempDir
    Path tmp;

    record Acked(long index, ValueLocator at) {
    }

    @RepeatedTest(3)
    void killedWriter_losesNoSyncedValue(RepetitionInfo rep) throws Exception {
        long seed = Long.getLong("vlog.crash.seed", new Random().nextLong()) + rep.getCurrentRepetition();
        System.out.println("ValueLogCrashTest seed " + seed);
        Random r = new Random(seed);
        Path dir = tmp.resolve("vlog");
        List<Acked> acked = new ArrayList<>();
        long next = 0;
        int inRoll = 0;
        for (int cycle = 0; cycle < CYCLES; cycle++) {
            int killAfter = 20 + r.nextInt(400);
            List<String> lines = KilledChild.runAndKill(tmp, "vlog-" + cycle, ValueLogCrashWriter.class,
                    List.of(dir.toString(), Long.toString(seed), Long.toString(next), Long.toString(SEGMENT)), killAfter);
            assertTrue(lines.get(0).startsWith("open "), "first line " + lines.get(0));
            String ctx = "seed " + seed + ", cycle " + cycle + ", killed after " + killAfter + " values reported";
            System.out.println("ValueLogCrashTest " + ctx + ", child opened with: " + lines.get(0));
            for (String line : lines.subList(1, lines.size())) {
                String[] f = line.trim().split(" ");
                long i = Long.parseLong(f[0]);
                assertEquals(next, i, "child reported values out of order; " + ctx);
                acked.add(new Acked(i, new ValueLocator(Long.parseLong(f[1]), Integer.parseInt(f[2]),
                        Integer.parseInt(f[3]))));
                next = i + 1;
            }
            try (ValueLog log = ValueLog.open(dir, SEGMENT)) {
                ValueLog.Recovery rec = log.recovery();
                if (rec.removedSegment() > 0 || rec.startedSegment() > 0) {
                    inRoll++;
                }
                System.out.println("ValueLogCrashTest " + ctx + ": recovered " + rec + ", " + acked.size()
                        + " values acknowledged so far");
                for (Acked a : acked) {
                    assertArrayEquals(ValueLogCrashWriter.value(seed, a.index()), log.read(a.at()),
                            "value " + a.index() + " at " + a.at() + "; " + ctx);
                }
                if (cycle == CYCLES - 1) {
                    ValueLocator at = log.append(new byte[]{42});
                    log.sync();
                    assertArrayEquals(new byte[]{42}, log.read(at));
                }
            }
        }
        System.out.println("ValueLogCrashTest seed " + seed + ": " + inRoll + " of " + CYCLES
                + " kills left a roll half done");
        assertTrue(acked.size() >= CYCLES * 20, "the child acknowledged " + acked.size() + " values");
    }
}
