package io.glassledger.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** {@link TaskStat#parse} on /proc stat lines, and {@link CpuSnapshot#read} on this JVM's own /proc entry. */
class TaskStatTest {
    /** The fields after the name of a G1 worker's line on the server JVM, with utime 912 and stime 37. */
    private static final String AFTER_NAME = "S 1 5162 3864 0 -1 4194368 4837 1041 0 0 912 37 0 0 30 10 33 0 4821 "
            + "3133440 379 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 0 -1 1 0 0 0 0 0 0 0 0 0 0 0 0 0";

    @Test
    void parse_gcWorkerLine_readsIdNameStartAndUserPlusSystemTicks() {
        TaskStat t = TaskStat.parse("5170 (GC Thread#0) " + AFTER_NAME + "\n");
        assertEquals(new TaskStat(5170, "GC Thread#0", 4821, 949), t);
    }

    @Test
    void parse_nameWithSpacesAndParentheses_takesEverythingUpToTheLastParenthesis() {
        TaskStat t = TaskStat.parse("42 (a) (b c) d) " + AFTER_NAME);
        assertEquals("a) (b c) d", t.name());
        assertEquals(42, t.id());
        assertEquals(949, t.cpuTicks());
        assertEquals(4821, t.startTicks());
    }

    @Test
    void parse_nameThatIsOneClosingParenthesis() {
        assertEquals(")", TaskStat.parse("7 ()) " + AFTER_NAME).name());
    }

    @Test
    void parse_notAStatLine_throwsWithTheLine() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TaskStat.parse("7 GC S 1"));
        assertTrue(e.getMessage().contains("7 GC S 1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TaskStat.parse("7 (GC) S 1 2 3"), "too few fields");
        assertThrows(IllegalArgumentException.class, () -> TaskStat.parse("x (GC) " + AFTER_NAME), "bad id");
        assertThrows(IllegalArgumentException.class, () -> TaskStat.parse("7 (GC)"), "nothing after the name");
    }

    @Test
    void sameTask_sameIdAndStart_notAReusedId() {
        TaskStat t = new TaskStat(9, "G1 Conc#0", 100, 5);
        assertTrue(t.sameTask(new TaskStat(9, "renamed", 100, 50)));
        assertFalse(t.sameTask(new TaskStat(9, "G1 Conc#0", 101, 5)), "the id given to a later thread");
        assertFalse(t.sameTask(new TaskStat(10, "G1 Conc#0", 100, 5)));
    }

    @Test
    void read_ownProcess_findsAThreadByItsOddName() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux /proc");
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        // a native thread name is at most 15 bytes: this one is 12
        Thread t = new Thread(() -> {
            running.countDown();
            try {
                done.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "t) (x y) (z");
        t.start();
        try {
            running.await();
            CpuSnapshot s = CpuSnapshot.read(ProcessHandle.current().pid());
            assertTrue(s.tasks().values().stream().anyMatch(x -> x.name().equals("t) (x y) (z")), s.tasks().toString());
            assertTrue(s.processTicks() > 0, "this JVM has used some CPU");
            assertTrue(s.tasks().containsKey(ProcessHandle.current().pid()), "the process's first thread");
        } finally {
            done.countDown();
            t.join();
        }
    }
}
