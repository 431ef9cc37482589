package io.glassledger.core.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * A {@link LeafLog}'s locators at one committed block, in a file beside its segments, so that an open reads the
 * records appended after it instead of the whole log (FORMAT.md §19.3, "Checkpoint"). It is a cache of what the log
 * says: an open that finds it damaged, of a block after the owner's, or naming a position the log does not have
 * replays the whole log instead and says so.
 *
 * <pre>
 * "GLLEAFCP" ‖ u8 1 ‖ u64 block ‖ u64 head segment ‖ u64 head offset ‖ u32 n ‖ n × (u64 segment ‖ u64 place)
 *            ‖ u32 crc32c(everything before)                                                      big-endian
 * </pre>
 * Entry i is leaf i's locator as the log holds it in memory (segment 0: no current version; place {@code offset <<
 * 32 | length}); the head is where the first record after the checkpoint was to be appended
 * ({@link ValueLog#head()}). Written to a temporary file, forced, renamed over the last one, the directory forced:
 * a crash leaves the old checkpoint or the new one, whole.
 */
final class LeafLogCheckpoint {
    static final String FILE = "leaves.checkpoint";
    private static final String TEMPORARY = FILE + ".tmp";
    private static final byte[] MAGIC = {'G', 'L', 'L', 'E', 'A', 'F', 'C', 'P'};
    private static final int VERSION = 1;
    private static final int HEADER = MAGIC.length + 1 + 8 + 8 + 8 + 4;
    private static final int ENTRY = 16;
    private static final int CHUNK = 1 << 20;

    /** A checkpoint read back: the block, the head, and the locator arrays (n entries). */
    record Loaded(long block, ValueLog.Head head, long[] segmentOf, long[] placeOf) {
    }

    /** Why a checkpoint file cannot be used; the open replays the whole log instead. */
    static final class Unusable extends Exception {
        Unusable(String why) {
            super(why);
        }
    }

    private LeafLogCheckpoint() {
    }

    /** Writes the first {@code n} locators durably as the checkpoint of {@code block} with head {@code head}. */
    static long write(Path dir, long block, ValueLog.Head head, long[] segmentOf, long[] placeOf, int n) {
        Path tmp = dir.resolve(TEMPORARY);
        CRC32C crc = new CRC32C();
        ByteBuffer b = ByteBuffer.allocate(CHUNK);
        long bytes = 0;
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            b.put(MAGIC).put((byte) VERSION).putLong(block).putLong(head.segment()).putLong(head.offset()).putInt(n);
            for (int i = 0; i < n; i++) {
                if (b.remaining() < ENTRY) {
                    bytes += drain(ch, b, crc);
                }
                b.putLong(segmentOf[i]).putLong(placeOf[i]);
            }
            bytes += drain(ch, b, crc);
            b.putInt((int) crc.getValue());
            bytes += drain(ch, b, null);
            ch.force(true);
        } catch (IOException e) {
            throw new StoreException("writing the leaf log's checkpoint in " + dir, e);
        }
        try {
            Files.move(tmp, dir.resolve(FILE), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            ValueLog.forceDirectory(dir);
        } catch (IOException e) {
            throw new StoreException("installing the leaf log's checkpoint in " + dir, e);
        }
        return bytes;
    }

    private static int drain(FileChannel ch, ByteBuffer b, CRC32C crc) throws IOException {
        b.flip();
        int n = b.remaining();
        if (crc != null) {
            crc.update(b.duplicate());
        }
        while (b.hasRemaining()) {
            ch.write(b);
        }
        b.clear();
        return n;
    }

    /**
     * The checkpoint in {@code dir}, or null if there is none (a temporary file a crash left is deleted).
     *
     * @throws Unusable its length, magic, version or checksum is wrong
     */
    static Loaded read(Path dir) throws Unusable {
        try {
            Files.deleteIfExists(dir.resolve(TEMPORARY));
        } catch (IOException e) {
            throw new StoreException("deleting " + dir.resolve(TEMPORARY), e);
        }
        Path p = dir.resolve(FILE);
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size < HEADER + 4) {
                throw new Unusable(FILE + " has " + size + " bytes, less than a header");
            }
            ByteBuffer h = ByteBuffer.allocate(HEADER);
            ValueLog.readFully(ch, h, 0);
            h.flip();
            byte[] magic = new byte[MAGIC.length];
            h.get(magic);
            int version = h.get() & 0xFF;
            if (!Arrays.equals(magic, MAGIC) || version != VERSION) {
                throw new Unusable(FILE + " is not a version " + VERSION + " leaf log checkpoint");
            }
            long block = h.getLong();
            long segment = h.getLong();
            long offset = h.getLong();
            long n = h.getInt() & 0xFFFFFFFFL;
            if (size != HEADER + n * ENTRY + 4 || n > Integer.MAX_VALUE - 8) {
                throw new Unusable(FILE + " has " + size + " bytes, and " + n + " entries take "
                        + (HEADER + n * ENTRY + 4));
            }
            CRC32C crc = new CRC32C();
            crc.update(h.flip());
            long[] segmentOf = new long[(int) n];
            long[] placeOf = new long[(int) n];
            ByteBuffer b = ByteBuffer.allocate(CHUNK);
            long at = HEADER;
            int i = 0;
            while (i < n) {
                b.clear().limit((int) Math.min(CHUNK, (n - i) * ENTRY));
                ValueLog.readFully(ch, b, at);
                at += b.limit();
                b.flip();
                crc.update(b.duplicate());
                while (b.hasRemaining()) {
                    segmentOf[i] = b.getLong();
                    placeOf[i] = b.getLong();
                    i++;
                }
            }
            ByteBuffer tail = ByteBuffer.allocate(4);
            ValueLog.readFully(ch, tail, at);
            if (tail.getInt(0) != (int) crc.getValue()) {
                throw new Unusable(FILE + "'s checksum does not match");
            }
            if (segment < 1 || offset < 0 || block < 0) {
                throw new Unusable(FILE + " names block " + block + " and head " + segment + "/" + offset);
            }
            return new Loaded(block, new ValueLog.Head(segment, offset), segmentOf, placeOf);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw new StoreException("reading " + p, e);
        }
    }

    /** Deletes the checkpoint, durably (one found unusable, so that it is not read again). */
    static void delete(Path dir) {
        try {
            if (Files.deleteIfExists(dir.resolve(FILE))) {
                ValueLog.forceDirectory(dir);
            }
        } catch (IOException e) {
            throw new StoreException("deleting the leaf log's checkpoint in " + dir, e);
        }
    }
}
