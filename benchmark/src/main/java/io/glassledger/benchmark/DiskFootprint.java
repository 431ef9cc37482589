package io.glassledger.benchmark;

/**
 * The {@code server_bytes_over_raw} measure of one cluster: the size of its servers' data directories
 * ({@link DataDirSize}) over the raw bytes written to them, counted by the client.
 *
 * <p><b>Raw bytes</b> are the key length plus the value length of every put of every commit the servers
 * acknowledged: the preload's and then every workload transaction's, warm-ups and windows alike. The ledger keeps
 * every version of a key, so each put is data it has to keep. A transaction refused (conflict, overload) adds
 * nothing; reads add nothing. The <b>live</b> raw bytes are those of the latest version of each key alone (keys ×
 * (key + value bytes)), what a store without history would keep.
 *
 * <p>The ratio is over the apparent size (the files' lengths); the allocated size is reported beside it. Not
 * thread-safe: the benchmark's main thread calls it while no load runs.
 */
final class DiskFootprint {
    private final int keys;
    private final long liveRawBytes;
    private final int preloadTxKeys;
    private long preloadRawBytes;
    private DataDirSize afterPreload;
    private long rawBytes;
    private long puts;
    private double workloadSeconds;

    /**
     * @param keys          keys preloaded, the workload's whole key space
     * @param liveRawBytes  key + value bytes of one version of every key
     * @param preloadTxKeys keys per preload transaction
     */
    DiskFootprint(int keys, long liveRawBytes, int preloadTxKeys) {
        this.keys = keys;
        this.liveRawBytes = liveRawBytes;
        this.preloadTxKeys = preloadTxKeys;
    }

    /** The preload committed {@code raw} bytes; {@code size}: the data directories right after it. */
    void preloaded(long raw, DataDirSize size) {
        preloadRawBytes = raw;
        rawBytes += raw;
        afterPreload = size;
    }

    /** A load (warm-up and window) committed {@code puts} puts of {@code raw} bytes in {@code seconds}. */
    void loaded(long raw, long puts, double seconds) {
        rawBytes += raw;
        this.puts += puts;
        workloadSeconds += seconds;
    }

    /** Raw bytes committed so far, preload included. */
    long rawBytes() {
        return rawBytes;
    }

    /** The result line for the data directories' size {@code now}, with everything loaded so far. */
    JsonLine line(String bench, DataDirSize now) {
        if (afterPreload == null) {
            throw new IllegalStateException("no preload recorded");
        }
        return JsonLine.of(bench, "server_bytes_over_raw", ratio(now.bytes(), rawBytes), "ratio")
                .with("disk_bytes", now.bytes()).with("raw_bytes", rawBytes)
                .with("allocated_bytes", bytesOrNull(now.allocatedBytes()))
                .with("allocated_over_raw", now.allocatedBytes() < 0 ? null : ratio(now.allocatedBytes(), rawBytes))
                .with("wal_bytes", now.walBytes()).with("ledger_bytes", now.ledgerBytes())
                .with("sst_bytes", now.sstBytes()).with("other_bytes", now.otherBytes()).with("files", now.files())
                .with("live_raw_bytes", liveRawBytes).with("over_live_raw", ratio(now.bytes(), liveRawBytes))
                .with("preload_disk_bytes", afterPreload.bytes()).with("preload_raw_bytes", preloadRawBytes)
                .with("preload_over_raw", ratio(afterPreload.bytes(), preloadRawBytes))
                .with("preload_allocated_bytes", bytesOrNull(afterPreload.allocatedBytes()))
                .with("preload_tx_keys", preloadTxKeys).with("keys", keys).with("puts", puts)
                .with("workload_s", workloadSeconds);
    }

    private static Long bytesOrNull(long b) {
        return b < 0 ? null : b;
    }

    private static double ratio(long a, long b) {
        return b == 0 ? Double.NaN : (double) a / b;
    }
}
