package io.glassledger.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link GcShare}: which threads count, and how threads that start or end in the window are treated. */
class GcShareTest {
    private static CpuSnapshot snapshot(long processTicks, TaskStat... tasks) {
        Map<Long, TaskStat> m = new LinkedHashMap<>();
        for (TaskStat t : tasks) {
            m.put(t.id(), t);
        }
        return new CpuSnapshot(processTicks, m);
    }

    @Test
    void isGcThread_hotspot17G1Names_notTheVmThreadNorOthers() {
        for (String n : List.of("GC Thread#0", "GC Thread#1", "G1 Main Marker", "G1 Conc#0", "G1 Refine#0",
                "G1 Refine#1", "G1 Service", "G1 Young RemSet")) {
            assertTrue(GcShare.isGcThread(n), n);
        }
        for (String n : List.of("VM Thread", "C2 CompilerThre", "glassledger-per", "reactor-http-ep", "java",
                "G1Refine", "gc thread#0", "rocksdb:low")) {
            assertFalse(GcShare.isGcThread(n), n);
        }
    }

    @Test
    void between_countsDeltasNewThreadsWhollyAndExitedOrReusedIdsAsNothing() {
        CpuSnapshot start = snapshot(1000,
                new TaskStat(10, "GC Thread#0", 5, 100),
                new TaskStat(11, "G1 Conc#0", 5, 50),
                new TaskStat(12, "VM Thread", 5, 20),
                new TaskStat(13, "glassledger-per", 5, 500),
                new TaskStat(14, "G1 Refine#1", 5, 10),    // ends in the window
                new TaskStat(15, "GC Thread#1", 5, 30));   // ends; its id goes to a new thread
        CpuSnapshot end = snapshot(1600,
                new TaskStat(10, "GC Thread#0", 5, 160),   // +60
                new TaskStat(11, "G1 Conc#0", 5, 80),      // +30
                new TaskStat(12, "VM Thread", 5, 25),      // +5
                new TaskStat(13, "glassledger-per", 5, 900),
                new TaskStat(15, "worker", 900, 7),        // new thread, reused id: not GC
                new TaskStat(16, "GC Thread#2", 800, 12)); // new in the window: all of it, +12

        GcShare g = GcShare.between(start, end);

        assertEquals(new GcShare(102, 5, 600, 3, 2), g);
        assertEquals(0.17, g.share(), 1e-12);
        assertEquals(5.0 / 600, g.vmThreadShare(), 1e-12);
    }

    @Test
    void between_reusedIdOfANewGcThread_countsAllItsTicks() {
        CpuSnapshot start = snapshot(0, new TaskStat(20, "GC Thread#1", 5, 40));
        CpuSnapshot end = snapshot(100, new TaskStat(20, "GC Thread#1", 70, 15));
        assertEquals(new GcShare(15, 0, 100, 1, 1), GcShare.between(start, end));
    }

    @Test
    void plus_addsShards_andNoCpuHasNoShare() {
        GcShare a = new GcShare(10, 1, 100, 6, 0);
        GcShare b = new GcShare(30, 2, 100, 7, 1);
        assertEquals(new GcShare(40, 3, 200, 13, 1), a.plus(b));
        assertEquals(a, GcShare.NONE.plus(a));
        assertEquals(0.2, a.plus(b).share(), 1e-12);
        assertTrue(Double.isNaN(GcShare.NONE.share()));
        assertEquals(1.5, GcShare.seconds(150), 1e-12);
    }
}
