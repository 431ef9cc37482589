package io.glassledger.core.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.codec.ByteWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leaf log against a model (a map of each leaf's current bytes, kept for every block): random puts and removals
 * in blocks, collections, reopens, and crashes after a block's sync but before its owner committed it, which the
 * reopen must cut back. {@link LeafLogCrashTest} makes crashes with SIGKILL.
 *
 * <p>{@code -Dleaflog.seed=N} repeats a run; the seed is printed.
 */
class LeafLogTest {
    private static final long SEGMENT = 4096;
    private static final int LEAVES = 48;
    private static final long BLOCKS = 400;

    @TempDir
    Path dir;

    @RepeatedTest(4)
    void randomBlocks_collections_reopens_andCutCrashes_matchTheModel(RepetitionInfo rep) {
        long seed = Long.getLong("leaflog.seed", new Random().nextLong()) + rep.getCurrentRepetition();
        System.out.println("LeafLogTest seed " + seed);
        Random r = new Random(seed);
        Map<Integer, byte[]> model = new HashMap<>();
        long collectedSegments = 0;
        long cuts = 0;
        long checkpoint = -1;
        LeafLog log = LeafLog.open(dir, SEGMENT, 0);
        try {
            for (long block = 1; block <= BLOCKS; block++) {
                String ctx = "seed " + seed + ", block " + block;
                Map<Integer, byte[]> next = new HashMap<>(model);
                int ops = 1 + r.nextInt(6);
                int records = 0;
                for (int i = 0; i < ops; i++) {
                    int leaf = r.nextInt(LEAVES);
                    if (r.nextInt(8) == 0) {
                        log.remove(leaf, block);
                        // Removing a leaf without a current version writes nothing.
                        records += next.remove(leaf) != null ? 1 : 0;
                    } else {
                        records++;
                        byte[] b = new byte[r.nextInt(500)];
                        r.nextBytes(b);
                        log.put(leaf, block, b);
                        next.put(leaf, b);
                    }
                }
                log.sync();
                if (r.nextInt(10) == 0) {
                    // The crash came after the block's sync, before its owner committed it: the reopen cuts it off.
                    log.abandon();
                    log = LeafLog.open(dir, SEGMENT, block - 1);
                    assertEquals(records, log.recovery().cutRecords(), ctx);
                    assertCheckpointUsed(log, checkpoint, ctx);
                    assertMatches(log, model, ctx + " after a cut");
                    cuts++;
                    block--;  // the owner writes that block again, perhaps differently
                    continue;
                }
                model = next;
                assertMatches(log, model, ctx);
                if (r.nextInt(4) == 0) {
                    LeafLog.Collected c = log.collect(0.5, Integer.MAX_VALUE);
                    collectedSegments += c.segments();
                    assertTrue(log.liveBytes() >= 0.5 * log.sizeBytes() || c.segments() == 0
                            || log.sizeBytes() <= 2 * SEGMENT, ctx + ": " + c);
                    assertMatches(log, model, ctx + " after collecting " + c);
                }
                if (r.nextInt(6) == 0) {
                    log.checkpoint(block);
                    checkpoint = block;
                }
                if (r.nextInt(12) == 0) {
                    log.close();
                    log = LeafLog.open(dir, SEGMENT, block);
                    assertEquals(0, log.recovery().cutRecords(), ctx);
                    assertCheckpointUsed(log, checkpoint, ctx);
                    assertMatches(log, model, ctx + " after a reopen");
                }
            }
            log.close();
            // An owner whose durable state is older than the log's by more than the one block a crash leaves (say
            // it restored a backup): collection deleted what those blocks replaced, so the log refuses.
            ValueLogCorruptedException e = assertThrows(ValueLogCorruptedException.class,
                    () -> LeafLog.open(dir, SEGMENT, 150));
            assertTrue(e.getMessage().contains("the log is not this state's"), e.getMessage());
            log = LeafLog.open(dir, SEGMENT, BLOCKS);
            // A checkpoint after block 150 was of a block after that owner's: deleted, the log replayed whole.
            assertCheckpointUsed(log, checkpoint > 150 ? -1 : checkpoint, "seed " + seed);
            assertMatches(log, model, "seed " + seed + ", reopened at the last block");
        } finally {
            log.close();
        }
        System.out.println("LeafLogTest seed " + seed + ": " + collectedSegments + " segments collected, " + cuts
                + " cuts");
        assertTrue(collectedSegments > 0, "the run collected nothing");
    }

    private static void assertCheckpointUsed(LeafLog log, long checkpoint, String ctx) {
        assertEquals(checkpoint, log.recovery().checkpointBlock(), ctx + ": " + log.recovery());
        assertNull(log.recovery().checkpointIgnored(), ctx);
    }

    private static void assertMatches(LeafLog log, Map<Integer, byte[]> model, String ctx) {
        long live = 0;
        for (int leaf = 0; leaf < LEAVES; leaf++) {
            byte[] want = model.get(leaf);
            if (want == null) {
                assertNull(log.get(leaf), ctx + ": leaf " + leaf);
            } else {
                assertArrayEquals(want, log.get(leaf), ctx + ": leaf " + leaf);
                live += FrameScan.HEADER_BYTES + LeafLog.HEADER + want.length;
            }
        }
        assertEquals(model.size(), log.leaves(), ctx + ": leaves");
        assertEquals(live, log.liveBytes(), ctx + ": live bytes");
    }

    @Test
    void blocksOutOfOrder_oversizedRecords_andNegativeNumbers_areRefused() {
        try (LeafLog log = LeafLog.open(dir, SEGMENT, 0)) {
            log.put(1, 5, new byte[]{1});
            assertThrows(IllegalArgumentException.class, () -> log.put(1, 4, new byte[]{2}));
            assertThrows(IllegalArgumentException.class, () -> log.put(-1, 5, new byte[]{2}));
            assertThrows(IllegalArgumentException.class,
                    () -> log.put(2, 5, new byte[LeafLog.MAX_RECORD_BYTES + 1]));
            assertThrows(IllegalArgumentException.class, () -> log.collect(1.0, 1));
            assertArrayEquals(new byte[]{1}, log.get(1));
        }
        try (LeafLog log = LeafLog.open(dir, SEGMENT, 4)) {
            assertNull(log.get(1), "block 5 is after the owner's block 4: cut");
            assertEquals(1, log.recovery().cutRecords());
            assertThrows(IllegalArgumentException.class, () -> log.put(1, 3, new byte[]{2}),
                    "the owner's block 4 is persisted: nothing before it is written again");
        }
    }

    @Test
    void aRecordOfThePersistedHistoryAfterOneOfALaterBlock_refusesToOpen() {
        try (ValueLog raw = ValueLog.open(dir, SEGMENT)) {
            raw.append(record(LeafLog.LEAF, 1, 4, new byte[]{1}));
            raw.append(record(LeafLog.LEAF, 2, 2, new byte[]{2}));
            raw.sync();
        }
        ValueLogCorruptedException e = assertThrows(ValueLogCorruptedException.class,
                () -> LeafLog.open(dir, SEGMENT, 3));
        assertTrue(e.getMessage().contains("not written in block order"), e.getMessage());
    }

    @Test
    void aDamagedRecord_inASealedSegment_refusesToOpen_namingTheFile() throws IOException {
        ValueLocator first;
        try (LeafLog log = LeafLog.open(dir, SEGMENT, 0)) {
            for (int leaf = 0; leaf < 40; leaf++) {
                log.put(leaf, 1, new byte[200]);
            }
            log.sync();
            assertTrue(log.sizeBytes() > 2 * SEGMENT);
        }
        try (ValueLog raw = ValueLog.open(dir, SEGMENT)) {
            first = raw.values(1).get(0).at();
        }
        try (FileChannel ch = FileChannel.open(dir.resolve(ValueLog.name(1)), StandardOpenOption.WRITE,
                StandardOpenOption.READ)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            long at = first.offset() + FrameScan.HEADER_BYTES + LeafLog.HEADER + 1;
            ch.read(one, at);
            one.put(0, (byte) (one.get(0) ^ 0x10)).rewind();
            ch.write(one, at);
        }
        // The value log's own open checks a sealed segment by its header and seal only; the replay reads every
        // record, so the damage is found before any leaf is served.
        ValueLogCorruptedException e = assertThrows(ValueLogCorruptedException.class,
                () -> LeafLog.open(dir, SEGMENT, 1));
        assertTrue(e.getMessage().contains(ValueLog.name(1)), e.getMessage());
    }

    @Test
    void collecting_keepsTheLogNearTheAskedShare_andCountsWhatItCopied() {
        Random r = new Random(5);
        try (LeafLog log = LeafLog.open(dir, SEGMENT, 0)) {
            for (long block = 1; block <= 200; block++) {
                for (int i = 0; i < 4; i++) {
                    byte[] b = new byte[100 + r.nextInt(100)];
                    r.nextBytes(b);
                    log.put(r.nextInt(20), block, b);
                }
                log.sync();
                log.collect(0.5, Integer.MAX_VALUE);
            }
            assertTrue(log.liveBytes() >= 0.5 * log.sizeBytes() - SEGMENT,
                    "live " + log.liveBytes() + " of " + log.sizeBytes());
            assertTrue(log.copiedBytes() > 0);
            assertTrue(log.copiedBytes() < 800L * 200 * 4, "copied " + log.copiedBytes());
        }
        try (LeafLog log = LeafLog.open(dir, SEGMENT, 200)) {
            assertEquals(20, log.leaves());
        }
    }

    @Test
    void aLeafRemovedAfterTheCheckpoint_staysRemoved_whenCollectionTookTheRemoval() {
        long segmentsAtRemoval;
        long collected = 0;
        try (LeafLog log = LeafLog.open(dir, SEGMENT, 0)) {
            for (int leaf = 0; leaf < 40; leaf++) {
                log.put(leaf, 1, new byte[200]);
            }
            log.sync();
            log.checkpoint(1);
            log.remove(0, 2);
            log.sync();
            segmentsAtRemoval = (log.sizeBytes() + SEGMENT - 1) / SEGMENT;
            Random r = new Random(11);
            for (long block = 3; block < 400 && collected <= segmentsAtRemoval; block++) {
                for (int i = 0; i < 6; i++) {
                    log.put(1 + r.nextInt(39), block, new byte[150]);
                }
                log.sync();
                collected += log.collect(0.9, Integer.MAX_VALUE).segments();
            }
            assertTrue(collected > segmentsAtRemoval, "collected " + collected);
            assertNull(log.get(0));
        }
        try (LeafLog log = LeafLog.open(dir, SEGMENT, 399)) {
            assertEquals(1, log.recovery().checkpointBlock(), "the checkpoint of block 1 was used");
            assertNull(log.get(0), "leaf 0's record in the checkpoint went with its segment; so did its removal");
            assertEquals(39, log.leaves());
            long live = 0;
            for (int leaf = 1; leaf < 40; leaf++) {
                live += FrameScan.HEADER_BYTES + LeafLog.HEADER + log.get(leaf).length;
            }
            assertEquals(live, log.liveBytes());
        }
    }

    @Test
    void anUnusableCheckpoint_isDeleted_andTheWholeLogReplayed() throws IOException {
        try (LeafLog log = LeafLog.open(dir, SEGMENT, 0)) {
            for (int leaf = 0; leaf < 30; leaf++) {
                log.put(leaf, 1, new byte[]{(byte) leaf});
            }
            log.checkpoint(1);
            log.put(3, 2, new byte[]{42});
            assertThrows(IllegalArgumentException.class, () -> log.checkpoint(1),
                    "block 2 is written: a checkpoint of block 1 would name its records");
        }
        Path cp = dir.resolve(LeafLogCheckpoint.FILE);
        byte[] good = Files.readAllBytes(cp);
        byte[] bad = good.clone();
        bad[40] ^= 1;
        Files.write(cp, bad);
        try (LeafLog log = LeafLog.open(dir, SEGMENT, 2)) {
            assertEquals(-1, log.recovery().checkpointBlock());
            assertTrue(log.recovery().checkpointIgnored().contains("checksum"), log.recovery().toString());
            assertArrayEquals(new byte[]{42}, log.get(3));
            assertEquals(30, log.leaves());
        }
        assertTrue(Files.notExists(cp), "the damaged checkpoint is gone");
        // Whole and of block 1, but naming a place past its segment's end: not this log's.
        LeafLogCheckpoint.write(dir, 1, new ValueLog.Head(1, 1 << 20), new long[]{1}, new long[]{0}, 1);
        try (LeafLog log = LeafLog.open(dir, SEGMENT, 2)) {
            assertTrue(log.recovery().checkpointIgnored().contains("which has"), log.recovery().toString());
            assertEquals(30, log.leaves());
        }
        // Of block 1, and the owner is at block 0: ignored, and the whole log, holding block 2, is not its.
        Files.write(cp, good);
        assertThrows(ValueLogCorruptedException.class, () -> LeafLog.open(dir, SEGMENT, 0));
        assertTrue(Files.notExists(cp), "the checkpoint of a later block is gone");
        try (LeafLog log = LeafLog.open(dir, SEGMENT, 2)) {
            assertEquals(-1, log.recovery().checkpointBlock());
            assertArrayEquals(new byte[]{42}, log.get(3));
            log.checkpoint(2);
        }
        try (LeafLog log = LeafLog.open(dir, SEGMENT, 2)) {
            assertEquals(2, log.recovery().checkpointBlock());
            assertEquals(0, log.recovery().records(), "nothing after the checkpoint to replay");
            assertArrayEquals(new byte[]{42}, log.get(3));
            assertEquals(30, log.leaves());
        }
    }

    static byte[] record(int kind, int leaf, long block, byte[] bytes) {
        return new ByteWriter().u8(kind).u32(leaf).u64(block).raw(bytes).toByteArray();
    }
}
