package io.glassledger.core.txn;

import io.glassledger.core.postree.TreeParams;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A shard engine's settings.
 *
 * @param dir                  data directory: {@code ledger/} (RocksDB) and {@code wal/}
 * @param persistInterval      how often the persisting thread forms blocks (GlassDB's persist interval)
 * @param fsync                make the WAL and ledger durable (off only for experiments)
 * @param workers              threads for signature checks and proofs
 * @param queueCapacity        bound of the request queues; a full queue rejects at once with OVERLOADED
 * @param replayWindow         transaction ids must carry a clock reading within this of the shard's clock
 * @param maxTxBytes           largest signed transaction accepted
 * @param walSegmentBytes      the WAL starts a new segment at the first seal past this size
 * @param clock                milliseconds since the epoch
 * @param verifySignatures     check each transaction's Ed25519 signature; off only to measure what checking costs
 * @param maxUnpersistedWrites committed writes not yet in the ledger beyond which new transactions are refused with
 *                             OVERLOADED, so that a persisting thread that falls behind slows commits down instead
 *                             of letting the committed-data map, the WAL and the next epoch grow without bound
 * @param batching             GlassDB's transaction batching: a block holds the non-conflicting writes of many
 *                             transactions; off, every transaction gets a block of its own (an ablation for the
 *                             benchmark; keep it unchanged across a restart, since WAL replay re-forms the open epoch)
 * @param storeRetryWindow     how long the persisting thread retries a block write that failed with a
 *                             {@link io.glassledger.core.store.StoreException} before the engine declares itself
 *                             failed (zero: fail at the first error); see {@link TxnEngine#health()}
 */
public record EngineConfig(Path dir, int shard, Duration persistInterval, boolean fsync, int workers,
                           int queueCapacity, long ledgerCacheBytes, TreeParams treeParams, Duration replayWindow,
                           int maxTxBytes, long walSegmentBytes, LongSupplier clock,
                           boolean verifySignatures, long maxUnpersistedWrites, boolean batching,
                           Duration storeRetryWindow) {
    public EngineConfig {
        if (shard < 0 || workers < 1 || queueCapacity < 1 || maxTxBytes < 128 || walSegmentBytes < 1
                || persistInterval.isNegative() || persistInterval.isZero() || replayWindow.isNegative()
                || maxUnpersistedWrites < 1 || storeRetryWindow.isNegative()) {
            throw new IllegalArgumentException("bad engine configuration");
        }
    }

    /** Where the shard's ledger store (RocksDB) lives, inside {@link #dir()}. */
    public Path ledgerDir() {
        return dir.resolve("ledger");
    }

    /**
     * Refuses a shard directory whose ledger was written in another format than this release's (FORMAT.md §18),
     * before anything else opens it: a replicated shard would otherwise take the unreadable directory for a damaged
     * one and set it aside. Nothing to check when the directory holds no ledger yet.
     *
     * @throws io.glassledger.core.ledger.UnsupportedFormatException naming the format found
     */
    public void checkDataFormat() {
        if (java.nio.file.Files.isDirectory(ledgerDir())) {
            try (io.glassledger.core.store.RocksDbNodeStore s = new io.glassledger.core.store.RocksDbNodeStore(
                    ledgerDir())) {
                io.glassledger.core.ledger.Ledger.checkFormat(s);
            }
        }
    }

    public static EngineConfig defaults(Path dir) {
        return new EngineConfig(dir, 0, Duration.ofMillis(100), true, Math.max(2, Runtime.getRuntime()
                .availableProcessors()), 10_000, 512L << 20, TreeParams.DEFAULT, Duration.ofMinutes(2), 1 << 20,
                64L << 20, System::currentTimeMillis, true, 20_000, true, Duration.ofSeconds(30));
    }

    public EngineConfig withShard(int s) {
        return new EngineConfig(dir, s, persistInterval, fsync, workers, queueCapacity, ledgerCacheBytes, treeParams,
                replayWindow, maxTxBytes, walSegmentBytes, clock, verifySignatures, maxUnpersistedWrites,
                batching, storeRetryWindow);
    }

    public EngineConfig withPersistInterval(Duration d) {
        return new EngineConfig(dir, shard, d, fsync, workers, queueCapacity, ledgerCacheBytes, treeParams,
                replayWindow, maxTxBytes, walSegmentBytes, clock, verifySignatures, maxUnpersistedWrites,
                batching, storeRetryWindow);
    }

    public EngineConfig withFsync(boolean f) {
        return new EngineConfig(dir, shard, persistInterval, f, workers, queueCapacity, ledgerCacheBytes, treeParams,
                replayWindow, maxTxBytes, walSegmentBytes, clock, verifySignatures, maxUnpersistedWrites,
                batching, storeRetryWindow);
    }

    public EngineConfig withQueueCapacity(int q) {
        return new EngineConfig(dir, shard, persistInterval, fsync, workers, q, ledgerCacheBytes, treeParams,
                replayWindow, maxTxBytes, walSegmentBytes, clock, verifySignatures, maxUnpersistedWrites,
                batching, storeRetryWindow);
    }

    public EngineConfig withWalSegmentBytes(long b) {
        return new EngineConfig(dir, shard, persistInterval, fsync, workers, queueCapacity, ledgerCacheBytes,
                treeParams, replayWindow, maxTxBytes, b, clock, verifySignatures, maxUnpersistedWrites,
                batching, storeRetryWindow);
    }

    public EngineConfig withTreeParams(TreeParams p) {
        return new EngineConfig(dir, shard, persistInterval, fsync, workers, queueCapacity, ledgerCacheBytes, p,
                replayWindow, maxTxBytes, walSegmentBytes, clock, verifySignatures, maxUnpersistedWrites,
                batching, storeRetryWindow);
    }

    public EngineConfig withLedgerCacheBytes(long b) {
        return new EngineConfig(dir, shard, persistInterval, fsync, workers, queueCapacity, b, treeParams,
                replayWindow, maxTxBytes, walSegmentBytes, clock, verifySignatures, maxUnpersistedWrites,
                batching, storeRetryWindow);
    }

    public EngineConfig withWorkers(int w) {
        return new EngineConfig(dir, shard, persistInterval, fsync, w, queueCapacity, ledgerCacheBytes, treeParams,
                replayWindow, maxTxBytes, walSegmentBytes, clock, verifySignatures, maxUnpersistedWrites,
                batching, storeRetryWindow);
    }

    public EngineConfig withClock(LongSupplier c) {
        return new EngineConfig(dir, shard, persistInterval, fsync, workers, queueCapacity, ledgerCacheBytes,
                treeParams, replayWindow, maxTxBytes, walSegmentBytes, c, verifySignatures, maxUnpersistedWrites,
                batching, storeRetryWindow);
    }

    public EngineConfig withVerifySignatures(boolean v) {
        return new EngineConfig(dir, shard, persistInterval, fsync, workers, queueCapacity, ledgerCacheBytes,
                treeParams, replayWindow, maxTxBytes, walSegmentBytes, clock, v, maxUnpersistedWrites,
                batching, storeRetryWindow);
    }

    public EngineConfig withMaxTxBytes(int n) {
        return new EngineConfig(dir, shard, persistInterval, fsync, workers, queueCapacity, ledgerCacheBytes,
                treeParams, replayWindow, n, walSegmentBytes, clock, verifySignatures, maxUnpersistedWrites,
                batching, storeRetryWindow);
    }

    public EngineConfig withMaxUnpersistedWrites(long n) {
        return new EngineConfig(dir, shard, persistInterval, fsync, workers, queueCapacity, ledgerCacheBytes,
                treeParams, replayWindow, maxTxBytes, walSegmentBytes, clock, verifySignatures, n,
                batching, storeRetryWindow);
    }

    public EngineConfig withBatching(boolean b) {
        return new EngineConfig(dir, shard, persistInterval, fsync, workers, queueCapacity, ledgerCacheBytes,
                treeParams, replayWindow, maxTxBytes, walSegmentBytes, clock, verifySignatures, maxUnpersistedWrites,
                b, storeRetryWindow);
    }

    public EngineConfig withStoreRetryWindow(Duration w) {
        return new EngineConfig(dir, shard, persistInterval, fsync, workers, queueCapacity, ledgerCacheBytes,
                treeParams, replayWindow, maxTxBytes, walSegmentBytes, clock, verifySignatures, maxUnpersistedWrites,
                batching, w);
    }
}
