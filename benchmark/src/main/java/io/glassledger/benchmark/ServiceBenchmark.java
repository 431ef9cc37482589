package io.glassledger.benchmark;

import io.glassledger.client.ClientConfig;
import io.glassledger.client.CommitPromise;
import io.glassledger.client.GlassLedgerClient;
import io.glassledger.client.GlassLedgerException;
import io.glassledger.client.Txn;
import io.glassledger.client.VerifierStats;
import io.glassledger.verify.crypto.SigningKey;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code benchmark/run service}: GlassDB's workload X (§4.1) over HTTPS on loopback against a real ledger-server
 * process with one shard. Each transaction has 10 operations on distinct random keys of a 100,000-key space, each a
 * verified get-latest or a verified put with probability 1/2: the reads go in one multi-get, the puts are buffered,
 * the transaction is signed and committed, and its promise (reads and writes) is verified by the SDK's background
 * verifier after the 100 ms delay. Every promise of the window must verify.
 *
 * <p>Before the load, every key is preloaded in transactions of 10 keys (a cluster: 1,000;
 * {@code --preload-tx-keys}). Besides throughput, latency and CPU per transaction, each window reports the share of
 * the servers' CPU in GC threads ({@link GcShare}) and, once the load has stopped, the servers' data directories
 * over the raw bytes written ({@link DiskFootprint}).
 */
public final class ServiceBenchmark {
    private static final int OPS = 10;
    private static final PrintStream OUT = System.out;

