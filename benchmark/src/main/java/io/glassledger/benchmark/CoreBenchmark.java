package io.glassledger.benchmark;

import io.glassledger.verify.block.BlockSpec;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.VerificationException;
import io.glassledger.core.store.RocksDbNodeStore;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * {@code benchmark/run core}: the core measures of the issue on one RocksDB ledger (sync writes, default
 * parameters), in this order:
 * <ol>
 *   <li>bulk-load N keys as block 1, then 100 blocks of 1,000 random updates; compact and measure disk bytes
 *       (storage);</li>
 *   <li>append update blocks until the head reaches its target, timing each append (persist, sync);</li>
 *   <li>proof sizes at the head, and proofs generated for the verification rate; proof sizes next to 1 MiB
 *       neighbour values ({@link NeighbourProofSize}, its own small in-memory ledger);</li>
 *   <li>close the store, so that RocksDB's background work stops, and time verification;</li>
 *   <li>reopen the same ledger without sync and time more update blocks (persist, nosync);</li>
 *   <li>a second ledger whose state is ten times its node cache: persist into it, then the heap retained after full
 *       collections ({@link ColdPersist}).</li>
 * </ol>
 * Results go to stdout, one JSON object per line ({@link JsonLine}); progress goes to stderr. Exit status: 0 when
 * every measure ran (targets missed or not), 1 when a proof failed to verify or anything else went wrong, 2 for a
 * usage error.
 */
public final class CoreBenchmark {
    /**
     * Decoded-node cache: large enough for the whole state of the 1M-key ledger, as a server would size it (2 GiB of
     * the full run's 12 GiB heap); at most a third of a smaller heap, such as {@code --quick}'s.
     */
    static final long NODE_CACHE_BYTES = Math.min(2L << 30, Runtime.getRuntime().maxMemory() / 3);


    private final CoreOptions opts;
    private final PrintStream out = System.out;
    private final long started = System.nanoTime();
    private final long[] appendNanos;

    private CoreBenchmark(CoreOptions opts) {
        this.opts = opts;
        this.appendNanos = new long[Math.toIntExact(opts.headTarget() + 1)];
    }

    public static void main(String[] args) {
        if (List.of(args).contains("--help") || List.of(args).contains("-h")) {
            System.err.print(CoreOptions.USAGE);
            System.exit(0);
        }
        CoreOptions opts;
        try {
            opts = CoreOptions.parse(args, Path.of(System.getProperty("glassledger.bench.dir", "benchmark/work/core")));
        } catch (IllegalArgumentException e) {
            System.err.println("core: " + e.getMessage());
            System.err.print(CoreOptions.USAGE);
            System.exit(2);
            return;
        }
        try {
            WorkDir.prepare(opts.dir());
        } catch (IllegalArgumentException e) {
            System.err.println("core: " + e.getMessage());
            System.exit(2);
        }
        int status;
        try {
            new CoreBenchmark(opts).run();
            status = 0;
        } catch (VerificationException e) {
            System.err.println("core: VERIFICATION FAILED: " + e.getMessage());
            status = 1;
        } catch (RuntimeException | Error e) {
            e.printStackTrace();
            status = 1;
        }
        System.exit(status);
    }

    private void run() throws VerificationException {
        Path ledgerDir = opts.dir().resolve("ledger");
        log("core: %s keys, head target %d, dir %s, repeat %d, seed %d, tree %s%s, %d cpus, max heap %d MiB, "
                        + "load average %s", opts.keys(), opts.headTarget(), opts.dir(), opts.repeat(), opts.seed(),
                opts.tree(), opts.quick() ? ", quick" : "",
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20, WorkDir.loadAverage());
        Workload data = new Workload(opts.keys(), opts.seed());
        SplittableRandom sampling = new SplittableRandom(opts.seed() ^ 0x5DEECE66DL);
        Digest beforeReopen;
        ProofMeasures.VerifySet verifySet;

        try (RocksDbNodeStore store = new RocksDbNodeStore(ledgerDir)) {
            Ledger ledger = Ledger.openOrCreate(store, opts.tree(), 0, NODE_CACHE_BYTES);
            bulkLoad(ledger, data);
            appendUpdates(ledger, data, 1 + opts.storageUpdates());
            measureStorage(store, ledgerDir);
            appendUpdates(ledger, data, opts.headTarget());
            reportPersist("", true, lastAppends(opts.persistTimed()), opts.headTarget() - opts.persistTimed() + 1);

            ProofMeasures proofs = new ProofMeasures(ledger, data, opts, sampling, out);
            log("current-value proofs");
            proofs.currentValueProofs();
            log("append-only proofs");
            proofs.appendOnlyProofs();
            log("history proofs");
            proofs.historyProofs();
            log("batch proofs");
            proofs.batchProofs();
            log("proof size next to 1 MiB neighbour values");
            NeighbourProofSize.measure(opts.seed(), out);
            log("generating proofs for the verification rate");
            verifySet = proofs.prepareVerify();
            beforeReopen = ledger.digest();
        }
        log("verification rate (store closed)");
        verifySet.measure(opts, out);

        try (RocksDbNodeStore store = new RocksDbNodeStore(ledgerDir, false, 256L << 20)) {
            Ledger ledger = Ledger.open(store, NODE_CACHE_BYTES);
            if (!ledger.digest().equals(beforeReopen)) {
                throw new IllegalStateException("reopened ledger has digest " + ledger.digest() + ", not "
                        + beforeReopen);
            }
            long first = beforeReopen.blockNo() + 1;
            log("reopened without sync");
            warmByScan(ledger);
            log("%d warm-up blocks", opts.nosyncWarmup());
            appendUpdates(ledger, data, first + opts.nosyncWarmup() - 1);
            long[] timed = new long[opts.nosyncTimed()];
            for (int i = 0; i < timed.length; i++) {
                BlockSpec spec = data.updateBlock(ledger.head().block().number() + 1, CoreOptions.UPDATE_KEYS);
                long t0 = System.nanoTime();
                ledger.append(List.of(spec));
                timed[i] = System.nanoTime() - t0;
            }
            reportPersist("_nosync", false, timed, first + opts.nosyncWarmup());
        }
        if (opts.coldKeys() > 0) {
            log("persist_cold: %d keys, node cache a tenth of their raw bytes", opts.coldKeys());
            ColdPersist.measure(opts, opts.dir().resolve("cold"), out, m -> log("%s", m));
        }
        log("done; load average %s", WorkDir.loadAverage());
    }

