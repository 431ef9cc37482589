package io.glassledger.core.txn;

import io.glassledger.core.LedgerException;
import io.glassledger.core.codec.ByteReader;
import io.glassledger.core.codec.ByteWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * The shard's write-ahead log (FORMAT.md §15): numbered segment files of framed records
 * {@code u32 length || u32 crc32c || u8 type || payload}. Each segment opens with a header naming the first block
 * number of the epoch open at its start, followed by the transactions then prepared, so segments before it can be
 * deleted once their epochs are in the ledger.
 *
 * <p>Not thread-safe: the engine's sequencer thread is its only writer. A torn or corrupt tail of the last segment
 * (a crash mid-write) is cut off at open; damage anywhere else is an error.
 */
final class Wal implements AutoCloseable {
    static final int HEADER = 0;
    static final int COMMIT = 1;
    static final int PREPARE = 2;
    static final int DECIDE_COMMIT = 3;
    static final int DECIDE_ABORT = 4;
    static final int SEAL = 5;
    static final int OUTCOME = 6;
    static final int MAX_RECORD = SignedTransaction.MAX_RECORD_BYTES + 16;
    private static final byte[] MAGIC = {'G', 'L', 'W', 'A', 'L', '1'};

    record Record(int type, byte[] payload) {
    }

    record Segment(long seq, Path path, long epochBase, List<Record> records) {
    }

    private final Path dir;
    private final boolean fsync;
    private final List<Segment> segments = new ArrayList<>();
    private FileChannel channel;
    private ByteBuffer buffer = ByteBuffer.allocate(1 << 20);
    private long segmentBytes;
    private boolean unsynced;

    private Wal(Path dir, boolean fsync) {
        this.dir = dir;
        this.fsync = fsync;
    }