    record Options(int keys, double seconds, double warmup, int clients, long delayMs, long persistMs,
                   Path dir, boolean quick, List<Integer> shards, String name, boolean auditor, int preloadTxKeys) {
        static Options parse(String[] args) {
            return parse(args, "service");
        }

        /** {@code name}: service (one shard) or cluster (1 and 3 shards by default, and {@code --shards}). */
        static Options parse(String[] args, String name) {
            boolean cluster = name.equals("cluster");
            boolean quick = List.of(args).contains("--quick");
            List<Integer> shards = cluster ? List.of(1, 3) : List.of(1);
            boolean auditor = false;
            // --quick, the CI smoke: enough keys for a preload, two windows and the disk footprint; a few seconds
            int keys = quick ? 2_000 : 100_000;
            double seconds = quick ? 4 : 20;
            double warmup = quick ? 2 : 30;
            int clients = 64;
            // issue 18's setting for the service; a cluster keeps 1,000 (10-key transactions across 3 shards are
            // each a two-phase commit: a tenth of the preload rate)
            int preloadTxKeys = cluster ? 1000 : 10;
            long delay = 100;
            long persist = 100;
            Path dir = Path.of(System.getProperty("glassledger.bench.dir", "benchmark/work/service"));
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--quick" -> {
                    }
                    case "--keys" -> keys = (int) Args.number(args[i], Args.value(args, ++i), 1000, 50_000_000);
                    case "--seconds" -> seconds = Args.decimal(args[i], Args.value(args, ++i), 0.5, 3600);
                    case "--warmup" -> warmup = Args.decimal(args[i], Args.value(args, ++i), 0, 3600);
                    case "--clients" -> clients = (int) Args.number(args[i], Args.value(args, ++i), 1, 4096);
                    case "--preload-tx-keys" -> preloadTxKeys = (int) Args.number(args[i], Args.value(args, ++i), 1,
                            10_000);
                    case "--delay-ms" -> delay = Args.number(args[i], Args.value(args, ++i), 0, 60_000);
                    case "--persist-ms" -> persist = Args.number(args[i], Args.value(args, ++i), 1, 60_000);
                    case "--dir" -> dir = Path.of(Args.value(args, ++i));
                    case "--auditor" -> auditor = true;
                    case "--shards" -> {
                        if (!cluster) {
                            throw new IllegalArgumentException("--shards is for benchmark/run cluster");
                        }
                        List<Integer> list = new ArrayList<>();
                        for (String n : Args.value(args, ++i).split(",")) {
                            list.add((int) Args.number("--shards", n.trim(), 1, 16));
                        }
                        shards = List.copyOf(list);
                    }
                    case "-h", "--help" -> {
                        System.err.println(cluster ? """
                                usage: benchmark/run cluster [--shards LIST] [--quick] [--keys N] [--seconds S] [--warmup S]
                                                             [--clients C] [--delay-ms MS] [--persist-ms MS] [--dir PATH]
                                  workload X over HTTPS against clusters of ledger-server processes on loopback, one
                                  after the other, cross-shard transactions committed with two-phase commit
                                  --shards LIST   cluster sizes to run, e.g. 1,3 (default 1,3)
                                  (the other options as for benchmark/run service)""" : """
                                usage: benchmark/run service [--quick] [--keys N] [--seconds S] [--warmup S] [--clients C]
                                                             [--delay-ms MS] [--persist-ms MS] [--dir PATH]
                                  workload X over HTTPS against a ledger-server process on loopback (one shard)
                                  --keys N        key space, preloaded (default 100000; --quick 2000)
                                  --preload-tx-keys N  keys per preload transaction (default 10; cluster: 1000)
                                  --seconds S     measured seconds (default 20; --quick 4)
                                  --warmup S      unmeasured seconds before (default 30: the JIT of both JVMs; --quick 2)
                                  --clients C     closed-loop client threads sharing one SDK client (default 64)
                                  --delay-ms MS   verification delay (default 100)
                                  --persist-ms MS the server's persist interval (default 100)
                                  --auditor       also run an auditor process beside the server and report the
                                                  lag it keeps (blocks behind the head) under this load""");
                        System.exit(0);
                    }
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            return new Options(keys, seconds, warmup, clients, delay, persist, dir.toAbsolutePath().normalize(), quick,
                    shards, name, auditor, preloadTxKeys);
        }
    }

    public static void main(String[] args) throws Exception {
        Options o;
        String name = System.getProperty("glassledger.bench.name", "service");
        try {
            o = Options.parse(args, name);
            WorkDir.prepare(o.dir());
        } catch (IllegalArgumentException e) {
            System.err.println("benchmark/run " + name + ": " + e.getMessage());
            System.exit(2);
            return;
        }
        System.exit(new ServiceBenchmark().run(o));
    }

    private static String tag = "service";
    private AuditorProcess auditor;

    private static void log(String fmt, Object... a) {
        System.err.printf("[" + tag + "] " + fmt + "%n", a);
    }

    int run(Options o) throws Exception {
        tag = o.name();
        int rc = 0;
        for (int shards : o.shards()) {
            rc |= run(o, shards);
        }
        return rc;
    }

    private int run(Options o, int shards) throws Exception {
        Path jar = Path.of(System.getProperty("glassledger.server.jar",
                "ledger-server/target/ledger-server-0.1.0-SNAPSHOT-exec.jar")).toAbsolutePath();
        Workload data = new Workload(o.keys(), 42);
        String bench = o.name() + ".x";
        List<String> serverArgs = new ArrayList<>(ServerCluster.quickArgs(o.quick()));
        serverArgs.add("--glassledger.persist-interval=" + o.persistMs() + "ms");
        ServerCluster cluster = ServerCluster.start(jar, o.dir(), shards, ServerCluster.heap(o.quick()), serverArgs);
        List<ServerProcess> servers = cluster.servers;
        ServerProcess server = cluster.first();
        try {
            if (o.auditor()) {
                Path ajar = Path.of(System.getProperty("glassledger.auditor.jar",
                        "auditor/target/auditor-0.1.0-SNAPSHOT-exec.jar")).toAbsolutePath();
                auditor = new AuditorProcess(ajar, o.dir().resolve("auditor"), servers.stream().map(x -> x.url)
                        .toList(), server.fingerprint, server.apiKey("auditor"), ServerCluster.freePorts(1));
                log("auditor following the %d shard(s)", shards);
            }
            log("%d shard(s) %s, %d keys, %d clients, delay %d ms", shards, servers.stream().map(x -> x.url
                    + " (pid " + x.process.pid() + ")").toList(), o.keys(), o.clients(), o.delayMs());
            ClientConfig cfg = cluster.client("default", SigningKey.generate(), o.dir().resolve("client-state.json"),
                    Duration.ofMillis(o.delayMs())).build();
            try (GlassLedgerClient client = GlassLedgerClient.connect(cfg)) {
                long preloadRaw = preload(client, data, o.preloadTxKeys(), o.clients());
                DiskFootprint disk = new DiskFootprint(o.keys(),
                        (long) o.keys() * (Workload.KEY_BYTES + Workload.VALUE_BYTES), o.preloadTxKeys());
                DataDirSize afterPreload = DataDirSize.of(dataDirs(servers));
                disk.preloaded(preloadRaw, afterPreload);
                log("after the preload: %d bytes in the data director%s (%d allocated), %.2f × the %d raw bytes",
                        afterPreload.bytes(), shards == 1 ? "y" : "ies", afterPreload.allocatedBytes(),
                        (double) afterPreload.bytes() / preloadRaw, preloadRaw);
                // With several shards, one-shard transactions first: the JVMs warm up on the paths both windows
                // share, and the cross-shard window, measured second, is not the one penalised by a colder JIT.
                int rc = 0;
                if (shards > 1) {
                    rc |= measure(o, shards, servers, client, data, byShard(data, client, shards), bench, disk);
                }
                rc |= measure(o, shards, servers, client, data, null, bench, disk);
                return rc;
            }
        } finally {
            if (auditor != null) {
                auditor.close();
                auditor = null;
            }
            cluster.close();
            WorkDir.deleteTree(o.dir());
        }
    }

    /**
     * One measured window. {@code local} null: each transaction's keys uniform over the key space (workload X; with
     * several shards nearly every transaction is cross-shard); else each transaction's keys from one random shard's
     * keys (no 2PC), so that the two windows' ratio is the cost of two-phase commit on the same cluster. The servers'
     * CPU, in total and in GC threads, is read at the window's two ends; their data directories' size once the load
     * has stopped, and added to {@code disk} with the puts the load committed.
     */
    private int measure(Options o, int shards, List<ServerProcess> servers, GlassLedgerClient client, Workload data,
                        int[][] local, String bench, DiskFootprint disk) throws Exception {
        String placement = local == null ? "uniform" : "one-shard";
        VerifierStats vs0 = client.verifierStats();
        Load load = new Load();
        long load0 = System.nanoTime();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < o.clients(); i++) {
            long seed = 1000 + i;
            Thread t = new Thread(() -> clientLoop(client, data, load, seed, local), "x-client-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        Thread.sleep((long) (o.warmup() * 1000));
        List<CpuSnapshot> serverCpu0 = cpu(servers);
        double clientCpu0 = processCpu();
        load.measuring = true;
        long t0 = System.nanoTime();
        List<Long> lags = new ArrayList<>();
        long audited0 = auditor == null ? 0 : auditor.writesVerified();
        long end = System.nanoTime() + (long) (o.seconds() * 1e9);
        while (System.nanoTime() < end) {
            Thread.sleep(Math.max(1, Math.min(500, (end - System.nanoTime()) / 1_000_000)));
            if (auditor != null) {
                lags.add(auditor.maxLag());
            }
        }
        load.measuring = false;
        double secs = (System.nanoTime() - t0) / 1e9;
        long committed = load.measuredCommits.get();
        List<GcShare> gcByShard = gcShares(serverCpu0, cpu(servers));
        GcShare gc = gcByShard.stream().reduce(GcShare.NONE, GcShare::plus);
        double serverCpu = GcShare.seconds(gc.processTicks());
        double clientCpu = processCpu() - clientCpu0;
        load.stop = true;
        for (Thread t : threads) {
            t.join(60_000);
        }
        // The load has stopped (every counted put acknowledged, none in flight); the servers run on, uncompacted.
        disk.loaded(load.putBytes.get(), load.puts.get(), (System.nanoTime() - load0) / 1e9);
        DataDirSize size = DataDirSize.of(dataDirs(servers));
        log("window: %d commits in %.1f s (%.0f tx/s); waiting for verification of %d promises", committed,
                secs, committed / secs, load.promises.size());
        if (auditor != null) {
            long audited = auditor.writesVerified() - audited0;
            long c0n = System.nanoTime();
            while (auditor.maxLag() > 0 && System.nanoTime() - c0n < 120_000_000_000L) {
                Thread.sleep(100);
            }
            double catchUp = (System.nanoTime() - c0n) / 1e9;
            Stats lag = Stats.ofLongs(lags.stream().mapToLong(Long::longValue).toArray());
            JsonLine.of(bench, "auditor_lag_blocks", lag.median(), "blocks").with("max", lag.max())
                    .with("samples", lag.count()).with("catch_up_s", catchUp)
                    .with("auditor_keys_per_s", audited / secs).with("auditor_ok", auditor.ok())
                    .with("shards", shards).printTo(OUT);
            log("auditor: lag median %.0f, max %.0f blocks; %.0f keys/s verified; caught up %.1f s after the load",
                    lag.median(), lag.max(), audited / secs, catchUp);
            if (!auditor.ok()) {
                log("the auditor reports a violation against an honest server");
                return 1;
            }
        }
        long verified = 0;
        long failed = 0;
        long pending = 0;
        for (CommitPromise p : load.promises) {
            try {
                p.verification().get(120, TimeUnit.SECONDS);
                verified++;
            } catch (java.util.concurrent.TimeoutException e) {
                pending++;
            } catch (Exception e) {
                failed++;
                if (failed < 5) {
                    log("promise %s failed verification: %s", p.txId().hex(), e.getCause());
                }
            }
        }
        double tps = committed / secs;
        long cross = load.promises.stream().filter(CommitPromise::crossShard).count();
        JsonLine.of(bench, "throughput", tps, "tx/s")
                .with("shards", shards).with("placement", placement).with("per_shard", tps / shards)
                .with("cross_shard_share", ratio(cross, committed)).with("committed", committed)
                .with("seconds", secs).with("clients", o.clients()).with("keys", o.keys())
                .with("delay_ms", o.delayMs()).with("persist_ms", o.persistMs()).printTo(OUT);
        JsonLine.of(bench, "abort_rate", ratio(load.conflicts.get(), load.conflicts.get() + committed), "ratio").with("shards", shards).with("placement", placement).with("aborted_by_primary", load.aborted.get()).with("conflicts", load.conflicts.get()).with("overloaded", load.overloaded.get())
                .printTo(OUT);
        // A window in which nothing committed (seen under a load average of 28 on 2 cores) has no latency to report.
        Stats lat = load.latencies.isEmpty() ? null
                : Stats.ofLongs(load.latencies.stream().mapToLong(Long::longValue).toArray());
        if (lat == null) {
            log("no transaction committed in the window: no latency lines");
        } else {
            JsonLine.of(bench, "tx_latency_p50", lat.median() / 1e6, "ms").with("p99", lat.quantile(0.99) / 1e6)
                    .with("n", lat.count()).with("shards", shards).with("placement", placement).printTo(OUT);
            JsonLine.of(bench, "tx_latency_p99", lat.quantile(0.99) / 1e6, "ms").with("shards", shards)
                    .with("placement", placement).printTo(OUT);
        }
        JsonLine.of(bench, "server_cpu_us_per_tx", serverCpu / committed * 1e6, "us")
                .with("server_cpu_s", serverCpu).with("cores_used", serverCpu / secs).with("shards", shards).with("placement", placement)
                .printTo(OUT);
        JsonLine.of(bench, "server_gc_cpu_share", gc.share(), "ratio")
                .with("gc_cpu_s", GcShare.seconds(gc.gcTicks())).with("server_cpu_s", serverCpu)
                .with("max_shard_share", gcByShard.stream().mapToDouble(GcShare::share).max().orElse(Double.NaN))
                .with("vm_thread_share", gc.vmThreadShare()).with("gc_threads", gc.gcThreads())
                .with("gc_threads_exited", gc.gcThreadsExited()).with("seconds", secs).with("warmup_s", o.warmup())
                .with("shards", shards).with("placement", placement).printTo(OUT);
        disk.line(bench, size).with("shards", shards).with("placement", placement).printTo(OUT);
        JsonLine.of(bench, "client_cpu_us_per_tx", clientCpu / committed * 1e6, "us")
                .with("client_cpu_s", clientCpu).with("shards", shards).with("placement", placement).printTo(OUT);
        VerifierStats vs = client.verifierStats();
        long proofBytes = vs.proofBytes() - vs0.proofBytes();
        long claims = vs.claims() - vs0.claims();
        JsonLine.of(bench, "proof_bytes_per_key", ratio(proofBytes, claims), "bytes").with("shards", shards).with("placement", placement)
                .with("proof_bytes", proofBytes).with("claims", claims)
                .with("batches", vs.batches() - vs0.batches())
                .with("append_only_bytes", vs.appendOnlyBytes() - vs0.appendOnlyBytes()).printTo(OUT);
        JsonLine.of(bench, "verified", verified, "promises").with("shards", shards).with("placement", placement).printTo(OUT);
        JsonLine.of(bench, "verify_failed", failed, "promises").with("shards", shards).with("placement", placement).printTo(OUT);
        JsonLine.of(bench, "verify_pending", pending, "promises").with("shards", shards).with("placement", placement).printTo(OUT);
        log("%d shard(s), %s keys: %.0f tx/s (%.2f cross-shard), abort rate %.3f, p50 %.1f ms, p99 %.1f ms, server %.0f us CPU per tx; verified %d, "
                + "failed %d, pending %d", shards, placement, tps, ratio(cross, committed), ratio(load.conflicts.get(), load.conflicts.get() + committed),
                lat == null ? Double.NaN : lat.median() / 1e6, lat == null ? Double.NaN : lat.quantile(0.99) / 1e6,
                serverCpu / committed * 1e6, verified, failed,
                pending);
        log("server GC threads: %.1f%% of the server CPU in the window (%d threads); data: %d bytes (%d allocated), "
                + "%.2f × the %d raw bytes committed by the preload and the load so far", 100 * gc.share(),
                gc.gcThreads(), size.bytes(), size.allocatedBytes(), (double) size.bytes() / disk.rawBytes(),
                disk.rawBytes());
        if (load.error != null) {
            log("a client failed: %s", load.error);
            return 1;
        }
        return failed == 0 && pending == 0 ? 0 : 1;
    }

    /** Key indexes by the shard that holds them. */
    private static int[][] byShard(Workload data, GlassLedgerClient client, int shards) {
        List<List<Integer>> lists = new ArrayList<>();
        for (int s = 0; s < shards; s++) {
            lists.add(new ArrayList<>());
        }
        for (int i = 0; i < data.size(); i++) {
            lists.get(client.shardOf(data.key(i).toByteArray())).add(i);
        }
        int[][] out = new int[shards][];
        for (int s = 0; s < shards; s++) {
            out[s] = lists.get(s).stream().mapToInt(Integer::intValue).toArray();
        }
        return out;
    }

    /** Every server's CPU so far, in total and by thread, in the order of {@code servers}. */
    private static List<CpuSnapshot> cpu(List<ServerProcess> servers) throws IOException {
        List<CpuSnapshot> out = new ArrayList<>();
        for (ServerProcess sp : servers) {
            out.add(sp.cpuSnapshot());
        }
        return out;
    }

    /** Each server's GC share of the window between the reads {@code start} and {@code end}. */
    private static List<GcShare> gcShares(List<CpuSnapshot> start, List<CpuSnapshot> end) {
        List<GcShare> out = new ArrayList<>();
        for (int i = 0; i < start.size(); i++) {
            out.add(GcShare.between(start.get(i), end.get(i)));
        }
        return out;
    }

    private static List<Path> dataDirs(List<ServerProcess> servers) {
        return servers.stream().map(sp -> sp.dataDir).toList();
    }

    static final class Load {
        volatile boolean measuring;
        /** Re-run a transaction a shard without a leader refused (a load that kills the leader on purpose). */
        volatile boolean awaitLeader;
        volatile boolean stop;
        volatile Throwable error;
        final AtomicLong committed = new AtomicLong();
        final AtomicLong measuredCommits = new AtomicLong();
        final AtomicLong conflicts = new AtomicLong();
        final AtomicLong overloaded = new AtomicLong();
        final AtomicLong aborted = new AtomicLong();
        /** Puts of every commit acknowledged while the load ran, warm-up included, and their key + value bytes. */
        final AtomicLong puts = new AtomicLong();
        final AtomicLong putBytes = new AtomicLong();
        final ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<CommitPromise> promises = new ConcurrentLinkedQueue<>();
        /** The client threads, for a benchmark that starts and stops the load itself. */
        final List<Thread> threads = new ArrayList<>();
    }

    static void clientLoop(GlassLedgerClient client, Workload data, Load load, long seed, int[][] local) {
        SplittableRandom r = new SplittableRandom(seed);
        try {
            while (!load.stop) {
                int[] picks;
                if (local == null) {
                    picks = distinct(r, data.size());
                } else {
                    int[] keysOfShard = local[r.nextInt(local.length)];
                    picks = distinct(r, keysOfShard.length);
                    for (int j = 0; j < picks.length; j++) {
                        picks[j] = keysOfShard[picks[j]];
                    }
                }
                List<byte[]> reads = new ArrayList<>();
                List<Integer> writes = new ArrayList<>();
                for (int i : picks) {
                    if (r.nextBoolean()) {
                        reads.add(data.key(i).toByteArray());
                    } else {
                        writes.add(i);
                    }
                }
                long t0 = System.nanoTime();
                while (!load.stop) {
                    try {
                        Txn tx = client.begin();
                        if (!reads.isEmpty()) {
                            tx.getAll(reads);
                        }
                        long bytes = 0;
                        for (int i : writes) {
                            byte[] k = data.key(i).toByteArray();
                            byte[] v = new byte[Workload.VALUE_BYTES];
                            r.nextBytes(v);
                            tx.put(k, v);
                            bytes += k.length + v.length;
                        }
                        CommitPromise p = tx.commit();
                        load.committed.incrementAndGet();
                        load.puts.addAndGet(writes.size());
                        load.putBytes.addAndGet(bytes);
                        if (load.measuring) {
                            load.measuredCommits.incrementAndGet();
                            load.latencies.add(System.nanoTime() - t0);
                            load.promises.add(p);
                        }
                        break;
                    } catch (GlassLedgerException e) {
                        if (load.awaitLeader && Refusal.noLeaderYet(e)) {
                            Refusal.awaitLeader(r);
                            continue;
                        }
                        Refusal why = Refusal.of(e);
                        if (load.measuring) {
                            if (why == Refusal.OVERLOADED) {
                                load.overloaded.incrementAndGet();
                            } else {
                                load.conflicts.incrementAndGet();
                                if (GlassLedgerException.ABORTED.equals(e.code())) {
                                    load.aborted.incrementAndGet();
                                }
                            }
                        }
                        if (why == Refusal.OVERLOADED) {
                            Refusal.backOff(r);
                        }
                    }
                }
            }
        } catch (Throwable t) {
            load.error = t;
            load.stop = true;
        }
    }

    private static int[] distinct(SplittableRandom r, int n) {
        return distinct(r, n, OPS);
    }

    /** {@code count} distinct random indexes below {@code n} (thread-safe: no shared state, unlike Workload's). */
    static int[] distinct(SplittableRandom r, int n, int count) {
        int[] out = new int[count];
        outer:
        for (int i = 0; i < count; ) {
            int k = r.nextInt(n);
            for (int j = 0; j < i; j++) {
                if (out[j] == k) {
                    continue outer;
                }
            }
            out[i++] = k;
        }
        return out;
    }

    /**
     * Puts every key with its preload value, in transactions of {@code txKeys} consecutive keys committed by
     * {@code threads} threads at once, and waits until every promise verifies. Returns the key + value bytes
     * committed.
     */
    static long preload(GlassLedgerClient client, Workload data, int txKeys, int threads)
            throws InterruptedException {
        long t0 = System.nanoTime();
        int txs = (data.size() + txKeys - 1) / txKeys;
        AtomicInteger next = new AtomicInteger();
        AtomicLong raw = new AtomicLong();
        ConcurrentLinkedQueue<CommitPromise> ps = new ConcurrentLinkedQueue<>();
        AtomicReference<Throwable> error = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        for (int w = 0; w < Math.min(threads, txs); w++) {
            Thread t = new Thread(() -> {
                try {
                    for (int n = next.getAndIncrement(); n < txs && error.get() == null; n = next.getAndIncrement()) {
                        ps.add(commitPreload(client, data, n * txKeys, Math.min(data.size(), (n + 1) * txKeys), raw));
                    }
                } catch (Throwable e) {
                    error.compareAndSet(null, e);
                }
            }, "preload-" + w);
            t.setDaemon(true);
            workers.add(t);
            t.start();
        }
        for (Thread t : workers) {
            t.join();
        }
        if (error.get() != null) {
            throw new IllegalStateException("preload failed: " + error.get(), error.get());
        }
        CompletableFuture.allOf(ps.stream().map(CommitPromise::verification).toArray(CompletableFuture[]::new)).join();
        log("preloaded %d keys in %d transactions of %d keys in %.1f s (all %d promises verified)", data.size(), txs,
                txKeys, (System.nanoTime() - t0) / 1e9, ps.size());
        return raw.get();
    }

    /** Commits keys {@code from} to {@code to} (exclusive) with their preload values, retrying what is retryable. */
    private static CommitPromise commitPreload(GlassLedgerClient client, Workload data, int from, int to,
                                               AtomicLong raw) {
        while (true) {
            try {
                Txn tx = client.begin();
                long bytes = 0;
                for (int i = from; i < to; i++) {
                    byte[] k = data.key(i).toByteArray();
                    byte[] v = data.value(i).toByteArray();
                    tx.put(k, v);
                    bytes += k.length + v.length;
                }
                CommitPromise p = tx.commit();
                raw.addAndGet(bytes);
                return p;
            } catch (GlassLedgerException e) {
                if (!e.retryable()) {
                    throw e;
                }
                LockSupport.parkNanos(50_000_000);
            }
        }
    }

    private static double processCpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime() / 1e9;
    }

    private static double ratio(double a, double b) {
        return b == 0 ? 0 : a / b;
    }
}
