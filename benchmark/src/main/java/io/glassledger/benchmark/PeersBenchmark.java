package io.glassledger.benchmark;

import io.glassledger.client.ClientConfig;
import io.glassledger.client.CommitPromise;
import io.glassledger.client.GlassLedgerClient;
import io.glassledger.client.GlassLedgerException;
import io.glassledger.client.Txn;
import io.glassledger.verify.crypto.SigningKey;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code benchmark/run peers}: GlassLedger against immudb v1.11.1, operation for operation, on loopback with the same
 * data (32-byte keys, 128-byte values; 100,000 preloaded in transactions of 10 keys), the same clients and the
 * same warm-up, alternating A-B-A-B. Both acknowledge a write only once it is on disk (immudb: {@code --synced}; GlassLedger: its WAL's group
 * fsync) and both sign the states their clients check (immudb: {@code --signingKey}, ECDSA P-256; GlassLedger:
 * Ed25519 signed heads).
 *
 * <p>The workloads (each a closed loop; immudb's with its own Go client, one client and session per goroutine;
 * GlassLedger's with the Java SDK, one client shared by the threads as an application would):
 * <ul>
 *   <li>{@code get}: a verified read of one random key. immudb: {@code VerifiedGet} (the entry's inclusion in its
 *       transaction and the client's state extended to the server's); GlassLedger: {@code client.get} (the value is
 *       the key's current one in the latest persisted block, in a digest that extends the trusted one).</li>
 *   <li>{@code set_deferred}: a single-key write whose promise the SDK checks in the background after the verify
 *       delay (100 ms). immudb has no deferred mode: {@code VerifiedSet}.</li>
 *   <li>{@code set_verified}: a single-key write verified before it returns. immudb: {@code VerifiedSet};
 *       GlassLedger: a client with a verify delay of 0 (the commit returns once its block is persisted and the
 *       promise verified).</li>
 *   <li>{@code tx}, {@code tx64}: 10 operations on distinct random keys, 16 and 64 clients. GlassLedger: a serializable
 *       transaction, five reads in one multi-get and five writes, deferred verification; immudb: five
 *       {@code VerifiedGet}s, one five-key {@code SetAll} and {@code VerifiedTxByID} of its transaction. immudb does
 *       not check the five reads at commit (a concurrent write between them goes unnoticed) and does not prove
 *       that a value read is the key's latest.</li>
 * </ul>
 *
 * <p>Per window, both systems' rate and CPU per unit (an operation; for transactions, a transaction): the client's
 * (GlassLedger: this JVM; immudb: the driver process) and the server's process, read over the measured window. Per
 * workload, the medians over the rounds and their ratio, the target's line ({@link Targets}).
 */
public final class PeersBenchmark {
    private static final PrintStream OUT = System.out;

    /** A workload: its name in the result lines, the driver's workload, clients, and the unit of its rate. */
    record Spec(String name, String driverWorkload, int clients, String unit) {
        boolean transactions() {
            return driverWorkload.equals("tx");
        }
    }

    record Options(int keys, double seconds, double warmup, double firstWarmup, int rounds, int clients,
                   int txClientsHigh, int preloadTxKeys, long persistMs, long delayMs, boolean signed,
                   List<String> only, Path dir, Path chart, boolean quick) {
        static Options parse(String[] args) {
            boolean quick = List.of(args).contains("--quick");
            int keys = quick ? 2_000 : 100_000;
            double seconds = quick ? 1.5 : 10;
            double warmup = quick ? 0.5 : 3;
            // --quick, the CI smoke: no first warm-up (it only steadies the JIT for the measures; each window still
            // has its own)
            double firstWarmup = quick ? 0 : 30;
            int rounds = quick ? 1 : 2;
            int clients = 16;
            int high = 64;
            int preloadTxKeys = 10;
            long persist = 10;
            long delay = 100;
            boolean signed = true;
            List<String> only = List.of();
            Path dir = Path.of(System.getProperty("glassledger.bench.dir", "benchmark/work/peers"));
            Path chart = null;
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--quick" -> {
                    }
                    case "--keys" -> keys = (int) Args.number(args[i], Args.value(args, ++i), 1000, 10_000_000);
                    case "--seconds" -> seconds = Args.decimal(args[i], Args.value(args, ++i), 0.5, 3600);
                    case "--warmup" -> warmup = Args.decimal(args[i], Args.value(args, ++i), 0, 3600);
                    case "--first-warmup" -> firstWarmup = Args.decimal(args[i], Args.value(args, ++i), 0, 3600);
                    case "--rounds" -> rounds = (int) Args.number(args[i], Args.value(args, ++i), 1, 20);
                    case "--clients" -> clients = (int) Args.number(args[i], Args.value(args, ++i), 1, 512);
                    case "--tx-clients-high" -> high = (int) Args.number(args[i], Args.value(args, ++i), 1, 512);
                    case "--preload-tx-keys" -> preloadTxKeys = (int) Args.number(args[i], Args.value(args, ++i), 1,
                            10_000);
                    case "--persist-ms" -> persist = Args.number(args[i], Args.value(args, ++i), 1, 60_000);
                    case "--delay-ms" -> delay = Args.number(args[i], Args.value(args, ++i), 1, 60_000);
                    case "--unsigned-immudb" -> signed = false;
                    case "--only" -> only = List.of(Args.value(args, ++i).split(","));
                    case "--dir" -> dir = Path.of(Args.value(args, ++i));
                    case "--chart" -> chart = Path.of(Args.value(args, ++i));
                    case "-h", "--help" -> {
                        System.err.println("""
                                usage: benchmark/run peers [--quick] [--keys N] [--seconds S] [--warmup S]
                                                           [--first-warmup S] [--rounds R] [--clients C]
                                                           [--tx-clients-high C] [--preload-tx-keys N]
                                                           [--persist-ms MS] [--delay-ms MS]
                                                           [--unsigned-immudb] [--only LIST] [--chart FILE]
                                  GlassLedger against immudb v1.11.1 (built from its Go module), alternating
                                  --keys N          preloaded keys (default 100000; --quick 2000)
                                  --seconds S       measured seconds per window (default 10; --quick 1.5)
                                  --warmup S        unmeasured seconds before each window (default 3)
                                  --first-warmup S  unmeasured seconds of each workload on each system before the
                                                    first round: the JIT (default 30; --quick 0)
                                  --rounds R        A-B rounds; the order alternates by round (default 2; --quick 1)
                                  --clients C       clients of get, set_deferred, set_verified, tx (default 16)
                                  --tx-clients-high C  clients of tx64 (default 64)
                                  --preload-tx-keys N  keys per preload transaction, both systems (default 10)
                                  --persist-ms MS   GlassLedger's persist interval (default 10)
                                  --delay-ms MS     the SDK's verify delay of the deferred workloads (default 100)
                                  --unsigned-immudb immudb without a signing key (its states unsigned)
                                  --only LIST       workloads to run, of get,set_deferred,set_verified,tx,tx64
                                  --chart FILE      where the chart of the ratios goes (PNG)""");
                        System.exit(0);
                    }
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            for (String w : only) {
                if (!List.of("get", "set_deferred", "set_verified", "tx", "tx64").contains(w)) {
                    throw new IllegalArgumentException("unknown workload " + w);
                }
            }
            return new Options(keys, seconds, warmup, firstWarmup, rounds, clients, high, preloadTxKeys, persist,
                    delay, signed, only, dir.toAbsolutePath().normalize(), chart, quick);
        }

        List<Spec> specs() {
            List<Spec> all = List.of(new Spec("get", "get", clients, "ops/s"),
                    new Spec("set_deferred", "set", clients, "ops/s"),
                    new Spec("set_verified", "set", clients, "ops/s"),
                    new Spec("tx", "tx", clients, "tx/s"),
                    new Spec("tx64", "tx", txClientsHigh, "tx/s"));
            return all.stream().filter(s -> only.isEmpty() || only.contains(s.name())).toList();
        }
    }

    /** One measured window of one system. */
    record Window(double rate, double clientCpuUs, double serverCpuUs, long units, double seconds) {
    }

    private static void log(String fmt, Object... a) {
        System.err.printf("[peers] " + fmt + "%n", a);
    }

    public static void main(String[] args) throws Exception {
        Options o;
        try {
            o = Options.parse(args);
            WorkDir.prepare(o.dir());
        } catch (IllegalArgumentException e) {
            System.err.println("benchmark/run peers: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.exit(new PeersBenchmark().run(o));
    }

    private final AtomicLong verifyFailed = new AtomicLong();
    private final AtomicLong verifyPending = new AtomicLong();

    int run(Options o) throws Exception {
        Path immudbBin = Path.of(System.getProperty("glassledger.immudb.bin", "benchmark/target/peers/immudb"));
        Path driver = Path.of(System.getProperty("glassledger.immudb.driver",
                "benchmark/target/peers/immudb-driver"));
        Path jar = Path.of(System.getProperty("glassledger.server.jar",
                "ledger-server/target/ledger-server-0.1.0-SNAPSHOT-exec.jar")).toAbsolutePath();
        Workload data = new Workload(o.keys(), 42);
        Path records = o.dir().resolve("records.bin");
        writeRecords(data, records);
        log("%d keys, %d clients (tx64: %d), %d round(s) of %.1f s windows; immudb %s; GlassLedger persist %d ms, "
                + "verify delay %d ms", o.keys(), o.clients(), o.txClientsHigh(), o.rounds(), o.seconds(),
                o.signed() ? "signed" : "unsigned", o.persistMs(), o.delayMs());
        List<String> serverArgs = new ArrayList<>(ServerCluster.quickArgs(o.quick()));
        serverArgs.add("--glassledger.persist-interval=" + o.persistMs() + "ms");
        try (ImmudbProcess immudb = new ImmudbProcess(immudbBin.toAbsolutePath(), driver.toAbsolutePath(),
                o.dir().resolve("immudb"), o.signed());
             ServerCluster cluster = ServerCluster.start(jar, o.dir(), 1, ServerCluster.heap(o.quick()),
                     serverArgs)) {
            ServerProcess server = cluster.first();
            log("immudb pid %d on port %d; GlassLedger pid %d at %s", immudb.process.pid(), immudb.port,
                    server.process.pid(), server.url);
            SigningKey key = SigningKey.generate();
            ClientConfig deferred = cluster.client("default", key, o.dir().resolve("state-deferred.json"),
                    Duration.ofMillis(o.delayMs())).build();
            ClientConfig verified = cluster.client("default", key, o.dir().resolve("state-verified.json"),
                    Duration.ZERO).build();
            try (GlassLedgerClient dc = GlassLedgerClient.connect(deferred);
                 GlassLedgerClient vc = GlassLedgerClient.connect(verified)) {
                long t0 = System.nanoTime();
                immudb.preload(records, o.preloadTxKeys());
                log("immudb: preloaded in %.1f s, %d keys per transaction", (System.nanoTime() - t0) / 1e9,
                        o.preloadTxKeys());
                ServiceBenchmark.preload(dc, data, o.preloadTxKeys(), 16);
                Map<String, List<Window>> gl = new LinkedHashMap<>();
                Map<String, List<Window>> im = new LinkedHashMap<>();
                List<Spec> specs = o.specs();
                if (o.firstWarmup() > 0) {
                    log("first warm-up: %.0f s of each workload on each system", o.firstWarmup());
                    for (Spec s : specs) {
                        glWindow(s, s.name().equals("set_verified") ? vc : dc, data, o.firstWarmup(), 0, 7);
                        immudb.run(records, s.driverWorkload(), s.clients(), Math.max(0, o.firstWarmup() - 0.5),
                                0.5, 7, s.name() + "-warmup");
                    }
                }
                for (int r = 0; r < o.rounds(); r++) {
                    for (Spec s : specs) {
                        boolean immudbFirst = r % 2 == 0;
                        for (int k = 0; k < 2; k++) {
                            long seed = 1000L * r + k + 11;
                            if ((k == 0) == immudbFirst) {
                                ImmudbProcess.Window w = immudb.run(records, s.driverWorkload(), s.clients(),
                                        o.warmup(), o.seconds(), seed, s.name() + "-" + r);
                                if (w.errors() > 0) {
                                    log("immudb %s: %d errors, first: %s", s.name(), w.errors(), w.firstError());
                                    return 1;
                                }
                                double units = s.transactions() ? w.tx() : w.ops();
                                Window win = new Window(units / w.seconds(), w.clientCpu() / units * 1e6,
                                        w.serverCpu() / units * 1e6, (long) units, w.seconds());
                                im.computeIfAbsent(s.name(), x -> new ArrayList<>()).add(win);
                                print(s, "immudb", r, win, seed);
                            } else {
                                Window win = glWindow(s, s.name().equals("set_verified") ? vc : dc, data,
                                        o.warmup(), o.seconds(), seed, cluster);
                                gl.computeIfAbsent(s.name(), x -> new ArrayList<>()).add(win);
                                print(s, "glassledger", r, win, seed);
                            }
                        }
                    }
                }
                List<PeersChart.Bar> bars = new ArrayList<>();
                for (Spec s : specs) {
                    bars.add(summary(s, gl.get(s.name()), im.get(s.name()), o));
                }
                JsonLine.of("peers", "verify_failed", verifyFailed.get(), "promises").printTo(OUT);
                JsonLine.of("peers", "verify_pending", verifyPending.get(), "promises").printTo(OUT);
                if (o.chart() != null) {
                    PeersChart.write(bars, o.chart());
                    log("chart: %s", o.chart());
                }
                return verifyFailed.get() == 0 && verifyPending.get() == 0 ? 0 : 1;
            }
        } finally {
            WorkDir.deleteTree(o.dir().resolve("server"));
            WorkDir.deleteTree(o.dir().resolve("immudb"));
        }
    }

    private static void print(Spec s, String system, int round, Window w, long seed) {
        JsonLine.of("peers." + s.name(), "window_rate", w.rate(), s.unit()).with("system", system)
                .with("round", round).with("clients", s.clients()).with("client_cpu_us", w.clientCpuUs())
                .with("server_cpu_us", w.serverCpuUs()).with("units", w.units()).with("seconds", w.seconds())
                .with("seed", seed).printTo(OUT);
        log("%s %s round %d: %.0f %s, CPU per unit: client %.0f us, server %.0f us", s.name(), system, round,
                w.rate(), s.unit(), w.clientCpuUs(), w.serverCpuUs());
    }

    /** The workload's line: medians over the rounds and the ratio of the rates; returns its bar of the chart. */
    private static PeersChart.Bar summary(Spec s, List<Window> gl, List<Window> im, Options o) {
        double glRate = median(gl, Window::rate);
        double imRate = median(im, Window::rate);
        double glClient = median(gl, Window::clientCpuUs);
        double glServer = median(gl, Window::serverCpuUs);
        double imClient = median(im, Window::clientCpuUs);
        double imServer = median(im, Window::serverCpuUs);
        double ratio = glRate / imRate;
        double cpuRatio = (glClient + glServer) / (imClient + imServer);
        String bench = "peers." + s.name();
        JsonLine.of(bench, "ratio", ratio, "x").with("glassledger_rate", glRate).with("immudb_rate", imRate)
                .with("rate_unit", s.unit()).with("glassledger_client_cpu_us", glClient)
                .with("glassledger_server_cpu_us", glServer).with("immudb_client_cpu_us", imClient)
                .with("immudb_server_cpu_us", imServer).with("cpu_ratio", cpuRatio).with("clients", s.clients())
                .with("rounds", o.rounds()).with("seconds", o.seconds()).with("keys", o.keys())
                .with("immudb_signed", o.signed()).with("persist_ms", o.persistMs())
                .with("preload_tx_keys", o.preloadTxKeys()).printTo(OUT);
        JsonLine.of(bench, "cpu_ratio", cpuRatio, "x").with("glassledger_cpu_us", glClient + glServer)
                .with("immudb_cpu_us", imClient + imServer).printTo(OUT);
        log("%s: GlassLedger %.0f vs immudb %.0f %s: %.2f x; "
                + "CPU per unit (client + server) %.0f + %.0f vs %.0f + %.0f us",
                s.name(), glRate, imRate, s.unit(), ratio, glClient, glServer, imClient, imServer);
        return new PeersChart.Bar(s.name() + " (" + s.clients() + ")", ratio,
                Targets.of(f -> switch (f) {
                    case "bench" -> bench;
                    case "metric" -> "ratio";
                    default -> null;
                }).map(t -> Double.parseDouble(t.split(" ")[1])).orElse(Double.NaN));
    }

    private static double median(List<Window> ws, java.util.function.ToDoubleFunction<Window> f) {
        return new Stats(ws.stream().mapToDouble(f).toArray()).median();
    }

    /**
     * One GlassLedger window of {@code s}: {@code s.clients()} threads sharing {@code client}, {@code warmup}
     * seconds unmeasured, then {@code seconds} measured (0: a warm-up only, no result). Every promise made in the
     * window, warm-up included, is then waited for; a failed one counts in {@code verify_failed}.
     */
    private Window glWindow(Spec s, GlassLedgerClient client, Workload data, double warmup, double seconds,
                            long seed, ServerCluster cluster) throws Exception {
        Load load = new Load();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < s.clients(); i++) {
            long sd = seed * 1000 + i;
            Thread t = new Thread(() -> loop(s, client, data, load, sd), "peers-" + s.name() + "-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        Window w = null;
        try {
            Thread.sleep((long) (warmup * 1000));
            if (seconds > 0) {
                double server0 = cluster.cpuSeconds();
                double client0 = processCpu();
                long t0 = System.nanoTime();
                load.measuring = true;
                Thread.sleep((long) (seconds * 1000));
                load.measuring = false;
                double secs = (System.nanoTime() - t0) / 1e9;
                double server = cluster.cpuSeconds() - server0;
                double clientCpu = processCpu() - client0;
                long units = load.units.get();
                w = new Window(units / secs, clientCpu / units * 1e6, server / units * 1e6, units, secs);
            }
        } finally {
            load.stop = true;
            for (Thread t : threads) {
                t.join(60_000);
            }
        }
        if (load.error != null) {
            throw new IllegalStateException("a GlassLedger client failed: " + load.error, load.error);
        }
        for (CommitPromise p : load.promises) {
            try {
                p.verification().get(120, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                verifyPending.incrementAndGet();
            } catch (Exception e) {
                if (verifyFailed.incrementAndGet() < 5) {
                    log("promise %s failed verification: %s", p.txId().hex(), e.getCause());
                }
            }
        }
        return w;
    }

    private Window glWindow(Spec s, GlassLedgerClient client, Workload data, double warmup, double seconds,
                            long seed) throws Exception {
        return glWindow(s, client, data, warmup, seconds, seed, null);
    }

    static final class Load {
        volatile boolean measuring;
        volatile boolean stop;
        volatile Throwable error;
        final AtomicLong units = new AtomicLong();
        final ConcurrentLinkedQueue<CommitPromise> promises = new ConcurrentLinkedQueue<>();
    }

    private static void loop(Spec s, GlassLedgerClient client, Workload data, Load load, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        try {
            while (!load.stop) {
                if (s.name().equals("get")) {
                    client.get(data.key(r.nextInt(data.size())).toByteArray());
                } else {
                    int n = s.transactions() ? 10 : 1;
                    int[] picks = ServiceBenchmark.distinct(r, data.size(), n);
                    while (!load.stop) {
                        try {
                            Txn tx = client.begin();
                            if (s.transactions()) {
                                List<byte[]> reads = new ArrayList<>(5);
                                for (int j = 0; j < 5; j++) {
                                    reads.add(data.key(picks[j]).toByteArray());
                                }
                                tx.getAll(reads);
                            }
                            for (int j = s.transactions() ? 5 : 0; j < n; j++) {
                                byte[] v = new byte[Workload.VALUE_BYTES];
                                r.nextBytes(v);
                                tx.put(data.key(picks[j]).toByteArray(), v);
                            }
                            load.promises.add(tx.commit());
                            break;
                        } catch (GlassLedgerException e) {
                            if (Refusal.of(e) == Refusal.OVERLOADED) {
                                Refusal.backOff(r);
                            }
                        }
                    }
                }
                if (load.measuring) {
                    load.units.incrementAndGet();
                }
            }
        } catch (Throwable t) {
            load.error = t;
            load.stop = true;
        }
    }

    /** The key space as the immudb driver reads it: each key (32 bytes) followed by its preload value (128). */
    private static void writeRecords(Workload data, Path file) throws IOException {
        try (OutputStream out = new java.io.BufferedOutputStream(Files.newOutputStream(file))) {
            for (int i = 0; i < data.size(); i++) {
                out.write(data.key(i).toByteArray());
                out.write(data.value(i).toByteArray());
            }
        }
    }

    private static double processCpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime() / 1e9;
    }
}
