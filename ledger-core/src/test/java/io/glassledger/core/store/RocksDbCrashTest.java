package io.glassledger.core.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.proof.ProofVerifier;
import io.glassledger.verify.proof.VerificationException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a real child JVM ({@link CrashWriter}) with SIGKILL while it appends blocks to a RocksDB ledger, then
 * reopens the store and checks that it holds exactly a prefix of the intended ledger: every block whose append had
 * returned, nothing half-written, and every block equal to an in-memory replay. Each repetition crashes the same
 * directory twice, so the second crash hits a store that had already recovered from one.
 *
 * <p>The random delay (200-1500 ms) starts when the child reports its ledger open, so that the kill lands
 * during appends rather than during JVM start-up.
 */
class RocksDbCrashTest {
    private static final int CYCLES = 2;

    @TempDir
    Path tmp;

    /** What one child run printed before it died. */
    record Run(long openedAt, long lastPrinted, String stderr) {
    }

    @RepeatedTest(5)
    void killedWriter_leavesExactlyTheBlocksItReported(RepetitionInfo rep) throws Exception {
        long seed = new Random().nextLong();
        Random delays = new Random(seed);
        Path dir = tmp.resolve("db");
        InMemoryNodeStore refStore = new InMemoryNodeStore();
        Ledger ref = Ledger.openOrCreate(refStore, CrashWriter.PARAMS, CrashWriter.GENESIS_TS);
        long resumedAt = 0;
        for (int cycle = 0; cycle < CYCLES; cycle++) {
            int delay = 200 + delays.nextInt(1301);
            Run run = runAndKill(dir, seed, delay, cycle);
            String ctx = "repetition " + rep.getCurrentRepetition() + ", cycle " + cycle + ", seed " + seed
                    + ", kill after " + delay + " ms, last printed " + run.lastPrinted();
            assertEquals(resumedAt, run.openedAt(), "child opened at another head; " + ctx);

            try (RocksDbNodeStore store = new RocksDbNodeStore(dir)) {
                Ledger l = Ledger.open(store);
                long head = l.digest().blockNo();
                ctx += ", head " + head;
                assertTrue(head >= run.lastPrinted(), "blocks reported durable are missing; " + ctx);
                assertEquals(head + 1, store.blockCount(), ctx);
                assertNull(store.block(head + 1), "a block past the head is stored; " + ctx);
                assertTrue(batchEnds(resumedAt, head).contains(head),
                        "head is inside a multi-block append (atomicity broken); " + ctx);

                while (ref.digest().blockNo() < head) {
                    ref.append(List.of(CrashWriter.spec(seed, ref.digest().blockNo() + 1)));
                }
                for (long b = 1; b <= head; b++) {
                    assertEquals(ref.digest(b), l.digest(b), "digest at block " + b + "; " + ctx);
                    assertArrayEquals(ref.block(b).encode(), l.block(b).encode(), "block " + b + "; " + ctx);
                }
                for (long b = Math.max(1, resumedAt); b <= head; b++) {
                    // Diffing consecutive blocks reads every node block b wrote: none may be missing.
                    assertEquals(diff(ref, b - 1, b), diff(l, b - 1, b), "changes of block " + b + "; " + ctx);
                }
                assertEquals(ref.scan(null, null, head, Integer.MAX_VALUE), l.scan(null, null, head,
                        Integer.MAX_VALUE), "state at the head; " + ctx);
                checkProofs(l, head);
                System.out.println("crash test: " + ctx + ": ok");
                resumedAt = head;
            }
        }
        // After the last crash the ledger takes new blocks in-process too.
        try (RocksDbNodeStore store = new RocksDbNodeStore(dir)) {
            Ledger l = Ledger.open(store);
            long next = l.digest().blockNo() + 1;
            l.append(List.of(CrashWriter.spec(seed, next)));
            ref.append(List.of(CrashWriter.spec(seed, next)));
            assertEquals(ref.digest(), l.digest());
        }
    }

    /** The heads that whole batches can leave, for a child that resumed at {@code resumedAt}, up to {@code max}. */
    private static List<Long> batchEnds(long resumedAt, long max) {
        List<Long> ends = new ArrayList<>();
        ends.add(resumedAt);
        long b = resumedAt;
        while (b < max) {
            b += CrashWriter.batchSize(b + 1);
            ends.add(b);
        }
        return ends;
    }

    private static List<String> diff(Ledger l, long from, long to) {
        List<String> out = new ArrayList<>();
        l.diff(from, to, (k, before, after) -> out.add(k + ":" + describe(before) + "->" + describe(after)));
        return out;
    }

    private static String describe(Entry e) {
        return e == null ? "-" : e.hash().hex();
    }

    private static void checkProofs(Ledger l, long head) throws VerificationException {
        List<Bytes> keys = new ArrayList<>();
        for (int i = 0; i < CrashWriter.KEY_SPACE; i += 397) {
            keys.add(CrashWriter.key(i));
        }
        for (Bytes k : keys) {
            var v = l.get(k);
            var p = l.proveKeys(List.of(k), head, head);
            if (v.isPresent()) {
                ProofVerifier.verifyCurrentValue(l.digest(), k, v.get(), p);
            } else {
                ProofVerifier.verifyNonExistence(l.digest(), k, p);
            }
        }
        if (head > 0) {
            ProofVerifier.verifyAppendOnly(l.digest(head / 2), l.digest(), l.proveAppendOnly(head / 2, head));
        }
    }

    private Run runAndKill(Path dir, long seed, int delayMs, int cycle) throws Exception {
        Path childTmp = Files.createDirectories(tmp.resolve("child-tmp"));
        // Files rather than pipes: Process.destroyForcibly closes the pipes, losing lines not yet read.
        Path stdout = tmp.resolve("child-stdout-" + cycle + ".txt");
        Path stderr = tmp.resolve("child-stderr-" + cycle + ".txt");
        ProcessBuilder pb = new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                // RocksDB unpacks its native library into java.io.tmpdir; a killed JVM never deletes it.
                "-Djava.io.tmpdir=" + childTmp,
                "-cp", System.getProperty("java.class.path"),
                CrashWriter.class.getName(), dir.toString(), Long.toString(seed))
                .redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
        Process p = pb.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!Files.readString(stdout).contains("\n")) {
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    fail("child did not open the ledger: " + Files.readString(stderr));
                }
                Thread.sleep(10);
            }
            Thread.sleep(delayMs);
            assertTrue(p.isAlive(), "child died on its own: " + Files.readString(stderr));
        } finally {
            p.destroyForcibly();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "killed child did not exit");
        }
        assertEquals(137, p.exitValue(), "child was not ended by SIGKILL: " + Files.readString(stderr));

        String out = Files.readString(stdout);
        // Only whole lines count: a line without its newline was cut off by the kill.
        List<String> lines = List.of(out.substring(0, out.lastIndexOf('\n') + 1).split("\n"));
        assertTrue(lines.get(0).startsWith("open "), "first line " + lines.get(0));
        long opened = Long.parseLong(lines.get(0).substring(5).trim());
        long last = opened;
        for (String line : lines.subList(1, lines.size())) {
            long n = Long.parseLong(line.trim());
            assertEquals(last + 1, n, "child printed block numbers out of order");
            last = n;
        }
        return new Run(opened, last, Files.readString(stderr));
    }
}
