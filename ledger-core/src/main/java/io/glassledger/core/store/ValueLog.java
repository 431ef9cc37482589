package io.glassledger.core.store;

import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.entry.Entry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32C;

/**
 * An append-only log of values, each stored once and read back by its {@link ValueLocator}: the value store of the
 * planned storage (ARCHITECTURE.md, "Storage that grows for years"), whose index rows hold a value's hash and its
 * locator instead of the value.
 *
 * <p><b>Files</b> (FORMAT.md §19). A directory of segments {@code vlog-<16-digit sequence>.seg}, numbered from 1
 * without a gap (an owner may delete the oldest, {@link #deleteOldest()}, so the first may be higher), each a
 * sequence of {@link FrameScan} frames:
 * <pre>
 * type 0  header  "GLVLOG1" ‖ u64 sequence          the first frame of every segment, and only there
 * type 1  value   the value's bytes (0..2^20)       a locator names this frame's offset and the value's length
 * type 2  sync    empty                             ends what one {@link #sync()} made durable
 * type 3  seal    u64 sequence ‖ u64 values         the last frame of every segment but the newest
 * </pre>
 * A segment is sealed and the next one started once the next value would take it past the segment size (a value
 * larger than that gets a segment of its own). Sealed segments are immutable.
 *
 * <p><b>Durability.</b> {@link #append} buffers; a value is durable once a later {@link #sync()} returns (a sync
 * frame, then {@code fsync}). A roll forces the sealed segment, then creates the next one and forces it and the
 * directory, so a sealed segment is always whole on disk before a newer one exists. Locators of values appended but
 * never synced must not be stored anywhere durable: a crash may take those values.
 *
 * <p><b>Recovery</b> at {@link #open}: every segment but the newest is checked by its header and its seal (two
 * reads, not a scan: years of segments open in milliseconds), and the newest is read whole. Damage in the newest
 * with no sync or seal frame after it is a torn tail (a crash mid-write, which only ever tears what no sync
 * acknowledged, since every sync ends with a sync frame) and is cut off, durably, with any value frames after it;
 * a newest segment without a whole header (a crash while it was created) is removed. Anything else throws
 * {@link ValueLogCorruptedException}: a gap in the numbers, a sealed segment without its seal, damage followed by a
 * sync or a seal frame, a frame after a seal. Each read checks its frame's checksum, so a damaged sealed segment is
 * found when its value is read.
 *
 * <p><b>Threads.</b> Appends, syncs and close are serialised on the log; reads run concurrently with them and with
 * each other (positional reads), and see every value appended before them, synced or not.
 */
public final class ValueLog implements AutoCloseable {
    public static final long DEFAULT_SEGMENT_BYTES = 64L << 20;
    public static final int MAX_VALUE_BYTES = Entry.MAX_VALUE_BYTES;
    static final int HEADER = 0;
    static final int VALUE = 1;
    static final int SYNC = 2;
    static final int SEAL = 3;
    static final FrameScan.Rules RULES = new FrameScan.Rules(1 + MAX_VALUE_BYTES, SEAL);
    static final byte[] MAGIC = {'G', 'L', 'V', 'L', 'O', 'G', '1'};
    static final int HEADER_FRAME = FrameScan.HEADER_BYTES + MAGIC.length + 8;
    static final int SEAL_FRAME = FrameScan.HEADER_BYTES + 16;
    private static final int MAX_OPEN_READERS = 256;
    private static final byte[] NO_BYTES = {};

    /**
     * What {@link #open} found and did.
     *
     * @param segments       the segments found, the newest included
     * @param values         the values in the newest segment
     * @param tornBytes      bytes cut off the newest segment's tail (0: none)
     * @param removedSegment the sequence number of a newest segment removed because its header was not whole (0:
     *                       none)
     * @param startedSegment the sequence number of a segment started because the newest was sealed, the crash having
     *                       come before its successor's header was whole (0: none)
     */
    public record Recovery(long segments, long values, long tornBytes, long removedSegment, long startedSegment) {
    }

