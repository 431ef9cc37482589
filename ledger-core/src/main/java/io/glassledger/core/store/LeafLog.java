package io.glassledger.core.store;

import io.glassledger.verify.codec.ByteWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The current version of every leaf of a tree, each a record in an append-only {@link ValueLog} found by the
 * locator this log keeps in memory for its leaf number: the leaf level of the planned storage (ARCHITECTURE.md,
 * "Item 3 measured"), where a leaf update is one positional read and one append, not a rewrite in an LSM.
 *
 * <p><b>Records</b> (FORMAT.md §19.3). Each is a value of the value log: {@code u8 kind ‖ u32 leaf ‖ u64 block ‖
 * bytes}, kind 1 a leaf's new version (the bytes its owner encodes), kind 2 the leaf's removal (no bytes). The
 * newest record of a leaf number is its current version; a number may be reused after a removal.
 *
 * <p><b>Writing, and the block rule.</b> The owner writes a block's records ({@link #put}, {@link #remove}) with
 * that block's number, blocks in increasing order, then {@link #sync()}s, then commits the block in its own durable
 * state, and only then writes the next block. {@link #open}{@code (dir, persisted)} replays every record oldest
 * first and <em>cuts the log back</em> to just before the first record of block {@code persisted + 1} (a block whose
 * sync came before a crash, its commit not): so the log holds exactly the leaves of the owner's persisted block,
 * whatever the crash. A record of any later block is refused: the log holds no history to go back to, collection
 * having deleted the versions it replaced. {@link #collect} runs between blocks only, never while a block is half
 * written.
 *
 * <p><b>Collecting dead versions</b>, oldest segment first (a circular log, like QMDB's twigs' log, not the greedy
 * cleaner of a log-structured file system): while live bytes are under the asked share of the log, the oldest
 * sealed segment's records that are still current are appended again unchanged (block included), synced, and the
 * segment deleted. A removal record is never copied: every older record of its leaf is in an older segment, deleted
 * already. A crash after the copies and before the delete leaves two identical records, the newer of which wins.
 *
 * <p><b>Checkpoints.</b> {@link #checkpoint} writes every leaf's locator to a file beside the segments
 * ({@link LeafLogCheckpoint}); an open then loads it and replays only the records after it, so that opening a log of
 * years reads the locators and one block interval's records rather than every segment. The log stays the truth: a
 * checkpoint that is damaged, of a block after the owner's, or naming a place the log does not have is deleted and
 * the whole log replayed ({@link Recovery#checkpointIgnored()} says why).
 *
 * <p><b>Memory</b>: two {@code long}s a leaf number (its locator).
 *
 * <p><b>Threads.</b> Writes and collection are serialised; {@link #get} runs concurrently with them and with other
 * reads, and sees every record put before it, synced or not.
 */
public final class LeafLog implements AutoCloseable {
    static final int LEAF = 1;
    static final int REMOVED = 2;
    static final int HEADER = 1 + 4 + 8;
    /** The checkpoint's file name in the log's directory ({@link #checkpoint}). */
    public static final String CHECKPOINT_FILE = LeafLogCheckpoint.FILE;
    /** Records larger than a value of the value log, less this header, are refused. */
    public static final int MAX_RECORD_BYTES = ValueLog.MAX_VALUE_BYTES - HEADER;

    /**
     * What {@link #open} found and did.
     *
     * @param records          records replayed (current or not), after the checkpoint if one was used
     * @param leaves           leaves current after the replay
     * @param cutRecords       records of blocks after the persisted one, cut off
     * @param checkpointBlock  the block of the checkpoint the replay started from; -1: the whole log was replayed
     * @param checkpointIgnored why a checkpoint found was not used (and was deleted); null: none was ignored
     * @param log              what the value log's own recovery did
     */
    public record Recovery(long records, long leaves, long cutRecords, long checkpointBlock,
                           String checkpointIgnored, ValueLog.Recovery log) {
    }

    /**
     * What one {@link #collect} did.
     *
     * @param segments segments deleted
     * @param copied   records still current, appended again
     * @param bytes    bytes appended by those copies (frames included)
     */
    public record Collected(long segments, long copied, long bytes) {
    }

    private final ValueLog log;
    private Recovery recovery;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    /** A leaf number's locator: its segment (0: no current version) and {@code offset << 32 | length}. */
    private long[] segmentOf = new long[1024];
    private long[] placeOf = new long[1024];
    private long liveBytes;
    private long leaves;
    private long lastBlock;
    private long copiedBytes;
    private long deletedBytes;

    private LeafLog(ValueLog log, long persisted) {
        this.log = log;
        this.lastBlock = persisted;
    }

    /**
     * Opens the leaf log in {@code dir}, replays it, and cuts it back to the owner's persisted block.
     *
     * @param persisted the newest block the owner's durable state holds: records of later blocks are cut off
     * @throws ValueLogCorruptedException damage a crash cannot leave, or a record of the persisted history after
     *                                    one of a later block (the log was not written by the block rule)
     */
    public static LeafLog open(Path dir, long segmentBytes, long persisted) {
        ValueLog log = ValueLog.open(dir, segmentBytes);
        try {
            return replay(log, persisted);
        } catch (RuntimeException e) {
            log.close();
            throw e;
        }
    }

    private static LeafLog replay(ValueLog log, long persisted) {
        LeafLog ll = new LeafLog(log, persisted);
        List<Long> seqs = log.segments();
        long first = seqs.get(0);
        LeafLogCheckpoint.Loaded cp;
        String ignored = null;
        try {
            cp = LeafLogCheckpoint.read(log.dir());
            ignored = cp == null ? null : ll.unusable(cp, persisted, first, seqs.get(seqs.size() - 1));
        } catch (LeafLogCheckpoint.Unusable e) {
            cp = null;
            ignored = e.getMessage();
        }
        if (ignored != null) {
            cp = null;
            LeafLogCheckpoint.delete(log.dir());
        }
        ValueLog.Head from = new ValueLog.Head(first, 0);
        if (cp != null) {
            for (int leaf = 0; leaf < cp.segmentOf().length; leaf++) {
                if (cp.segmentOf()[leaf] != 0) {
                    long p = cp.placeOf()[leaf];
                    ll.place(leaf, new ValueLocator(cp.segmentOf()[leaf], (int) (p >>> 32), (int) p));
                }
            }
            from = cp.head().segment() < first ? from : cp.head();
        }
        long records = 0;
        ValueLocator cut = null;
        long cutRecords = 0;
        for (long seq : seqs) {
            if (seq < from.segment()) {
                continue;
            }
            for (ValueLog.Stored s : log.values(seq)) {
                if (seq == from.segment() && s.at().offset() < from.offset()) {
                    continue;
                }
                ByteBuffer b = ByteBuffer.wrap(s.value());
                if (s.value().length < HEADER || (b.get(0) != LEAF && b.get(0) != REMOVED)) {
                    throw new ValueLogCorruptedException(log.dir().resolve(ValueLog.name(seq)), s.at().offset(),
                            "not a leaf log record");
                }
                int leaf = b.getInt(1);
                long block = b.getLong(5);
                if (block > persisted + 1) {
                    throw new ValueLogCorruptedException(log.dir().resolve(ValueLog.name(seq)), s.at().offset(),
                            "a record of block " + block + ", and the owner's durable state is at block "
                                    + persisted + ": only the one block after it can have been written and not"
                                    + " committed, so the log is not this state's");
                }
                if (block > persisted) {
                    if (cut == null) {
                        cut = s.at();
                    }
                    cutRecords++;
                    continue;
                }
                if (cut != null) {
                    throw new ValueLogCorruptedException(log.dir().resolve(ValueLog.name(seq)), s.at().offset(),
                            "a record of block " + block + " follows one of a block after " + persisted
                                    + ": the log was not written in block order");
                }
                if (leaf < 0) {
                    throw new ValueLogCorruptedException(log.dir().resolve(ValueLog.name(seq)), s.at().offset(),
                            "leaf number " + leaf);
                }
                records++;
                if (b.get(0) == LEAF) {
                    ll.place(leaf, s.at());
                } else {
                    ll.unplace(leaf);
                }
            }
        }
        if (cp != null) {
            // A checkpoint's locator into a segment collected since names a record that was not current when its
            // segment went (collection would have copied it, and the copy is replayed above), so a later record
            // replaced or removed it; a removal is never copied, and may have gone with a collected segment.
            for (int leaf = 0; leaf < ll.segmentOf.length; leaf++) {
                if (ll.segmentOf[leaf] != 0 && ll.segmentOf[leaf] < first) {
                    ll.unplace(leaf);
                }
            }
        }
        if (cut != null) {
            log.truncate(cut);
        }
        ll.recovery = new Recovery(records, ll.leaves, cutRecords, cp == null ? -1 : cp.block(), ignored,
                log.recovery());
        return ll;
    }

    /** Why checkpoint {@code cp} cannot be this log's at the owner's block {@code persisted}; null if it can. */
    private String unusable(LeafLogCheckpoint.Loaded cp, long persisted, long first, long last) {
        if (cp.block() > persisted) {
            return "it is of block " + cp.block() + ", after the owner's block " + persisted;
        }
        if (cp.head().segment() > last) {
            return "its head is in segment " + cp.head().segment() + ", and the newest is " + last;
        }
        for (int leaf = 0; leaf < cp.segmentOf().length; leaf++) {
            long seg = cp.segmentOf()[leaf];
            if (seg < 0 || seg > cp.head().segment()) {
                return "leaf " + leaf + " is in segment " + seg + ", after its head's " + cp.head().segment();
            }
        }
        if (cp.head().segment() >= first) {
            try {
                long size = Files.size(log.dir().resolve(ValueLog.name(cp.head().segment())));
                if (cp.head().offset() > size) {
                    return "its head is at offset " + cp.head().offset() + " of segment " + cp.head().segment()
                            + ", which has " + size + " bytes";
                }
            } catch (IOException e) {
                throw new StoreException("reading the size of segment " + cp.head().segment(), e);
            }
        }
        return null;
    }

    /**
     * Writes a checkpoint of the current leaves' locators (FORMAT.md §19.3), durably, after syncing: the next
     * {@link #open} reads only the records after it. Between blocks, once the owner has committed {@code
     * committed}, the newest block written.
     *
     * @return the checkpoint's bytes
     * @throws IllegalArgumentException a block after {@code committed} was written
     */
    public long checkpoint(long committed) {
        lock.writeLock().lock();
        try {
            if (committed < lastBlock) {
                throw new IllegalArgumentException("block " + lastBlock + " was written, and a checkpoint is of"
                        + " a committed block: " + committed);
            }
            log.sync();
            int n = segmentOf.length;
            while (n > 0 && segmentOf[n - 1] == 0) {
                n--;
            }
            return LeafLogCheckpoint.write(log.dir(), committed, log.head(), segmentOf, placeOf, n);
        } finally {
            lock.writeLock().unlock();
        }
    }

    public Recovery recovery() {
        return recovery;
    }

    /**
     * Appends {@code bytes} as leaf {@code leaf}'s version at {@code block}, current at once, durable after the
     * next {@link #sync()}.
     *
     * @throws IllegalArgumentException a negative leaf number, a block before the last one written, or over
     *                                  {@link #MAX_RECORD_BYTES}
     */
    public void put(int leaf, long block, byte[] bytes) {
        if (bytes.length > MAX_RECORD_BYTES) {
            throw new IllegalArgumentException("a leaf of " + bytes.length + " bytes; at most " + MAX_RECORD_BYTES);
        }
        write(LEAF, leaf, block, bytes);
    }

    /** Records that leaf {@code leaf} has no current version from {@code block} on; nothing to do if it had none. */
    public void remove(int leaf, long block) {
        lock.readLock().lock();
        try {
            if (leaf >= 0 && leaf < segmentOf.length && segmentOf[leaf] == 0) {
                return;
            }
        } finally {
            lock.readLock().unlock();
        }
        write(REMOVED, leaf, block, new byte[0]);
    }

    private void write(int kind, int leaf, long block, byte[] bytes) {
        if (leaf < 0) {
            throw new IllegalArgumentException("leaf number " + leaf);
        }
        lock.writeLock().lock();
        try {
            if (block < lastBlock) {
                throw new IllegalArgumentException("block " + block + " after block " + lastBlock
                        + ": a leaf log is written in block order");
            }
            lastBlock = block;
            ValueLocator at = log.append(new ByteWriter(HEADER + bytes.length).u8(kind).u32(leaf).u64(block)
                    .raw(bytes).toByteArray());
            if (kind == LEAF) {
                place(leaf, at);
            } else {
                unplace(leaf);
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Leaf {@code leaf}'s current bytes, its record's checksum checked; null if it has none.
     *
     * @throws ValueLogCorruptedException the record there is damaged or names another leaf
     */
    public byte[] get(int leaf) {
        lock.readLock().lock();
        try {
            if (leaf < 0 || leaf >= segmentOf.length || segmentOf[leaf] == 0) {
                return null;
            }
            ValueLocator at = locator(leaf);
            byte[] r = log.read(at);
            ByteBuffer b = ByteBuffer.wrap(r);
            if (r.length < HEADER || b.get(0) != LEAF || b.getInt(1) != leaf) {
                throw new ValueLogCorruptedException(log.dir().resolve(ValueLog.name(at.segment())), at.offset(),
                        "the record there is not leaf " + leaf + "'s");
            }
            return Arrays.copyOfRange(r, HEADER, r.length);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Makes every record written so far durable. */
    public void sync() {
        log.sync();
    }

    /**
     * Collects the oldest segments while live bytes are under {@code liveShare} of the log, at most {@code
     * maxSegments} of them; the newest segment is never collected. Between blocks only (the block rule).
     */
    public Collected collect(double liveShare, int maxSegments) {
        if (!(liveShare > 0 && liveShare < 1)) {
            throw new IllegalArgumentException("live share " + liveShare + " is not between 0 and 1");
        }
        long segments = 0;
        long copied = 0;
        long bytes = 0;
        while (segments < maxSegments) {
            List<Long> seqs = log.segments();
            if (seqs.size() < 2 || liveBytes() >= liveShare * log.sizeBytes()) {
                break;
            }
            long oldest = seqs.get(0);
            long before = log.sizeBytes();
            lock.writeLock().lock();
            try {
                for (ValueLog.Stored s : log.values(oldest)) {
                    int leaf = ByteBuffer.wrap(s.value()).getInt(1);
                    if (s.value()[0] == LEAF && leaf < segmentOf.length && s.at().equals(locatorOrNull(leaf))) {
                        place(leaf, log.append(s.value()));
                        copied++;
                    }
                }
                log.sync();
                bytes += log.sizeBytes() - before;
                long whole = log.sizeBytes();
                log.deleteOldest();
                deletedBytes += whole - log.sizeBytes();
                segments++;
            } finally {
                lock.writeLock().unlock();
            }
        }
        copiedBytes += bytes;
        return new Collected(segments, copied, bytes);
    }

    private ValueLocator locatorOrNull(int leaf) {
        return segmentOf[leaf] == 0 ? null : locator(leaf);
    }

    private ValueLocator locator(int leaf) {
        long p = placeOf[leaf];
        return new ValueLocator(segmentOf[leaf], (int) (p >>> 32), (int) p);
    }

    private void place(int leaf, ValueLocator at) {
        if (leaf >= segmentOf.length) {
            int n = Math.max(leaf + 1, segmentOf.length * 2);
            segmentOf = Arrays.copyOf(segmentOf, n);
            placeOf = Arrays.copyOf(placeOf, n);
        }
        unplace(leaf);
        segmentOf[leaf] = at.segment();
        placeOf[leaf] = ((long) at.offset() << 32) | (at.length() & 0xFFFFFFFFL);
        long frame = FrameScan.HEADER_BYTES + at.length();
        liveBytes += frame;
        leaves++;
    }

    private void unplace(int leaf) {
        if (leaf >= segmentOf.length || segmentOf[leaf] == 0) {
            return;
        }
        long frame = FrameScan.HEADER_BYTES + (int) placeOf[leaf];
        liveBytes -= frame;
        leaves--;
        segmentOf[leaf] = 0;
        placeOf[leaf] = 0;
    }

    /** Bytes of the current records (frames included). */
    public long liveBytes() {
        lock.readLock().lock();
        try {
            return liveBytes;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** The numbers of the leaves with a current version, in increasing order. */
    public int[] numbers() {
        lock.readLock().lock();
        try {
            int[] out = new int[(int) leaves];
            int k = 0;
            for (int i = 0; i < segmentOf.length && k < out.length; i++) {
                if (segmentOf[i] != 0) {
                    out[k++] = i;
                }
            }
            return out;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Leaves with a current version. */
    public long leaves() {
        lock.readLock().lock();
        try {
            return leaves;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Bytes of every segment. */
    public long sizeBytes() {
        return log.sizeBytes();
    }

    /** Bytes appended by {@link #collect} since this log was opened. */
    public long copiedBytes() {
        lock.readLock().lock();
        try {
            return copiedBytes;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Bytes of the segments {@link #collect} deleted since this log was opened. */
    public long deletedBytes() {
        lock.readLock().lock();
        try {
            return deletedBytes;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Syncs, then closes the value log. */
    @Override
    public void close() {
        lock.writeLock().lock();
        try {
            log.close();
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Closes without writing what is buffered: what a crash leaves (for tests). */
    void abandon() {
        log.abandon();
    }
}
