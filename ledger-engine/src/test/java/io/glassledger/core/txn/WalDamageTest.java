package io.glassledger.core.txn;

import io.glassledger.verify.txn.SignedTransaction;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.hash.Bytes;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damage to the write-ahead log (FORMAT.md §15.1): only a torn tail, damage in the last segment with no valid frame
 * after it, is cut off; anything else refuses with {@link WalCorruptedException} naming the file and offset, and
 * {@link WalRepair} moves the damaged part aside without deleting a byte. The randomised tests flip bits in the
 * first, a middle and the last segment and check that every acknowledged record is replayed unless the open
 * refuses. Their seed is printed; {@code -Dwal.seed=N} repeats a run, {@code -Dwal.flips=N} changes the number of
 * logs damaged (400 for the log alone, a tenth of that through the engine).
 */
class WalDamageTest {
    private static final int FLIPS = Integer.getInteger("wal.flips", 400);

    @TempDir
    Path tmp;

    /** A log written through {@link Wal}: per segment, the payloads of the records acknowledged (flushed). */
    record Written(Path dir, List<Path> files, List<List<byte[]>> acked) {
    }

    /** Writes {@code segments} segments of commit records in flushed batches (payloads of 1..300 random bytes). */
    static Written write(Path dir, int segments, Random rnd) {
        List<List<byte[]>> acked = new ArrayList<>();
        try (Wal w = Wal.open(dir, false)) {
            for (int s = 0; s < segments; s++) {
                w.startSegment(1 + s, List.of());
                List<byte[]> recs = new ArrayList<>();
                int batches = 1 + rnd.nextInt(4);
                for (int b = 0; b < batches; b++) {
                    int n = 1 + rnd.nextInt(4);
                    for (int i = 0; i < n; i++) {
                        byte[] p = new byte[1 + rnd.nextInt(300)];
                        rnd.nextBytes(p);
                        w.append(Wal.COMMIT, p);
                        recs.add(p);
                    }
                    w.flush();
                }
                acked.add(recs);
            }
        }
        return new Written(dir, segmentFiles(dir), acked);
    }