    /**
     * Reads the whole state once after reopening, so that the node caches are about as full as they were during
     * the sync run (which started from the bulk load's nodes) rather than cold. Also checks the key count.
     */
    private void warmByScan(Ledger ledger) {
        long t0 = System.nanoTime();
        long[] count = {0};
        ledger.tree().scan(ledger.head().block().lowerRoot(), null, null, e -> {
            count[0]++;
            return true;
        });
        if (count[0] != opts.keys()) {
            throw new IllegalStateException("the state holds " + count[0] + " keys, not " + opts.keys());
        }
        log("scanned %d keys to warm the caches in %.1f s", count[0], (System.nanoTime() - t0) / 1e9);
    }

    private void bulkLoad(Ledger ledger, Workload data) {
        log("bulk load of %d keys as block 1", opts.keys());
        BlockSpec bulk = data.bulkBlock(1);
        long t0 = System.nanoTime();
        ledger.append(List.of(bulk));
        double s = (System.nanoTime() - t0) / 1e9;
        JsonLine.of("setup", "bulk_load_keys_per_second", opts.keys() / s, "keys/s").with("seconds", s)
                .with("keys", opts.keys()).printTo(out);
    }

    /** Appends timed 1,000-key update blocks until the head is block {@code toBlock}. */
    private void appendUpdates(Ledger ledger, Workload data, long toBlock) {
        long from = ledger.head().block().number() + 1;
        if (from <= toBlock) {
            log("update blocks %d..%d", from, toBlock);
        }
        for (long b = from; b <= toBlock; b++) {
            BlockSpec spec = data.updateBlock(b, CoreOptions.UPDATE_KEYS);
            long t0 = System.nanoTime();
            long number = ledger.append(List.of(spec)).get(0).number();
            long ns = System.nanoTime() - t0;
            if (number != b) {
                throw new IllegalStateException("appended block " + number + ", expected " + b);
            }
            if (b < appendNanos.length) {
                appendNanos[(int) b] = ns;
            }
            if ((b - from + 1) % 100 == 0) {
                log("  block %d: %.1f ms", b, ns / 1e6);
            }
        }
    }

    private long[] lastAppends(int n) {
        long[] t = new long[n];
        System.arraycopy(appendNanos, appendNanos.length - n, t, 0, n);
        return t;
    }

    private void measureStorage(RocksDbNodeStore store, Path ledgerDir) {
        log("compacting for the storage measure");
        long t0 = System.nanoTime();
        store.compact();
        long disk = store.sizeBytes();
        long sst = sstBytes(ledgerDir);
        long raw = (long) opts.keys() * (Workload.KEY_BYTES + Workload.VALUE_BYTES);
        log("compaction took %.1f s", (System.nanoTime() - t0) / 1e9);
        JsonLine.of("storage", "disk_bytes_over_raw", (double) disk / raw, "ratio")
                .with("disk_bytes", disk).with("sst_bytes", sst).with("raw_bytes", raw).with("update_blocks", opts.storageUpdates())
                .printTo(out);
    }

    /** Bytes in SST files alone, for context: sizeBytes() also counts the write-ahead log and RocksDB's logs. */
    private static long sstBytes(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".sst")).mapToLong(p -> p.toFile().length())
                    .sum();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Persist lines from per-block append times; the keys/s quantiles mirror the time quantiles. */
    private void reportPersist(String suffix, boolean sync, long[] nanos, long firstBlock) {
        Stats ms = new Stats(java.util.Arrays.stream(nanos).mapToDouble(n -> n / 1e6).toArray());
        double k = CoreOptions.UPDATE_KEYS;
        JsonLine.of("persist", "keys_per_second" + suffix, k / ms.median() * 1000, "keys/s")
                .with("p10", k / ms.p90() * 1000).with("p90", k / ms.p10() * 1000).with("n", ms.count())
                .with("sync", sync).with("first_block", firstBlock).printTo(out);
        JsonLine.of("persist", "ms_per_block" + suffix, ms.median(), "ms").spread(ms).with("sync", sync)
                .with("block_keys", CoreOptions.UPDATE_KEYS).printTo(out);
    }

    private void log(String format, Object... args) {
        System.err.printf("[%7.1fs] %s%n", (System.nanoTime() - started) / 1e9, String.format(format, args));
    }
}