    private final Path dir;
    private final long segmentBytes;
    private final Recovery recovery;
    private final Map<Long, FileChannel> readers = new ConcurrentHashMap<>();
    private final CRC32C crc = new CRC32C();
    private ByteBuffer buffer = ByteBuffer.allocate(1 << 20);
    private volatile boolean closed;
    private long firstSeq;
    private volatile long activeSeq;
    private FileChannel active;
    /**
     * The active segment's number and channel as one value, for readers outside the lock: read as two fields, a
     * reader could pair the old number with the next segment's channel while a roll is under way (and read a value
     * of the sealed segment at its offset in the new one: seen as "cut short" under CI's load).
     */
    private volatile Active current;
    /** Bytes of the active segment, buffered ones included. */
    private long activeBytes;
    /** Bytes of the active segment written to the file (readable by a positional read). */
    private volatile long activeWritten;
    private long activeValues;
    private long sealedBytes;
    private boolean unsynced;

    private ValueLog(Path dir, long segmentBytes, Recovery recovery) {
        this.dir = dir;
        this.segmentBytes = segmentBytes;
        this.recovery = recovery;
    }

    /** Opens the log in {@code dir} with 64 MiB segments, creating the directory and the first segment if needed. */
    public static ValueLog open(Path dir) {
        return open(dir, DEFAULT_SEGMENT_BYTES);
    }

