package io.glassledger.core.txn;

import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.core.store.FrameScan;
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
 * {@code u32 length || u32 crc32c || u8 type || payload} (the {@link FrameScan} format, which the value log shares).
 * Each segment opens with a header naming the first block number of the epoch open at its start, followed by the
 * transactions then prepared, so segments before it can be deleted once their epochs are in the ledger.
 *
 * <p>Not thread-safe: the engine's sequencer thread is its only writer. Every batch written ends with a
 * {@link #BATCH_END} frame. At open, damage in the last segment with no valid frame after it (a crash mid-write) is
 * cut off; any other damage throws {@link WalCorruptedException}, and {@link WalRepair} is the way past it.
 */
final class Wal implements AutoCloseable {
    static final int HEADER = 0;
    static final int COMMIT = 1;
    static final int PREPARE = 2;
    static final int DECIDE_COMMIT = 3;
    static final int DECIDE_ABORT = 4;
    static final int SEAL = 5;
    static final int OUTCOME = 6;
    /**
     * Ends every batch that {@link #flush()} writes (empty payload), so that an acknowledged record is always
     * followed by a valid frame: damage to it is then never mistaken for a torn tail. Not passed to the replay.
     */
    static final int BATCH_END = 7;
    /**
     * A replicated shard's WAL only (FORMAT.md §16): {@code u64 term || u64 index} of the last log entry whose records
     * precede it. Replay stops at the last one: records after it belong to an entry not wholly written.
     */
    static final int APPLIED = 8;
    /**
     * A replicated shard's change that is not a transaction (FORMAT.md §15.5), opaque to the engine and applied by its
     * {@link TxnEngine.Extension}: a client key's registration.
     */
    static final int EXTENSION = 9;
    static final int MAX_TYPE = EXTENSION;
    static final int MAX_RECORD = SignedTransaction.MAX_RECORD_BYTES + 16;
    static final FrameScan.Rules RULES = new FrameScan.Rules(MAX_RECORD, MAX_TYPE);
    private static final byte[] MAGIC = {'G', 'L', 'W', 'A', 'L', '1'};
    private static final byte[] NO_BYTES = {};

    record Record(int type, byte[] payload) {
    }

    record Segment(long seq, Path path, long epochBase, List<Record> records) {
    }

    private final Path dir;
    private final boolean fsync;
    private final List<Segment> segments = new ArrayList<>();
    private FileChannel channel;
    private ByteBuffer buffer = ByteBuffer.allocate(1 << 20);
    private final CRC32C crc = new CRC32C();
    private long segmentBytes;
    private boolean unsynced;
    /** Records appended since the last {@link #BATCH_END}. */
    private boolean unmarked;

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

    /**
     * Reads a segment. Damage is a torn tail only in the last segment and only if no valid frame follows it (a crash
     * mid-write leaves nothing valid after the tear, since a batch is written only once the previous one is durable);
     * the tail is then cut off, durably. Anything else throws {@link WalCorruptedException}: the records after the
     * damage may have been acknowledged.
     */
    private static Segment read(Path p, boolean last) throws IOException {
        String name = p.getFileName().toString();
        long seq = Long.parseLong(name.substring(4, 20));
        FrameScan.Result r = FrameScan.scan(p, Wal.RULES);
        if (r.damaged()) {
            if (!last || r.nextValid() >= 0) {
                throw new WalCorruptedException(p, r.stop(), r.damage() + (r.nextValid() >= 0
                        ? ", and a valid frame follows at offset " + r.nextValid()
                        : ", in a segment that is not the last"));
            }
            if (r.frames().isEmpty()) {
                // Crashed while creating the segment: no frame of it is whole, so nothing in it was acknowledged.
                Files.delete(p);
                return new Segment(seq, p, -1, List.of());
            }
            try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
                ch.truncate(r.stop());
                ch.force(true);
            }
        }
        if (r.frames().isEmpty()) {
            if (!last) {
                throw new WalCorruptedException(p, 0, "the segment is empty, and it is not the last");
            }
            Files.delete(p);  // created, then the crash: same as above
            return new Segment(seq, p, -1, List.of());
        }
        FrameScan.Frame h = r.frames().get(0);
        long epochBase = parseHeader(p, h.type(), h.payload());
        List<Record> records = new ArrayList<>();
        for (FrameScan.Frame f : r.frames().subList(1, r.frames().size())) {
            if (f.type() == HEADER) {
                throw new WalCorruptedException(p, f.offset(), "a second segment header");
            }
            if (f.type() != BATCH_END) {
                records.add(new Record(f.type(), f.payload()));
            }
        }
        return new Segment(seq, p, epochBase, records);
    }

    private static long parseHeader(Path p, int type, byte[] payload) {
        if (type != HEADER || payload.length != MAGIC.length + 8) {
            throw new WalCorruptedException(p, 0, "the segment does not start with a header");
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (payload[i] != MAGIC[i]) {
                throw new WalCorruptedException(p, 0, "the segment header is not GlassLedger's");
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
        startSegment(epochBase, preparedRecords, outcomeRecords, null);
    }

    /**
     * {@link #startSegment(long, List, List)} also carrying a replicated shard's {@link #APPLIED} record (null: none),
     * so that a segment names the log position it continues from even before its first entry.
     */
    void startSegment(long epochBase, List<byte[]> preparedRecords, List<byte[]> outcomeRecords, byte[] applied) {
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
            if (applied != null) {
                append(APPLIED, applied);
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
        FrameScan.put(buffer, type, payload, crc);
        segmentBytes += need;
        unsynced = true;
        unmarked = type != BATCH_END;
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
        if (unmarked) {
            append(BATCH_END, NO_BYTES);
            unmarked = false;
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

    /** Writes what is buffered and forces the file to stable storage, whatever the fsync setting. */
    void force() {
        flush();
        try {
            if (channel != null) {
                channel.force(false);
            }
            forceDirectory();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        unsynced = false;
    }

    /** The directory of the segments. */
    Path dir() {
        return dir;
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