    static List<Path> segmentFiles(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().matches("wal-\\d{16}\\.log")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<List<byte[]>> replayed(Path dir) {
        try (Wal w = Wal.open(dir, false)) {
            return w.segments().stream().map(s -> s.records().stream().map(Wal.Record::payload).toList()).toList();
        }
    }

    static void assertSameRecords(List<List<byte[]>> expected, List<List<byte[]>> actual, String ctx) {
        assertEquals(expected.size(), actual.size(), "segments; " + ctx);
        for (int s = 0; s < expected.size(); s++) {
            assertEquals(expected.get(s).size(), actual.get(s).size(), "records of segment " + s + "; " + ctx);
            for (int i = 0; i < expected.get(s).size(); i++) {
                assertArrayEquals(expected.get(s).get(i), actual.get(s).get(i), "record " + i + " of segment " + s
                        + "; " + ctx);
            }
        }
    }

    static void flip(Path file, long offset, int bit) throws IOException {
        byte[] d = Files.readAllBytes(file);
        d[(int) offset] ^= (byte) (1 << bit);
        Files.write(file, d);
    }

    static void append(Path file, byte[] bytes) throws IOException {
        Files.write(file, bytes, StandardOpenOption.APPEND);
    }

    // ---------------------------------------------------------------- each case

    @Test
    void open_tornTailOfLastSegment_isCutOffAndEveryAcknowledgedRecordReplayed() throws IOException {
        Random rnd = new Random(1);
        Written w = write(tmp.resolve("wal"), 3, rnd);
        Path last = w.files().get(2);
        long size = Files.size(last);
        byte[] payload = new byte[200];
        rnd.nextBytes(payload);
        byte[] frame = CrashRecoveryTest.frame(Wal.COMMIT, payload);
        Map<String, byte[]> tails = new LinkedHashMap<>();
        tails.put("a torn frame", Arrays.copyOf(frame, 100));
        tails.put("a frame with a bad checksum", flipped(frame, 50));
        tails.put("zeros (preallocated space)", new byte[8192]);
        tails.put("a torn frame, then zeros", concat(Arrays.copyOf(frame, 100), new byte[4096]));
        byte[] garbage = new byte[3000];
        rnd.nextBytes(garbage);
        tails.put("garbage", garbage);
        for (Map.Entry<String, byte[]> t : tails.entrySet()) {
            Files.write(last, Arrays.copyOf(Files.readAllBytes(last), (int) size));
            append(last, t.getValue());
            assertSameRecords(w.acked(), replayed(w.dir()), t.getKey());
            assertEquals(size, Files.size(last), "tail cut off: " + t.getKey());
        }
    }

    @Test
    void open_badFrameFollowedByValidOne_refusesNamingFileAndOffset() throws IOException {
        Written w = write(tmp.resolve("wal"), 3, new Random(2));
        Path last = w.files().get(2);
        long size = Files.size(last);
        append(last, flipped(CrashRecoveryTest.frame(Wal.COMMIT, new byte[40]), 30));
        append(last, CrashRecoveryTest.frame(Wal.COMMIT, new byte[40]));
        WalCorruptedException x = assertThrows(WalCorruptedException.class, () -> Wal.open(w.dir(), false));
        assertEquals(last, x.file());
        assertEquals(size, x.offset());
        assertTrue(x.getMessage().contains(last.toAbsolutePath() + " is damaged at offset " + size), x.getMessage());
        assertTrue(x.getMessage().contains("./glassledger wal-repair " + tmp.toAbsolutePath()), x.getMessage());
        assertEquals(size + 49 + 49, Files.size(last), "the refusal changed the file");
    }

    @Test
    void open_flippedLastAcknowledgedRecord_refuses() throws IOException {
        // Without the batch-end frame this damage would look like a torn tail, and the record would vanish.
        Written w = write(tmp.resolve("wal"), 1, new Random(3));
        Path p = w.files().get(0);
        byte[] lastRecord = w.acked().get(0).get(w.acked().get(0).size() - 1);
        long at = Files.size(p) - 9 - (9 + lastRecord.length);
        flip(p, at + 9, 0);
        WalCorruptedException x = assertThrows(WalCorruptedException.class, () -> Wal.open(w.dir(), false));
        assertEquals(at, x.offset());
    }

    @Test
    void open_damagedHeaderOfLastSegment_refuses() throws IOException {
        Written w = write(tmp.resolve("wal"), 3, new Random(4));
        Path last = w.files().get(2);
        flip(last, 12, 3);
        WalCorruptedException x = assertThrows(WalCorruptedException.class, () -> Wal.open(w.dir(), false));
        assertEquals(last, x.file());
        assertEquals(0, x.offset());
        assertTrue(Files.exists(last), "a segment with a damaged header was deleted");
    }

    @Test
    void open_damageInFirstOrMiddleSegment_refuses() throws IOException {
        for (int s = 0; s < 2; s++) {
            Written w = write(tmp.resolve("wal-" + s), 3, new Random(5 + s));
            Path p = w.files().get(s);
            long size = Files.size(p);
            flip(p, size - 12, 5);  // the last record of the segment, whose batch end follows
            WalCorruptedException x = assertThrows(WalCorruptedException.class, () -> Wal.open(w.dir(), false));
            assertEquals(p, x.file());
            assertTrue(x.offset() < size - 12, "offset " + x.offset());
        }
    }

    @Test
    void open_crashWhileCreatingLastSegment_dropsOnlyThatSegment() throws IOException {
        Written w = write(tmp.resolve("wal"), 2, new Random(7));
        byte[] header = Arrays.copyOf(Files.readAllBytes(w.files().get(0)), 23);
        Path torn = w.dir().resolve(String.format("wal-%016d.log", 3));
        Files.write(torn, Arrays.copyOf(header, 11));
        assertSameRecords(w.acked(), replayed(w.dir()), "torn new segment");
    }

    @Test
    void repair_movesDamagedPartAsideKeepingEveryByte_thenTheEngineOpens() throws IOException {
        Path shard = tmp.resolve("shard");
        List<SignedTransaction> txs = signed(12);
        List<List<SignedTransaction>> bySegment = writeEngineLog(shard.resolve("wal"), txs, 3);
        List<Path> files = segmentFiles(shard.resolve("wal"));
        Map<Path, byte[]> before = new LinkedHashMap<>();
        for (Path p : files) {
            before.put(p, Files.readAllBytes(p));
        }
        Path mid = files.get(1);
        int at = before.get(mid).length / 2;
        flip(mid, at, 6);
        byte[] damaged = Files.readAllBytes(mid);
        EngineConfig cfg = EngineConfig.defaults(shard).withPersistInterval(Duration.ofHours(1));
        WalCorruptedException x = assertThrows(WalCorruptedException.class, () -> TxnEngine.open(cfg));
        assertEquals(mid, x.file());

        WalRepair.Outcome o = WalRepair.repair(shard, Instant.parse("2024-05-01T10:00:00Z"));
        assertNotNull(o.quarantine());
        assertEquals(shard.resolve("wal-quarantine").resolve("20240501T100000.000Z"), o.quarantine());
        // Nothing deleted: the log left plus the quarantine is every byte there was.
        Path tail = o.quarantine().resolve(mid.getFileName() + ".from-" + x.offset());
        assertArrayEquals(damaged, concat(Files.readAllBytes(mid), Files.readAllBytes(tail)));
        assertArrayEquals(before.get(files.get(2)), Files.readAllBytes(o.quarantine().resolve(files.get(2)
                .getFileName())));
        assertFalse(Files.exists(files.get(2)));
        assertArrayEquals(before.get(files.get(0)), Files.readAllBytes(files.get(0)));
        String report = Files.readString(o.quarantine().resolve("REPORT.txt"));
        assertEquals(o.report(), report);
        for (SignedTransaction t : bySegment.get(2)) {
            assertTrue(report.contains("commit " + t.txId().hex()), "lost commit not named: " + report);
        }

        try (TxnEngine e = TxnEngine.open(cfg)) {
            for (SignedTransaction t : bySegment.get(0)) {
                assertEquals(valueOf(t), e.get(t.tx().writes().get(0).key()).value());
            }
            for (SignedTransaction t : bySegment.get(2)) {
                assertNull(e.get(t.tx().writes().get(0).key()).value());
            }
        }
        assertNull(WalRepair.repair(shard, Instant.now()).quarantine(), "a second repair found damage");
    }

    // ---------------------------------------------------------------- random bit flips

    @Test
    void randomBitFlips_inFirstMiddleAndLastSegment_neverDropAnAcknowledgedRecordSilently() throws IOException {
        long seed = Long.getLong("wal.seed", new Random().nextLong());
        System.out.println("WalDamageTest log seed " + seed);
        Random rnd = new Random(seed);
        int refused = 0;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        for (int i = 0; i < FLIPS && System.nanoTime() < deadline; i++) {
            String ctx = "seed " + seed + ", log " + i;
            Written w = write(tmp.resolve("log-" + i).resolve("wal"), 3 + rnd.nextInt(3), rnd);
            Map<Path, Long> flipped = flipRandomly(w.files(), i % 4, rnd, ctx);
            try {
                assertSameRecords(w.acked(), replayed(w.dir()), ctx + ", flips " + flipped);
            } catch (WalCorruptedException x) {
                refused++;
                assertTrue(flipped.containsKey(x.file()), "refusal names an undamaged file; " + ctx);
                assertTrue(x.offset() <= flipped.get(x.file()), "refusal after the damage; " + ctx);
                checkRepair(w, ctx);
            }
            deleteDir(w.dir().getParent());
        }
        System.out.println("WalDamageTest: " + refused + " of the damaged logs refused, the others replayed whole");
        assertTrue(refused > 0, "no damage was ever refused; seed " + seed);
    }

    /** After a refusal, the repair leaves a log that opens, replaying an intact prefix of what was acknowledged. */
    private static void checkRepair(Written w, String ctx) {
        WalRepair.Outcome o = WalRepair.repair(w.dir().getParent(), Instant.now());
        assertNotNull(o.quarantine(), ctx);
        List<List<byte[]>> after = replayed(w.dir());
        assertTrue(after.size() <= w.acked().size(), ctx);
        for (int s = 0; s < after.size(); s++) {
            assertTrue(after.get(s).size() <= w.acked().get(s).size(), ctx);
            for (int r = 0; r < after.get(s).size(); r++) {
                assertArrayEquals(w.acked().get(s).get(r), after.get(s).get(r), ctx);
            }
        }
    }

    /**
     * Flips one bit in each segment chosen by {@code mode} (0 first, 1 a middle one, 2 last, 3 all three). One per
     * segment: a second flip that also hits the batch-end frame after the last record makes the end of the log look
     * exactly like a torn write, which no check inside the file can tell apart (FORMAT.md §15.1).
     */
    static Map<Path, Long> flipRandomly(List<Path> files, int mode, Random rnd, String ctx) throws IOException {
        List<Path> targets = switch (mode) {
            case 0 -> List.of(files.get(0));
            case 1 -> List.of(files.get(1 + rnd.nextInt(files.size() - 2)));
            case 2 -> List.of(files.get(files.size() - 1));
            default -> List.of(files.get(0), files.get(1 + rnd.nextInt(files.size() - 2)),
                    files.get(files.size() - 1));
        };
        Map<Path, Long> first = new LinkedHashMap<>();
        for (Path p : targets) {
            long at = (long) (rnd.nextDouble() * Files.size(p));
            flip(p, at, rnd.nextInt(8));
            first.put(p, at);
        }
        return first;
    }

    @Test
    void randomBitFlips_throughTheEngine_everyAcknowledgedCommitPresentOrRefused() throws IOException {
        long seed = Long.getLong("wal.seed", new Random().nextLong());
        System.out.println("WalDamageTest engine seed " + seed);
        Random rnd = new Random(seed);
        List<SignedTransaction> txs = signed(16);
        int rounds = Math.max(4, FLIPS / 10);
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        int refused = 0;
        for (int i = 0; i < rounds && System.nanoTime() < deadline; i++) {
            String ctx = "seed " + seed + ", round " + i;
            Path shard = tmp.resolve("shard-" + i);
            writeEngineLog(shard.resolve("wal"), txs, 3 + rnd.nextInt(2));
            Map<Path, Long> flipped = flipRandomly(segmentFiles(shard.resolve("wal")), i % 4, rnd, ctx);
            EngineConfig cfg = EngineConfig.defaults(shard).withPersistInterval(Duration.ofHours(1));
            TxnEngine e;
            try {
                e = TxnEngine.open(cfg);
            } catch (WalCorruptedException x) {
                refused++;
                assertTrue(flipped.containsKey(x.file()), "refusal names an undamaged file; " + ctx);
                WalRepair.Outcome o = WalRepair.repair(shard, Instant.now());
                assertNotNull(o.quarantine(), ctx);
                try (TxnEngine again = TxnEngine.open(cfg)) {
                    assertTrue(again.persistedBlock() >= 0, ctx);
                }
                deleteDir(shard);
                continue;
            }
            try {
                for (SignedTransaction t : txs) {
                    assertEquals(valueOf(t), e.get(t.tx().writes().get(0).key()).value(), "acknowledged commit "
                            + t.txId().hex() + " lost; " + ctx + ", flips " + flipped);
                }
            } finally {
                e.close();
            }
            deleteDir(shard);
        }
        System.out.println("WalDamageTest engine: " + refused + " refused");
    }

    // ---------------------------------------------------------------- helpers

    static List<SignedTransaction> signed(int n) {
        List<SignedTransaction> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(CrashChild.tx(CrashChild.clientKey(), "t" + i, new TreeSet<>(List.of("k" + i + "a", "k" + i
                    + "b")), null, 0));
        }
        return out;
    }