    /** {@link #open(Path)} with segments of about {@code segmentBytes} (4 KiB to 1 GiB). */
    public static ValueLog open(Path dir, long segmentBytes) {
        if (segmentBytes < 4096 || segmentBytes > (1L << 30)) {
            throw new IllegalArgumentException("segment size " + segmentBytes + " is outside 4 KiB..1 GiB");
        }
        try {
            Files.createDirectories(dir);
            ValueLogRecovery.Plan plan = ValueLogRecovery.recover(dir);
            ValueLog log = new ValueLog(dir, segmentBytes, plan.recovery());
            log.firstSeq = plan.firstSeq();
            log.sealedBytes = plan.sealedBytes();
            if (plan.activeEnd() < 0) {
                log.createSegment(plan.activeSeq());
            } else {
                log.activeSeq = plan.activeSeq();
                log.active = FileChannel.open(dir.resolve(name(plan.activeSeq())), StandardOpenOption.READ,
                        StandardOpenOption.WRITE);
                log.current = new Active(log.activeSeq, log.active);
                log.active.position(plan.activeEnd());
                log.activeBytes = plan.activeEnd();
                log.activeWritten = plan.activeEnd();
                log.activeValues = plan.activeValues();
            }
            return log;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String name(long seq) {
        return String.format("vlog-%016d.seg", seq);
    }

    /** What {@link #open} found and did. */
    public Recovery recovery() {
        return recovery;
    }

    public Path dir() {
        return dir;
    }

    /**
     * Buffers a value and returns where it will be read; durable after the next {@link #sync()}, readable at once.
     *
     * @throws IllegalArgumentException over {@link #MAX_VALUE_BYTES}
     * @throws StoreClosedException     after {@link #close()}
     */
    public synchronized ValueLocator append(byte[] value) {
        if (value.length > MAX_VALUE_BYTES) {
            throw new IllegalArgumentException("a value of " + value.length + " bytes; at most " + MAX_VALUE_BYTES);
        }
        ensureOpen();
        int need = FrameScan.HEADER_BYTES + value.length;
        if (activeBytes > HEADER_FRAME && activeBytes + need + FrameScan.HEADER_BYTES + SEAL_FRAME > segmentBytes) {
            roll();
        }
        ValueLocator at = new ValueLocator(activeSeq, (int) activeBytes, value.length);
        frame(VALUE, value);
        activeValues++;
        unsynced = true;
        return at;
    }

    /** Makes every value appended so far durable: a sync frame, then {@code fsync}. Nothing to do: no I/O. */
    public synchronized void sync() {
        ensureOpen();
        if (!unsynced) {
            return;
        }
        frame(SYNC, NO_BYTES);
        writeAndForce();
    }

    private void writeAndForce() {
        writeBuffer();
        try {
            active.force(false);
        } catch (IOException e) {
            throw new StoreException("fsync of the value log in " + dir + " failed", e);
        }
        unsynced = false;
    }

    /**
     * The value at {@code at}, its frame's checksum checked.
     *
     * @throws ValueLogCorruptedException the frame is not a value of that length, or its checksum does not match
     * @throws IllegalArgumentException   the locator names a segment this log does not have
     */
    public byte[] read(ValueLocator at) {
        ensureOpen();
        long seq = at.segment();
        if (seq == activeSeq && at.end() > activeWritten) {
            synchronized (this) {
                if (seq == activeSeq) {
                    writeBuffer();
                }
            }
        }
        ByteBuffer b = ByteBuffer.allocate(FrameScan.HEADER_BYTES + at.length());
        for (int attempt = 0; ; attempt++) {
            FileChannel ch = channel(seq);
            try {
                b.clear();
                readFully(ch, b, at.offset());
                break;
            } catch (ClosedChannelException e) {
                // Evicted by another reader, or closed by an interrupt of another thread's read: open it again.
                readers.remove(seq, ch);
                if (attempt == 2 || Thread.currentThread().isInterrupted() || closed) {
                    throw closed ? new StoreClosedException(dir) : new StoreException("reading " + at, e);
                }
            } catch (IOException e) {
                throw new StoreException("reading " + at + " from the value log in " + dir, e);
            }
        }
        Path p = dir.resolve(name(seq));
        byte[] data = b.array();
        if (b.position() < data.length) {
            throw new ValueLogCorruptedException(p, at.offset(), "the value's frame is cut short by the end of the file");
        }
        String problem = FrameScan.problem(data, 0, new CRC32C(), RULES);
        if (problem == null && (b.getInt(0) != at.length() + 1 || data[8] != VALUE)) {
            problem = "the frame there is not a value of " + at.length() + " bytes";
        }
        if (problem != null) {
            throw new ValueLogCorruptedException(p, at.offset(), problem);
        }
        byte[] value = new byte[at.length()];
        System.arraycopy(data, FrameScan.HEADER_BYTES, value, 0, value.length);
        return value;
    }

    private record Active(long seq, FileChannel channel) {
    }

    private FileChannel channel(long seq) {
        Active a = current;
        if (a != null && a.seq() == seq) {
            return a.channel();
        }
        if (seq < firstSeq || seq > activeSeq) {
            throw new IllegalArgumentException("the value log in " + dir + " has no segment " + seq);
        }
        FileChannel ch = readers.get(seq);
        if (ch != null && ch.isOpen()) {
            return ch;
        }
        if (readers.size() >= MAX_OPEN_READERS) {
            Iterator<Map.Entry<Long, FileChannel>> it = readers.entrySet().iterator();
            if (it.hasNext()) {
                Map.Entry<Long, FileChannel> victim = it.next();
                it.remove();
                closeQuietly(victim.getValue());
            }
        }
        return readers.compute(seq, (k, old) -> {
            if (old != null && old.isOpen()) {
                return old;
            }
            try {
                return FileChannel.open(dir.resolve(name(seq)), StandardOpenOption.READ);
            } catch (IOException e) {
                throw new StoreException("opening segment " + seq + " of the value log in " + dir, e);
            }
        });
    }

    static void readFully(FileChannel ch, ByteBuffer b, long offset) throws IOException {
        long pos = offset;
        while (b.hasRemaining()) {
            int n = ch.read(b, pos);
            if (n < 0) {
                return;
            }
            pos += n;
        }
    }

    /** Bytes of every segment, buffered bytes included. */
    public synchronized long sizeBytes() {
        return sealedBytes + activeBytes;
    }

    /** The sequence numbers of the segments, oldest first. */
    public synchronized List<Long> segments() {
        List<Long> out = new ArrayList<>();
        for (long s = firstSeq; s <= activeSeq; s++) {
            out.add(s);
        }
        return out;
    }

    /** Where the next frame goes: the newest segment and its length in bytes, buffered bytes included. */
    public record Head(long segment, long offset) {
    }

    /** Where the next value will be appended (after a roll, if it does not fit): what a checkpoint names. */
    public synchronized Head head() {
        ensureOpen();
        return new Head(activeSeq, activeBytes);
    }

    /** A value as a log's owner replays or collects it: where it is, and its bytes. */
    public record Stored(ValueLocator at, byte[] value) {
    }

    /**
     * Every value of segment {@code seq}, in the order appended (the newest segment's included, buffered ones
     * written first), each frame's checksum checked: what an owner replays at open, or copies before
     * {@link #deleteOldest()}.
     *
     * @throws ValueLogCorruptedException the segment is damaged
     * @throws IllegalArgumentException   the log has no segment {@code seq}
     */
    public List<Stored> values(long seq) {
        synchronized (this) {
            ensureOpen();
            if (seq < firstSeq || seq > activeSeq) {
                throw new IllegalArgumentException("the value log in " + dir + " has no segment " + seq);
            }
            if (seq == activeSeq) {
                writeBuffer();
            }
        }
        Path p = dir.resolve(name(seq));
        try {
            FrameScan.Result r = FrameScan.scan(p, RULES);
            if (r.damaged()) {
                throw new ValueLogCorruptedException(p, r.stop(), r.damage());
            }
            List<Stored> out = new ArrayList<>();
            for (FrameScan.Frame f : r.frames()) {
                if (f.type() == VALUE) {
                    out.add(new Stored(new ValueLocator(seq, (int) f.offset(), f.payload().length), f.payload()));
                }
            }
            return out;
        } catch (IOException e) {
            throw new StoreException("reading segment " + seq + " of the value log in " + dir, e);
        }
    }

    /**
     * Deletes the oldest segment, durably (the file and the directory entry) before it returns: for an owner that
     * has copied, synced and recorded elsewhere every value of it still in use. Reads of its locators fail after.
     *
     * @throws IllegalStateException the oldest segment is the one appends go to
     */
    public synchronized void deleteOldest() {
        ensureOpen();
        if (firstSeq >= activeSeq) {
            throw new IllegalStateException("segment " + firstSeq + " of the value log in " + dir
                    + " is the one appends go to");
        }
        long seq = firstSeq;
        FileChannel ch = readers.remove(seq);
        if (ch != null) {
            closeQuietly(ch);
        }
        Path p = dir.resolve(name(seq));
        try {
            long size = Files.size(p);
            Files.delete(p);
            forceDirectory(dir);
            sealedBytes -= size;
            firstSeq = seq + 1;
        } catch (IOException e) {
            throw new StoreException("deleting segment " + seq + " of the value log in " + dir, e);
        }
    }

    /**
     * Cuts the log back to just before the value at {@code from}: that value and everything after it are gone,
     * durably, when this returns, and appends go on there (for an owner that wrote values its own durable state
     * never came to name, a crash having come in between). Newer segments are deleted newest first, so a crash
     * during a cut leaves a log {@link #open} accepts and a cut that can be made again.
     *
     * @throws IllegalArgumentException {@code from} is not the start of a value frame of this log
     */
    public synchronized void truncate(ValueLocator from) {
        ensureOpen();
        long seq = from.segment();
        if (seq < firstSeq || seq > activeSeq) {
            throw new IllegalArgumentException("the value log in " + dir + " has no segment " + seq);
        }
        writeBuffer();
        List<Stored> there = values(seq);
        long kept = 0;
        for (Stored v : there) {
            if (v.at().offset() == from.offset()) {
                break;
            }
            kept++;
        }
        if (kept == there.size()) {
            throw new IllegalArgumentException(from + " is not a value of the value log in " + dir);
        }
        try {
            for (long s = activeSeq; s > seq; s--) {
                FileChannel ch = s == activeSeq ? active : readers.remove(s);
                if (ch != null) {
                    closeQuietly(ch);
                }
                Files.delete(dir.resolve(name(s)));
                forceDirectory(dir);
            }
            FileChannel old = readers.remove(seq);
            if (old != null && old != active) {
                closeQuietly(old);
            }
            if (seq != activeSeq) {
                active = FileChannel.open(dir.resolve(name(seq)), StandardOpenOption.READ, StandardOpenOption.WRITE);
            }
            active.truncate(from.offset());
            active.position(from.offset());
            active.force(true);
            long sealed = 0;
            for (long s = firstSeq; s < seq; s++) {
                sealed += Files.size(dir.resolve(name(s)));
            }
            sealedBytes = sealed;
            activeSeq = seq;
            current = new Active(seq, active);
            activeBytes = from.offset();
            activeWritten = from.offset();
            activeValues = kept;
            unsynced = false;
        } catch (IOException e) {
            throw new StoreException("cutting the value log in " + dir + " back to " + from, e);
        }
    }

    private void roll() {
        ByteWriter seal = new ByteWriter(16).u64(activeSeq).u64(activeValues);
        if (unsynced) {
            frame(SYNC, NO_BYTES);
        }
        frame(SEAL, seal.toByteArray());
        writeAndForce();
        readers.put(activeSeq, active);  // sealed: read-only from now on, the same open file
        sealedBytes += activeBytes;
        createSegment(activeSeq + 1);
    }

    /** Creates segment {@code seq} with its header, durable (file and directory) before it returns. */
    private void createSegment(long seq) {
        Path p = dir.resolve(name(seq));
        try {
            FileChannel ch = FileChannel.open(p, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            active = ch;
            activeSeq = seq;
            current = new Active(seq, ch);
            activeBytes = 0;
            activeWritten = 0;
            activeValues = 0;
            frame(HEADER, new ByteWriter(MAGIC.length + 8).raw(MAGIC).u64(seq).toByteArray());
            writeBuffer();
            ch.force(true);
            forceDirectory(dir);
        } catch (IOException e) {
            throw new StoreException("creating segment " + seq + " of the value log in " + dir, e);
        }
    }

    private void frame(int type, byte[] payload) {
        int need = FrameScan.HEADER_BYTES + payload.length;
        if (buffer.remaining() < need) {
            writeBuffer();
            if (buffer.capacity() < need) {
                buffer = ByteBuffer.allocate(Math.max(need, buffer.capacity() * 2));
            }
        }
        FrameScan.put(buffer, type, payload, crc);
        activeBytes += need;
    }

    private void writeBuffer() {
        if (buffer.position() == 0) {
            return;
        }
        buffer.flip();
        try {
            while (buffer.hasRemaining()) {
                active.write(buffer);
            }
        } catch (IOException e) {
            throw new StoreException("writing the value log in " + dir, e);
        } finally {
            buffer.clear();
        }
        activeWritten = activeBytes;
    }

    static void forceDirectory(Path dir) throws IOException {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new StoreClosedException(dir);
        }
    }

    private static void closeQuietly(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // A read-only file: nothing to lose.
        }
    }

    /** Syncs what was appended, then closes every file. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        try {
            sync();
        } finally {
            closed = true;
            readers.values().forEach(ValueLog::closeQuietly);
            readers.clear();
            if (active != null) {
                closeQuietly(active);
            }
        }
    }

    /** Closes the files without writing what is buffered: what a crash leaves (for tests). */
    synchronized void abandon() {
        buffer.clear();
        closed = true;
        readers.values().forEach(ValueLog::closeQuietly);
        if (active != null) {
            closeQuietly(active);
        }
    }
}
