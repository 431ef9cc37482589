package io.glassledger.core.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The value log's contract: what is appended reads back, a sync makes it survive, and every state a crash can leave
 * (built here byte by byte; {@link ValueLogCrashTest} makes them with SIGKILL) opens to exactly the synced values,
 * while damage a crash cannot leave refuses to open or to read.
 */
class ValueLogTest {
    private static final long SEGMENT = 4096;

    @TempDir
    Path dir;

    private static byte[] value(Random r, int max) {
        byte[] v = new byte[r.nextInt(max + 1)];
        r.nextBytes(v);
        return v;
    }

    private record Written(ValueLocator at, byte[] value) {
    }

    private static List<Written> appendSome(ValueLog log, Random r, int n, int max) {
        List<Written> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] v = value(r, max);
            out.add(new Written(log.append(v), v));
        }
        return out;
    }

    private static void assertReads(ValueLog log, List<Written> written) {
        for (Written w : written) {
            assertArrayEquals(w.value(), log.read(w.at()), "value at " + w.at());
        }
    }

    private Path segment(long seq) {
        return dir.resolve(ValueLog.name(seq));
    }

    @Test
    void appendedValues_readBack_beforeAndAfterSyncAndReopen_acrossRolls() {
        long seed = new Random().nextLong();
        System.out.println("ValueLogTest seed " + seed);
        Random r = new Random(seed);
        List<Written> written;
        try (ValueLog log = ValueLog.open(dir, SEGMENT)) {
            written = appendSome(log, r, 300, 700);
            assertReads(log, written);  // unsynced values are readable at once
            log.sync();
            assertTrue(log.segments().size() > 20, "a roll about every 10 values: " + log.segments());
            assertEquals(written.size(), written.stream().map(Written::at).distinct().count());
        }
        try (ValueLog log = ValueLog.open(dir, SEGMENT)) {
            assertEquals(0, log.recovery().tornBytes());
            assertReads(log, written);
            List<Written> more = appendSome(log, r, 50, 700);
            log.sync();
            assertReads(log, more);
            assertTrue(more.get(0).at().segment() >= written.get(written.size() - 1).at().segment());
        }
        long onDisk = 0;
        for (long s = 1; Files.exists(segment(s)); s++) {
            onDisk += segment(s).toFile().length();
        }
        try (ValueLog log = ValueLog.open(dir, SEGMENT)) {
            assertEquals(onDisk, log.sizeBytes());
        }
    }

    @Test
    void emptyValue_andAValueLargerThanASegment_readBack() {
        try (ValueLog log = ValueLog.open(dir, SEGMENT)) {
            ValueLocator empty = log.append(new byte[0]);
            byte[] big = new byte[3 * (int) SEGMENT];
            new Random(7).nextBytes(big);
            ValueLocator at = log.append(big);
            ValueLocator after = log.append(new byte[]{1});
            log.sync();
            assertArrayEquals(new byte[0], log.read(empty));
            assertArrayEquals(big, log.read(at));
            assertTrue(at.segment() > empty.segment(), "the big value starts a segment of its own");
            assertTrue(after.segment() > at.segment(), "and nothing follows it there");
        }
        try (ValueLog log = ValueLog.open(dir, SEGMENT)) {
            assertEquals(3, log.segments().size());
        }
    }

    @Test
    void oversizedValue_andUseAfterClose_areRefused() {
        ValueLog log = ValueLog.open(dir, SEGMENT);
        assertThrows(IllegalArgumentException.class, () -> log.append(new byte[ValueLog.MAX_VALUE_BYTES + 1]));
        ValueLocator at = log.append(new byte[]{1, 2, 3});
        log.close();
        log.close();
        assertThrows(StoreClosedException.class, () -> log.append(new byte[1]));
        assertThrows(StoreClosedException.class, () -> log.read(at));
        assertThrows(IllegalArgumentException.class, () -> ValueLog.open(dir, 1000));
    }

    @Test
    void locatorsThatDoNotNameAValue_throwRatherThanReturnOtherBytes() {
        ValueLocator a;
        ValueLocator b;
        try (ValueLog log = ValueLog.open(dir, SEGMENT)) {
            a = log.append(new byte[]{1, 2, 3, 4});
            b = log.append(new byte[]{5, 6});
            log.sync();
            ValueLocator wrongLength = new ValueLocator(a.segment(), a.offset(), 3);
            ValueLocator midFrame = new ValueLocator(a.segment(), a.offset() + 2, 4);
            ValueLocator pastEnd = new ValueLocator(b.segment(), b.offset() + 100, 2);
            assertThrows(ValueLogCorruptedException.class, () -> log.read(wrongLength));
            assertThrows(ValueLogCorruptedException.class, () -> log.read(midFrame));
            assertThrows(ValueLogCorruptedException.class, () -> log.read(pastEnd));
            assertThrows(IllegalArgumentException.class, () -> log.read(new ValueLocator(99, 0, 1)));
            assertArrayEquals(new byte[]{5, 6}, log.read(b));
        }
    }

    @Test
    void bitFlipInASealedValue_failsThatRead_only() throws IOException {
        Random r = new Random(11);
        List<Written> written;
        try (ValueLog log = ValueLog.open(dir, SEGMENT)) {
            written = appendSome(log, r, 60, 500);
            log.sync();
        }
        Written victim = written.stream().filter(w -> w.at().segment() == 1 && w.value().length > 10).findFirst()
                .orElseThrow();
        flip(segment(1), victim.at().offset() + FrameScan.HEADER_BYTES + 5);
        try (ValueLog log = ValueLog.open(dir, SEGMENT)) {
            ValueLogCorruptedException e = assertThrows(ValueLogCorruptedException.class, () -> log.read(victim.at()));
            assertEquals(victim.at().offset(), e.offset());
            assertTrue(e.getMessage().contains("checksum"), e.getMessage());
            assertReads(log, written.stream().filter(w -> w != victim).toList());
        }
    }

    @Test
    void tornTailOfUnsyncedValues_isCutOff_andTheLogGoesOn() throws IOException {
        Random r = new Random(13);
        List<Written> synced;
        long syncedEnd;
        try (ValueLog log = ValueLog.open(dir, 1 << 20)) {
            synced = appendSome(log, r, 20, 300);
            log.sync();
            syncedEnd = log.sizeBytes();
        }
        // A crash mid-write of later values: half a frame, then (pages reach the disk out of order) a whole
        // value frame after a hole of zeros. No sync frame follows, so none of it was acknowledged.
        ByteBuffer tail = ByteBuffer.allocate(4096);
        byte[] lost = new byte[100];
        java.util.Arrays.fill(lost, (byte) 0x55);
        FrameScan.put(tail, ValueLog.VALUE, lost, new CRC32C());
        tail.position(50);
        tail.put(new byte[200]);
        FrameScan.put(tail, ValueLog.VALUE, new byte[]{9, 9, 9}, new CRC32C());
        appendBytes(segment(1), tail.array(), tail.position());
        try (ValueLog log = ValueLog.open(dir, 1 << 20)) {
            assertEquals(tail.position(), log.recovery().tornBytes());
            assertEquals(syncedEnd, Files.size(segment(1)));
            assertReads(log, synced);
            Written next = new Written(log.append(new byte[]{4, 2}), new byte[]{4, 2});
            log.sync();
            assertEquals(syncedEnd, next.at().offset());
            assertReads(log, List.of(next));
        }
    }

    @Test
    void damageFollowedByASyncFrame_refusesToOpen() throws IOException {
        Written first;
        try (ValueLog log = ValueLog.open(dir, 1 << 20)) {
            first = new Written(log.append(new byte[40]), new byte[40]);
            log.sync();
            log.append(new byte[]{1});
            log.sync();
        }
        flip(segment(1), first.at().offset() + FrameScan.HEADER_BYTES + 3);
        ValueLogCorruptedException e = assertThrows(ValueLogCorruptedException.class,
                () -> ValueLog.open(dir, 1 << 20));
        assertEquals(first.at().offset(), e.offset());
        assertTrue(e.getMessage().contains("acknowledged"), e.getMessage());
    }

    @Test
    void crashAfterTheSealBeforeTheNextSegment_opensAndStartsIt() throws IOException {
        List<Written> written = fillTwoSegments();
        Files.delete(segment(2));  // the seal of 1 is durable; 2 never got created
        try (ValueLog log = ValueLog.open(dir, SEGMENT)) {
            List<Written> kept = written.stream().filter(w -> w.at().segment() == 1).toList();
            assertReads(log, kept);
            assertEquals(List.of(1L, 2L), log.segments());
            ValueLocator at = log.append(new byte[]{7});
            assertEquals(2, at.segment());
        }
    }

    @Test
    void crashWhileCreatingTheNextSegment_removesItsTornHeader() throws IOException {
        for (int cut : new int[]{0, 5, 20}) {
            List<Written> written = fillTwoSegments();
            try (FileChannel ch = FileChannel.open(segment(2), StandardOpenOption.WRITE)) {
                ch.truncate(cut);
            }
            try (ValueLog log = ValueLog.open(dir, SEGMENT)) {
                assertEquals(2, log.recovery().removedSegment(), "header cut at " + cut);
                assertReads(log, written.stream().filter(w -> w.at().segment() == 1).toList());
                assertEquals(2, log.append(new byte[]{7}).segment());
            }
            clear();
        }
    }

    @Test
    void tornSeal_leavesTheSegmentOpenForAppends() throws IOException {
        List<Written> written = fillTwoSegments();
        List<Written> kept = written.stream().filter(w -> w.at().segment() == 1).toList();
        Files.delete(segment(2));
        long size = Files.size(segment(1));
        try (FileChannel ch = FileChannel.open(segment(1), StandardOpenOption.WRITE)) {
            ch.truncate(size - 10);  // the seal frame half-written
        }
        try (ValueLog log = ValueLog.open(dir, SEGMENT)) {
            assertEquals(15, log.recovery().tornBytes());
            assertReads(log, kept);
            ValueLocator at = log.append(new byte[]{7});
            log.sync();
            assertArrayEquals(new byte[]{7}, log.read(at));
        }
        try (ValueLog log = ValueLog.open(dir, SEGMENT)) {
            assertEquals(0, log.recovery().tornBytes());
            assertReads(log, kept);
        }
    }

    @Test
    void damageACrashCannotLeave_refusesToOpen_namingTheFile() throws IOException {
        fillThreeSegments();
        try (FileChannel ch = FileChannel.open(segment(1), StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() - 1);  // a sealed segment without its seal
        }
        ValueLogCorruptedException e = assertThrows(ValueLogCorruptedException.class, () -> ValueLog.open(dir, SEGMENT));
        assertEquals(segment(1), e.file());
        clear();

        fillThreeSegments();
        Files.delete(segment(2));  // a gap
        e = assertThrows(ValueLogCorruptedException.class, () -> ValueLog.open(dir, SEGMENT));
        assertTrue(e.getMessage().contains("missing"), e.getMessage());
        clear();

        fillThreeSegments();
        Files.move(segment(1), dir.resolve("saved"));
        Files.move(segment(2), segment(1));  // a segment under another's name
        Files.move(dir.resolve("saved"), segment(2));
        e = assertThrows(ValueLogCorruptedException.class, () -> ValueLog.open(dir, SEGMENT));
        assertTrue(e.getMessage().contains("names segment"), e.getMessage());
        clear();

        fillThreeSegments();
        appendBytes(segment(3), new byte[]{0, 0, 0, 1}, 4);
        try (ValueLog log = ValueLog.open(dir, SEGMENT)) {
            assertEquals(4, log.recovery().tornBytes(), "a torn tail in the newest is not damage");
        }
    }

    @Test
    void readersRunConcurrentlyWithAppendsAndRolls() throws Exception {
        long seed = new Random().nextLong();
        System.out.println("ValueLogTest concurrent seed " + seed);
        Random r = new Random(seed);
        List<Written> written = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicReference<Throwable> failure = new AtomicReference<>();
        ExecutorService readers = Executors.newFixedThreadPool(2);
        try (ValueLog log = ValueLog.open(dir, SEGMENT)) {
            written.addAll(appendSome(log, r, 10, 500));
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                long readerSeed = seed + t + 1;
                done.add(readers.submit(() -> {
                    Random rr = new Random(readerSeed);
                    for (int i = 0; i < 20_000 && failure.get() == null; i++) {
                        Written w = written.get(rr.nextInt(written.size()));
                        if (!java.util.Arrays.equals(w.value(), log.read(w.at()))) {
                            failure.set(new AssertionError("read other bytes at " + w.at()));
                        }
                    }
                }));
            }
            for (int i = 0; i < 2_000; i++) {
                byte[] v = value(r, 500);
                written.add(new Written(log.append(v), v));
                if (i % 50 == 0) {
                    log.sync();
                }
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            readers.shutdownNow();
        }
        if (failure.get() != null) {
            throw new AssertionError("seed " + seed, failure.get());
        }
    }

    private List<Written> fillTwoSegments() {
        Random r = new Random(17);
        try (ValueLog log = ValueLog.open(dir, SEGMENT)) {
            List<Written> out = new ArrayList<>();
            while (log.segments().size() < 2) {
                out.addAll(appendSome(log, r, 1, 400));
            }
            log.sync();
            return out;
        }
    }

    @Test
    void values_listEverySegmentInOrder_andDeleteOldest_dropsOnlyASealedOne_acrossReopen() {
        Random r = new Random(11);
        List<Written> written;
        try (ValueLog log = ValueLog.open(dir, SEGMENT)) {
            written = appendSome(log, r, 40, 300);  // several segments, the last values unsynced
            List<Written> listed = new ArrayList<>();
            for (long seq : log.segments()) {
                log.values(seq).forEach(s -> listed.add(new Written(s.at(), s.value())));
            }
            assertEquals(written.size(), listed.size());
            for (int i = 0; i < written.size(); i++) {
                assertEquals(written.get(i).at(), listed.get(i).at());
                assertArrayEquals(written.get(i).value(), listed.get(i).value());
            }
            long first = log.segments().get(0);
            long size = log.sizeBytes();
            long firstBytes = log.values(first).stream().mapToLong(s -> FrameScan.HEADER_BYTES + s.at().length())
                    .sum();
            log.deleteOldest();
            assertEquals(first + 1, log.segments().get(0));
            assertTrue(log.sizeBytes() < size - firstBytes, "the deleted segment's bytes are no longer counted");
            assertTrue(Files.notExists(dir.resolve(ValueLog.name(first))));
            Written gone = written.stream().filter(w -> w.at().segment() == first).findFirst().orElseThrow();
            assertThrows(IllegalArgumentException.class, () -> log.read(gone.at()));
            assertThrows(IllegalArgumentException.class, () -> log.values(first));
        }
        List<Written> kept = written.stream().filter(w -> w.at().segment() > written.get(0).at().segment()).toList();
        try (ValueLog log = ValueLog.open(dir, SEGMENT)) {
            assertReads(log, kept);
            while (log.segments().size() > 1) {
                log.deleteOldest();
            }
            assertThrows(IllegalStateException.class, log::deleteOldest, "the segment appends go to stays");
            ValueLocator at = log.append(new byte[]{7});
            log.sync();
            assertArrayEquals(new byte[]{7}, log.read(at));
        }
    }

    @Test
    void truncate_cutsBackToAValue_inAnEarlierSegment_andAppendsGoOnThere_acrossReopen() {
        Random r = new Random(12);
        ValueLocator cut;
        List<Written> before;
        try (ValueLog log = ValueLog.open(dir, SEGMENT)) {
            List<Written> written = appendSome(log, r, 120, 300);
            log.sync();
            assertTrue(log.segments().size() >= 4, log.segments().toString());
            int i = written.size() / 3;
            cut = written.get(i).at();
            before = written.subList(0, i);
            assertThrows(IllegalArgumentException.class,
                    () -> log.truncate(new ValueLocator(cut.segment(), cut.offset() + 1, cut.length())),
                    "not where a value starts");
            log.truncate(cut);
            assertEquals(cut.segment(), log.segments().get(log.segments().size() - 1));
            assertReads(log, before);
            assertEquals(before.size(), log.segments().stream().mapToLong(s -> log.values(s).size()).sum());
        }
        try (ValueLog log = ValueLog.open(dir, SEGMENT)) {
            assertEquals(0, log.recovery().tornBytes());
            assertReads(log, before);
            ValueLocator at = log.append(new byte[]{9, 9});
            assertEquals(cut.segment(), at.segment(), "appends go on in the segment cut back");
            assertEquals(cut.offset(), at.offset());
            log.sync();
            assertArrayEquals(new byte[]{9, 9}, log.read(at));
        }
    }

    private void fillThreeSegments() {
        Random r = new Random(19);
        try (ValueLog log = ValueLog.open(dir, SEGMENT)) {
            while (log.segments().size() < 3) {
                appendSome(log, r, 1, 400);
            }
            log.sync();
        }
    }

    private void clear() throws IOException {
        try (var s = Files.list(dir)) {
            for (Path p : s.toList()) {
                Files.delete(p);
            }
        }
    }

    private static void flip(Path p, long offset) throws IOException {
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, offset);
            b.put(0, (byte) (b.get(0) ^ 0x10));
            b.rewind();
            ch.write(b, offset);
        }
    }

    private static void appendBytes(Path p, byte[] bytes, int n) throws IOException {
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            ch.write(ByteBuffer.wrap(bytes, 0, n));
        }
    }
}