    static Bytes valueOf(SignedTransaction t) {
        return t.tx().writes().get(0).value();
    }

    /**
     * Writes the transactions as commits over {@code segments} segments, each epoch sealed before the next segment
     * (as the engine rotates), the last epoch left open; returns the transactions of each segment.
     */
    static List<List<SignedTransaction>> writeEngineLog(Path walDir, List<SignedTransaction> txs, int segments) {
        List<List<SignedTransaction>> out = new ArrayList<>();
        BlockSequencer seq = new BlockSequencer(1);
        long ts = System.currentTimeMillis() + Duration.ofMinutes(10).toMillis();  // after the genesis block's
        int per = txs.size() / segments;
        try (Wal w = Wal.open(walDir, false)) {
            for (int s = 0; s < segments; s++) {
                w.startSegment(seq.epochBase(), List.of());
                List<SignedTransaction> part = txs.subList(s * per, s == segments - 1 ? txs.size() : (s + 1) * per);
                for (SignedTransaction t : part) {
                    seq.assign(t);
                    w.append(Wal.COMMIT, t.record());
                    w.flush();
                }
                if (s < segments - 1) {
                    seq.seal(++ts);
                    w.append(Wal.SEAL, new io.glassledger.verify.codec.ByteWriter(8).u64(ts).toByteArray());
                    w.flush();
                }
                out.add(part);
            }
        }
        return out;
    }

    static byte[] flipped(byte[] b, int at) {
        byte[] c = b.clone();
        c[at] ^= 1;
        return c;
    }

    static byte[] concat(byte[] a, byte[] b) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        o.writeBytes(a);
        o.writeBytes(b);
        return o.toByteArray();
    }

    static void deleteDir(Path d) throws IOException {
        if (!Files.exists(d)) {
            return;
        }
        try (Stream<Path> s = Files.walk(d)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
