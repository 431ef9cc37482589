package io.glassledger.core.store;

import io.glassledger.verify.LedgerException;
import io.glassledger.verify.hash.Hash;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.HashSkipListMemTableConfig;
import org.rocksdb.LRUCache;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * A {@link NodeStore} in RocksDB. Column families:
 * <ul>
 *   <li>{@code default}: metadata, UTF-8 name → bytes.</li>
 *   <li>{@code nodes}: node hash (32 bytes) → node record: the full encoding or a delta against an older node
 *       ({@link io.glassledger.core.postree.Node#record(boolean)}). A key may be rewritten only with its full
 *       encoding; no compression (hashes and values are high-entropy), bloom filters for point lookups.</li>
 *   <li>{@code blocks}: u64 big-endian block number → block record ({@link io.glassledger.verify.block.Block}).</li>
 *   <li>{@code upper}: u8 level || u64 big-endian index → 32-byte hash of that complete subtree of the upper tree.</li>
 *   <li>{@code txs}: u64 big-endian block number → that block's transactions record (FORMAT.md §14.3), LZ4.</li>
 * </ul>
 *
 * <p>Crash behaviour: each {@link #write} is one {@link WriteBatch} through RocksDB's write-ahead log, so after a
 * crash a batch is entirely present or entirely absent. With {@code sync} (the default) the WAL is fsynced before
 * write returns; without it, a process crash loses nothing but a machine crash may lose the latest batches.
 * Single-writer: the ledger serialises appends.
 *
 * <p>Native handles: every read and write holds a shared lock and {@link #close} the exclusive one, so no call ever
 * reaches a closed RocksDB handle (which would be a use after free in native code); a call after close throws
 * {@link StoreClosedException}. Every native object made by the constructor is released if opening fails.
 *
 * <p>Failures: a RocksDB error on a read or write is a {@link StoreException}. RocksDB makes some write errors
 * sticky (a failed flush puts the database in read-only mode until it is reopened; RocksJava 9.10 has no
 * {@code resume}), so a caller that retries must be ready to give up and restart the process.
 */
public final class RocksDbNodeStore implements NodeStore {
    static {
        RocksDB.loadLibrary();
    }

    private final Path dir;
    private final RocksDB db;
    private final LRUCache cache;
    private final DBOptions dbOptions;
    private final List<ColumnFamilyHandle> handles = new ArrayList<>();
    private final ColumnFamilyHandle metaCf;
    private final ColumnFamilyHandle nodesCf;
    private final ColumnFamilyHandle blocksCf;
    private final ColumnFamilyHandle upperCf;
    private final ColumnFamilyHandle txsCf;
    private final WriteOptions writeOptions;
    private final List<AutoCloseable> natives = new ArrayList<>();
    private final java.util.concurrent.locks.ReentrantReadWriteLock lock =
            new java.util.concurrent.locks.ReentrantReadWriteLock();
    private boolean closed;
    private volatile long blockCount;

    /** Bound on the write-ahead log files kept, in bytes (RocksDB's {@code max_total_wal_size}). */
    static final long MAX_TOTAL_WAL_BYTES = 64L << 20;

    public RocksDbNodeStore(Path dir) {
        this(dir, true, 256L << 20);
    }

    /**
     * @param sync       fsync the write-ahead log on every write
     * @param cacheBytes RocksDB block cache size
     */
    public RocksDbNodeStore(Path dir, boolean sync, long cacheBytes) {
        this.dir = dir;
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        RocksDB opened = null;
        try {
            cache = own(new LRUCache(cacheBytes));
            dbOptions = own(new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)
                    .setMaxBackgroundJobs(2).setBytesPerSync(1 << 20)
                    .setAllowConcurrentMemtableWrite(false)
                    // A log file is kept until every column family with data in it has flushed. The small ones
                    // (blocks, upper, meta) fill their memtables slowly, and with RocksDB's default bound (four
                    // times all the memtables: 2.5 GB here) a running server kept about 2 GB of old logs, more
                    // than its SST files. Past this bound the column families holding the oldest log are flushed.
                    .setMaxTotalWalSize(MAX_TOTAL_WAL_BYTES));
            List<ColumnFamilyDescriptor> cfs = List.of(
                    new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, options(CompressionType.LZ4_COMPRESSION)),
                    new ColumnFamilyDescriptor(bytes("nodes"), hashKeyed(options(CompressionType.NO_COMPRESSION))),
                    new ColumnFamilyDescriptor(bytes("blocks"), options(CompressionType.LZ4_COMPRESSION)),
                    new ColumnFamilyDescriptor(bytes("upper"), options(CompressionType.NO_COMPRESSION)),
                    new ColumnFamilyDescriptor(bytes("txs"), options(CompressionType.LZ4_COMPRESSION)));
            opened = RocksDB.open(dbOptions, dir.toString(), cfs, handles);
            db = opened;
            metaCf = handles.get(0);
            nodesCf = handles.get(1);
            blocksCf = handles.get(2);
            upperCf = handles.get(3);
            txsCf = handles.get(4);
            writeOptions = own(new WriteOptions().setSync(sync));
            try (RocksIterator it = db.newIterator(blocksCf)) {
                it.seekToLast();
                blockCount = it.isValid() ? decodeU64(it.key()) + 1 : 0;
            }
        } catch (RocksDBException | RuntimeException e) {
            // Column family handles and the database first, then the options they were made with.
            handles.forEach(ColumnFamilyHandle::close);
            if (opened != null) {
                opened.close();
            }
            releaseNatives();
            if (e instanceof RocksDBException r) {
                throw new LedgerException("cannot open RocksDB at " + dir + ": " + r.getMessage(), r);
            }
            throw (RuntimeException) e;
        }
    }

    private <T extends AutoCloseable> T own(T nativeObject) {
        natives.add(nativeObject);
        return nativeObject;
    }

    /** Closes the options, filters and cache in the reverse order of their making. */
    private void releaseNatives() {
        for (int i = natives.size() - 1; i >= 0; i--) {
            try {
                natives.get(i).close();
            } catch (Exception ignored) {
                // RocksJava's close does not throw; the interface only allows it
            }
        }
        natives.clear();
    }

    private ColumnFamilyOptions options(CompressionType compression) {
        BlockBasedTableConfig table = new BlockBasedTableConfig().setBlockCache(cache)
                .setFilterPolicy(own(new BloomFilter(10, false))).setBlockSize(16 * 1024)
                .setCacheIndexAndFilterBlocks(true).setPinL0FilterAndIndexBlocksInCache(true);
        ColumnFamilyOptions o = new ColumnFamilyOptions().setCompressionType(compression)
                .setTableFormatConfig(table).setWriteBufferSize(64L << 20).setLevelCompactionDynamicLevelBytes(true);
        return own(o);
    }

    /**
     * Node keys are hashes, only ever read by exact key: a hashed memtable (buckets by the first 8 bytes, each a
     * small skip list) inserts a block's ~1,500 records without walking one large skip list per record.
     */
    private static ColumnFamilyOptions hashKeyed(ColumnFamilyOptions o) {
        return o.useFixedLengthPrefixExtractor(8).setMemTableConfig(new HashSkipListMemTableConfig()
                .setBucketCount(1 << 20));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] u64(long v) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (v >>> (56 - 8 * i));
        }
        return b;
    }

    private static long decodeU64(byte[] b) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[i] & 0xff);
        }
        return v;
    }

    private static byte[] upperKey(int level, long index) {
        byte[] k = new byte[9];
        k[0] = (byte) level;
        System.arraycopy(u64(index), 0, k, 1, 8);
        return k;
    }

    private byte[] get(ColumnFamilyHandle cf, byte[] key) {
        lock.readLock().lock();
        try {
            ensureOpen();
            return db.get(cf, key);
        } catch (RocksDBException e) {
            throw new StoreException("RocksDB read failed: " + e.getMessage(), e);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Call with the lock held. */
    private void ensureOpen() {
        if (closed) {
            throw new StoreClosedException(dir);
        }
    }

    @Override
    public byte[] node(Hash hash) {
        return get(nodesCf, hash.unsafeArray());
    }

    @Override
    public byte[] block(long number) {
        return number < 0 ? null : get(blocksCf, u64(number));
    }

    @Override
    public byte[] blockTransactions(long number) {
        return number < 0 ? null : get(txsCf, u64(number));
    }

    @Override
    public Hash upper(int level, long index) {
        byte[] v = get(upperCf, upperKey(level, index));
        return v == null ? null : Hash.of(v);
    }

    @Override
    public byte[] meta(String key) {
        return get(metaCf, bytes(key));
    }

    @Override
    public long blockCount() {
        return blockCount;
    }

    @Override
    public synchronized void write(StoreBatch batch) {
        long next = blockCount;
        for (long n : batch.blocks.keySet()) {
            if (n != next++) {
                throw new IllegalStateException("blocks must be appended in order: expected " + (next - 1) + ", got " + n);
            }
        }
        lock.readLock().lock();
        try (WriteBatch wb = new WriteBatch()) {
            ensureOpen();
            for (var e : batch.nodes.entrySet()) {
                wb.put(nodesCf, e.getKey().unsafeArray(), e.getValue());
            }
            for (var e : batch.upper.entrySet()) {
                wb.put(upperCf, upperKey(e.getKey().level(), e.getKey().index()), e.getValue().unsafeArray());
            }
            for (var e : batch.meta.entrySet()) {
                wb.put(metaCf, bytes(e.getKey()), e.getValue());
            }
            for (var e : batch.blockTxs.entrySet()) {
                wb.put(txsCf, u64(e.getKey()), e.getValue());
            }
            for (var e : batch.blocks.entrySet()) {
                wb.put(blocksCf, u64(e.getKey()), e.getValue());
            }
            db.write(writeOptions, wb);
            blockCount = next;
        } catch (RocksDBException e) {
            throw new StoreException("RocksDB write failed: " + e.getMessage(), e);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Flushes memtables and compacts, so that {@link #sizeBytes()} reflects steady-state SST size. */
    public void compact() {
        lock.readLock().lock();
        try (var flush = new org.rocksdb.FlushOptions().setWaitForFlush(true)) {
            ensureOpen();
            for (ColumnFamilyHandle h : handles) {
                db.flush(flush, h);
                db.compactRange(h);
            }
        } catch (RocksDBException e) {
            throw new LedgerException("RocksDB compaction failed: " + e.getMessage(), e);
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public long sizeBytes() {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }


    /**
     * A consistent copy of the store in {@code dir} (which must not exist), made of hard links to its immutable
     * files where the file system allows (RocksDB's checkpoint): a replicated shard's snapshot.
     */
    public void checkpoint(java.nio.file.Path dir) {
        try (org.rocksdb.Checkpoint c = org.rocksdb.Checkpoint.create(db)) {
            c.createCheckpoint(dir.toString());
        } catch (org.rocksdb.RocksDBException e) {
            throw new StoreException("checkpoint to " + dir + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        lock.writeLock().lock();  // waits for the reads and writes in flight; later ones see closed
        try {
            if (closed) {
                return;
            }
            closed = true;
            handles.forEach(ColumnFamilyHandle::close);
            db.close();
            releaseNatives();
        } finally {
            lock.writeLock().unlock();
        }
    }
}