    /** Opens the log in {@code dir}, reading every segment; the caller replays them and then starts a segment. */
    static Wal open(Path dir, boolean fsync) {
        Wal w = new Wal(dir, fsync);
        try {
            Files.createDirectories(dir);
            List<Path> files;
            try (Stream<Path> s = Files.list(dir)) {
                files = s.filter(p -> p.getFileName().toString().matches("wal-\\d{16}\\.log")).sorted().toList();
            }
            for (int i = 0; i < files.size(); i++) {
                Segment seg = read(files.get(i), i == files.size() - 1);
                if (seg.epochBase() >= 0) {
                    w.segments.add(seg);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return w;
    }

    List<Segment> segments() {
        return List.copyOf(segments);
    }

    private static Segment read(Path p, boolean last) throws IOException {
        String name = p.getFileName().toString();
        long seq = Long.parseLong(name.substring(4, 20));
        byte[] data = Files.readAllBytes(p);
        List<Record> records = new ArrayList<>();
        int pos = 0;
        long epochBase = -1;
        CRC32C crc = new CRC32C();
        while (pos < data.length) {
            if (data.length - pos < 9) {
                break;
            }
            int len = ByteBuffer.wrap(data, pos, 4).getInt();
            int sum = ByteBuffer.wrap(data, pos + 4, 4).getInt();
            if (len < 1 || len > MAX_RECORD || len > data.length - pos - 8) {
                break;
            }
            crc.reset();
            crc.update(data, pos + 8, len);
            if ((int) crc.getValue() != sum) {
                break;
            }
            int type = data[pos + 8] & 0xff;
            byte[] payload = new byte[len - 1];
            System.arraycopy(data, pos + 9, payload, 0, len - 1);
            pos += 8 + len;
            if (records.isEmpty() && epochBase < 0) {
                epochBase = parseHeader(p, type, payload);
                continue;
            }
            records.add(new Record(type, payload));
        }
        if (epochBase < 0) {
            if (last) {
                // Crashed while creating the segment: nothing in it was ever acknowledged.
                Files.delete(p);
                return new Segment(seq, p, -1, List.of());
            }
            throw new LedgerException("WAL segment " + p + " has no valid header");
        }
        if (pos < data.length) {
            if (!last) {
                throw new LedgerException("WAL segment " + p + " is damaged at offset " + pos);
            }
            try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
                ch.truncate(pos);
                ch.force(true);
            }
        }
        return new Segment(seq, p, epochBase, records);
    }

    private static long parseHeader(Path p, int type, byte[] payload) {
        if (type != HEADER || payload.length != MAGIC.length + 8) {
            throw new LedgerException("WAL segment " + p + " does not start with a header");
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (payload[i] != MAGIC[i]) {
                throw new LedgerException("WAL segment " + p + " has a foreign header");
            }
        }
        return new ByteReader(payload, MAGIC.length, payload.length).u64();
    }

    /**
     * Starts a new segment whose epoch begins at block {@code epochBase}, carrying the records of the transactions
     * still prepared. Durable (file and directory) before it returns.
     */
    void startSegment(long epochBase, List<byte[]> preparedRecords) {
        startSegment(epochBase, preparedRecords, List.of());
    }

    /** {@link #startSegment(long, List)} also carrying the outcome records of recent 2PC decisions. */
    void startSegment(long epochBase, List<byte[]> preparedRecords, List<byte[]> outcomeRecords) {
        flush();
        long seq = segments.stream().mapToLong(Segment::seq).max().orElse(0) + 1;
        Path p = dir.resolve(String.format("wal-%016d.log", seq));
        try {
            if (channel != null) {
                channel.close();
            }
            channel = FileChannel.open(p, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            segmentBytes = 0;
            append(HEADER, new ByteWriter(16).raw(MAGIC).u64(epochBase).toByteArray());
            for (byte[] r : preparedRecords) {
                append(PREPARE, r);
            }
            for (byte[] r : outcomeRecords) {
                append(OUTCOME, r);
            }
            flush();
            if (fsync) {
                forceDirectory();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        segments.add(new Segment(seq, p, epochBase, List.of()));
    }

    /** Continues appending to the last segment read at open. */
    void reopenLast() {
        Segment last = segments.get(segments.size() - 1);
        try {
            channel = FileChannel.open(last.path(), StandardOpenOption.WRITE, StandardOpenOption.APPEND);
            segmentBytes = channel.size();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void forceDirectory() throws IOException {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }

    /** Buffers a record; it is durable after the next {@link #flush()}. */
    void append(int type, byte[] payload) {
        int need = 9 + payload.length;
        if (buffer.remaining() < need) {
            if (buffer.position() > 0) {
                write();
            }
            if (buffer.capacity() < need) {
                buffer = ByteBuffer.allocate(Math.max(need, buffer.capacity() * 2));
            }
        }
        CRC32C crc = new CRC32C();
        crc.update(type);
        crc.update(payload);
        buffer.putInt(1 + payload.length).putInt((int) crc.getValue()).put((byte) type).put(payload);
        segmentBytes += need;
        unsynced = true;
    }

    private void write() {
        buffer.flip();
        try {
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            buffer.clear();
        }
    }

    /** Writes the buffered records and, with fsync on, forces them to stable storage; true if it forced. */
    boolean flush() {
        if (channel == null) {
            return false;
        }
        if (buffer.position() > 0) {
            write();
        }
        // A batch of only refused or read-only requests wrote nothing: no fsync to pay for.
        if (fsync && unsynced) {
            unsynced = false;
            try {
                channel.force(false);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return true;
        }
        return false;
    }

    long segmentBytes() {
        return segmentBytes;
    }

    /** Deletes the segments whose epochs all end at or before block {@code persisted} (kept in the ledger). */
    void deleteUpTo(long persisted) {
        while (segments.size() > 1 && segments.get(1).epochBase() >= 0 && segments.get(1).epochBase() <= persisted + 1) {
            try {
                Files.deleteIfExists(segments.remove(0).path());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Closes the file without writing what is buffered (what a crash would leave). */
    void abandon() {
        buffer.clear();
        try {
            if (channel != null) {
                channel.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            if (channel != null) {
                flush();
                channel.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
