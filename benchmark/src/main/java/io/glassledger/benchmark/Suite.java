package io.glassledger.benchmark;

import io.glassledger.client.GlassLedgerClient;
import io.glassledger.client.VerifierStats;
import io.glassledger.verify.crypto.SigningKey;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The GlassDB benchmark (§4, §5) against real ledger-server processes on loopback: {@code benchmark/run ycsb} runs a
 * grid of YCSB windows, {@code benchmark/run tpcc} verified TPC-C, and {@code benchmark/run all} the representative
 * set that benchmark/RESULTS.md charts. Each cluster configuration (shards, persist interval, batching) is one set of
 * server processes, preloaded once; each window (workload, Zipf θ, clients, delay, deferred verification) gets a
 * client of its own. Every promise of every window must verify, or the run fails.
 */
public final class Suite {
    private static final PrintStream OUT = System.out;

    /** A cluster configuration, the records preloaded, and the windows run on it, in order. */
    record Grid(Ycsb.ClusterSpec spec, int keys, List<Ycsb.Window> windows) {
    }

    record Options(String command, boolean quick, Path dir, int keys, int keyBytes, int valueBytes, double warmup,
                   double ramp, double seconds, List<Integer> shards, List<Long> persistMs, List<Boolean> batching,
                   List<String> workloads, List<Double> zipf, List<Integer> clients, List<Long> delayMs,
                   List<Boolean> deferred, String sweep, int warehouses, int items, int customers) {

        static Options parse(String command, String[] args) {
            boolean quick = List.of(args).contains("--quick");
            Path dir = Path.of(System.getProperty("glassledger.bench.dir", "benchmark/work/suite"));
            int keys = quick ? 2_000 : 100_000;
            int keyBytes = 32;
            int valueBytes = 128;
            double warmup = quick ? 3 : 60;
            double ramp = quick ? 1 : 3;
            double seconds = quick ? 2 : 15;
            List<Integer> shards = List.of(1);
            List<Long> persist = List.of(100L);
            List<Boolean> batching = List.of(true);
            List<String> workloads = List.of(command.equals("tpcc") ? "tpcc" : "x");
            List<Double> zipf = List.of(0.0);
            List<Integer> clients = List.of(command.equals("tpcc") ? 16 : 64);
            List<Long> delay = List.of(100L);
            List<Boolean> deferred = List.of(true);
            String sweep = command.equals("tpcc") ? "tpcc" : "custom";
            int warehouses = quick ? 1 : 2;
            int items = quick ? 1_000 : 10_000;
            int customers = quick ? 30 : 300;
            for (int i = 0; i < args.length; i++) {
                String f = args[i];
                switch (f) {
                    case "--quick" -> {
                    }
                    case "--dir" -> dir = Path.of(Args.value(args, ++i));
                    case "--keys" -> keys = (int) Args.number(f, Args.value(args, ++i), 100, 20_000_000);
                    case "--key-bytes" -> keyBytes = (int) Args.number(f, Args.value(args, ++i), 16, 1024);
                    case "--value-bytes" -> valueBytes = (int) Args.number(f, Args.value(args, ++i), 1, 100_000);
                    case "--warmup" -> warmup = Args.decimal(f, Args.value(args, ++i), 0, 3600);
                    case "--ramp" -> ramp = Args.decimal(f, Args.value(args, ++i), 0, 3600);
                    case "--seconds" -> seconds = Args.decimal(f, Args.value(args, ++i), 0.5, 3600);
                    case "--shards" -> shards = list(f, Args.value(args, ++i), s -> (int) Args.number(f, s, 1, 16));
                    case "--persist-ms" -> persist = list(f, Args.value(args, ++i), s -> Args.number(f, s, 1, 60_000));
                    case "--batching" -> batching = onOff(f, Args.value(args, ++i));
                    case "--workload" -> workloads = list(f, Args.value(args, ++i), s -> Ycsb.Mix.named(s).name());
                    case "--zipf" -> zipf = list(f, Args.value(args, ++i), s -> Args.decimal(f, s, 0, 0.99));
                    case "--clients" -> clients = list(f, Args.value(args, ++i), s -> (int) Args.number(f, s, 1,
                            1024));
                    case "--delay-ms" -> delay = list(f, Args.value(args, ++i), s -> Args.number(f, s, 0, 60_000));
                    case "--deferred" -> deferred = onOff(f, Args.value(args, ++i));
                    case "--sweep" -> sweep = Args.value(args, ++i);
                    case "--warehouses" -> warehouses = (int) Args.number(f, Args.value(args, ++i), 1, 100);
                    case "--items" -> items = (int) Args.number(f, Args.value(args, ++i), 100, 100_000);
                    case "--customers" -> customers = (int) Args.number(f, Args.value(args, ++i), 30, 3000);
                    case "-h", "--help" -> {
                        System.err.println(USAGE);
                        System.exit(0);
                    }
                    default -> throw new IllegalArgumentException("unknown option " + f);
                }
            }
            if (command.equals("tpcc") && (clients.size() != 1 && shards.size() != 1)) {
                throw new IllegalArgumentException("tpcc takes a list of clients or of shards, not both");
            }
            return new Options(command, quick, dir.toAbsolutePath().normalize(), keys, keyBytes, valueBytes, warmup,
                    ramp, seconds, shards, persist, batching, workloads, zipf, clients, delay, deferred, sweep,
                    warehouses, items, customers);
        }

        private static <T> List<T> list(String flag, String v, Function<String, T> parse) {
            List<T> out = new ArrayList<>();
            for (String s : v.split(",")) {
                out.add(parse.apply(s.trim()));
            }
            if (out.isEmpty()) {
                throw new IllegalArgumentException(flag + " needs at least one value");
            }
            return List.copyOf(out);
        }

        private static List<Boolean> onOff(String flag, String v) {
            return switch (v) {
                case "on" -> List.of(true);
                case "off" -> List.of(false);
                case "both" -> List.of(true, false);
                default -> throw new IllegalArgumentException(flag + " takes on, off or both, got " + v);
            };
        }
    }

    static final String USAGE = """
            usage: benchmark/run ycsb [options]     a grid of YCSB windows (every list option multiplies the grid)
                   benchmark/run tpcc [options]     verified TPC-C, then its consistency conditions
                   benchmark/run all [--quick]      the representative set of benchmark/RESULTS.md, then the charts
              cluster (one set of server processes for each combination):
                --shards LIST        e.g. 1,2,3 (default 1)
                --persist-ms LIST    the servers' persist interval (default 100)
                --batching on|off|both   transaction batching (default on)
              window (one client for each combination, run one after another on the cluster):
                --workload LIST      x, y, read-heavy, balanced, write-heavy (default x)
                --zipf LIST          Zipf θ of the keys, 0 = uniform (default 0)
                --clients LIST       closed-loop client threads (default 64; tpcc 16)
                --delay-ms LIST      verification delay (default 100)
                --deferred on|off|both   off: each commit waits until its proof has verified (default on)
              sizes and times:
                --keys N             records, preloaded (default 100000; --quick 2000)
                --key-bytes N --value-bytes N   (default 32 and 128)
                --warmup S           unmeasured seconds before a cluster's first window (default 60; --quick 3)
                --ramp S             unmeasured seconds before each later window (default 3)
                --seconds S          measured seconds per window (default 15; --quick 2)
                --sweep NAME         the label the result lines carry (charts group by it)
              tpcc:
                --warehouses W (default 2)  --items N (default 10000)  --customers N per district (default 300)
            Results are JSON lines on stdout; progress on stderr. Exit 1 if any promise fails or stays pending, a
            client fails, or a TPC-C consistency condition does not hold.""";

    private static String tag = "suite";

    static void log(String fmt, Object... a) {
        System.err.printf("[" + tag + "] " + fmt + "%n", a);
    }

    public static void main(String[] args) throws Exception {
        String command = args.length == 0 ? "" : args[0];
        String[] rest = args.length == 0 ? args : java.util.Arrays.copyOfRange(args, 1, args.length);
        Options o;
        try {
            if (!List.of("ycsb", "tpcc", "all").contains(command)) {
                throw new IllegalArgumentException("unknown command '" + command + "'\n" + USAGE);
            }
            o = Options.parse(command, rest);
            WorkDir.prepare(o.dir());
        } catch (IllegalArgumentException e) {
            System.err.println("benchmark/run " + command + ": " + e.getMessage());
            System.exit(2);
            return;
        }
        tag = command;
        long t0 = System.nanoTime();
        int rc = switch (command) {
            case "ycsb" -> runGrids(o, ycsbGrids(o));
            case "tpcc" -> runTpcc(o, o.shards(), o.clients(), o.sweep());
            default -> all(o);
        };
        log("done in %.1f min, exit %d", (System.nanoTime() - t0) / 60e9, rc);
        System.exit(rc);
    }

    private static List<Grid> ycsbGrids(Options o) {
        List<Grid> grids = new ArrayList<>();
        for (int shards : o.shards()) {
            for (long persist : o.persistMs()) {
                for (boolean batching : o.batching()) {
                    List<Ycsb.Window> ws = new ArrayList<>();
                    for (String wl : o.workloads()) {
                        for (double z : o.zipf()) {
                            for (int c : o.clients()) {
                                for (long d : o.delayMs()) {
                                    for (boolean dv : o.deferred()) {
                                        ws.add(window(o, ws.isEmpty(), o.sweep(), null, wl, z, c, d, dv));
                                    }
                                }
                            }
                        }
                    }
                    grids.add(new Grid(new Ycsb.ClusterSpec(shards, persist, batching), o.keys(), ws));
                }
            }
        }
        return grids;
    }

    /**
     * A window of the set; in a quick run (the CI smoke, beside the test command on the same 2 cores) with at most
     * {@link #QUICK_CLIENTS} clients: 64 clients' TLS handshakes at once on a starved machine outlasted the
     * server's 10 s handshake timeout, and a smoke checks the path, not the saturation.
     */
    private static Ycsb.Window window(Options o, boolean first, String sweep, String config, String workload,
                                      double zipf, int clients, long delay, boolean deferred) {
        return new Ycsb.Window(sweep, config, Ycsb.Mix.named(workload), zipf,
                o.quick() ? Math.min(clients, QUICK_CLIENTS) : clients, delay, deferred,
                first ? o.warmup() : o.ramp(), o.seconds());
    }

    /** The most clients of a window in a quick run ({@link #window}). */
    static final int QUICK_CLIENTS = 16;

    /** The representative set: about 25 minutes on 2 cores; {@code --quick} a smoke of every part. */
    private static int all(Options o) throws Exception {
        List<Grid> grids = new ArrayList<>();
        Ycsb.ClusterSpec base = new Ycsb.ClusterSpec(1, 100, true);
        List<Ycsb.Window> main = new ArrayList<>();
        // The ablation first on both of its clusters, right after the same warm-up, alternating (ABAB): on 2 cores
        // the JIT is still at work after a minute, and a window measured later would look better for that alone.
        for (int rep = 0; rep < (o.quick() ? 1 : 2); rep++) {
            main.add(window(o, main.isEmpty(), "ablation", "full", "x", 0, 64, 100, true));
            main.add(window(o, false, "ablation", "no-DV", "x", 0, 64, 100, false));
        }
        main.add(window(o, false, "workloads", null, "x", 0, 64, 100, true));
        main.add(window(o, false, "workloads", null, "y", 0, 64, 100, true));
        List<String> mixes = List.of("read-heavy", "balanced", "write-heavy");
        Options brief = o.quick() ? o : timed(o, o.warmup(), 10);
        if (o.quick()) {
            main.add(window(o, false, "mix", null, "balanced", 0.9, 64, 100, true));
        } else {
            for (String m : mixes) {
                for (double z : List.of(0.0, 0.5, 0.9)) {
                    main.add(window(brief, false, "mix", null, m, z, 64, 100, true));
                }
            }
            for (int c : List.of(8, 16, 32, 64, 128)) {
                main.add(window(brief, false, "clients", null, "x", 0, c, 100, true));
            }
            for (int c : List.of(16, 64, 128)) {
                main.add(window(brief, false, "clients", null, "x", 0, c, 100, false));
            }
            main.add(window(brief, false, "shards", null, "x", 0, 64, 100, true));
        }
        grids.add(new Grid(base, o.keys(), main));
        List<Ycsb.Window> noBatching = new ArrayList<>();
        for (int rep = 0; rep < (o.quick() ? 1 : 2); rep++) {
            noBatching.add(window(o, noBatching.isEmpty(), "ablation", "no-BA", "x", 0, 64, 100, true));
            noBatching.add(window(o, false, "ablation", "no-DV no-BA", "x", 0, 64, 100, false));
        }
        grids.add(new Grid(new Ycsb.ClusterSpec(1, 100, false), o.keys(), noBatching));
        List<Integer> shardCounts = o.quick() ? List.of(2) : List.of(2, 3);
        // Several server JVMs share the 2 cores while they compile: twice the warm-up of one server.
        Options shardWarmup = o.quick() ? o : timed(o, 2 * o.warmup(), 10);
        for (int s : shardCounts) {
            grids.add(new Grid(new Ycsb.ClusterSpec(s, 100, true), o.keys(), List.of(
                    window(shardWarmup, true, "shards", null, "x", 0, 64, 100, true))));
        }
        if (!o.quick()) {
            // Figure 5(a): the delay fixed at 1,280 ms; 5(b): the persist interval fixed at 10 ms
            Options small = timed(o, 15, 6);
            int sweepKeys = Math.min(o.keys(), 10_000);
            for (long p : List.of(10L, 20L, 40L, 80L, 160L, 320L, 640L, 1280L)) {
                List<Ycsb.Window> ws = new ArrayList<>();
                for (String m : mixes) {
                    ws.add(window(small, ws.isEmpty(), "persist", null, m, 0, 64, 1280, true));
                }
                grids.add(new Grid(new Ycsb.ClusterSpec(1, p, true), sweepKeys, ws));
            }
            List<Ycsb.Window> ws = new ArrayList<>();
            for (long d : List.of(10L, 20L, 40L, 80L, 160L, 320L, 640L, 1280L)) {
                ws.add(window(timed(o, 20, 8), ws.isEmpty(), "delay", null, "balanced", 0, 64, d,
                        true));
            }
            grids.add(new Grid(new Ycsb.ClusterSpec(1, 10, true), sweepKeys, ws));
        }
        int rc = runGrids(o, grids);
        rc |= runTpcc(o, List.of(1), o.quick() ? List.of(4) : List.of(8, 16, 32), "tpcc");
        return rc;
    }

    /** {@code o} with its first-window warm-up and window length replaced (for the many short runs). */
    private static Options timed(Options o, double warmup, double seconds) {
        return new Options(o.command(), o.quick(), o.dir(), o.keys(), o.keyBytes(), o.valueBytes(), warmup, o.ramp(),
                seconds, o.shards(), o.persistMs(), o.batching(), o.workloads(), o.zipf(), o.clients(), o.delayMs(),
                o.deferred(), o.sweep(), o.warehouses(), o.items(), o.customers());
    }

    private static Path serverJar() {
        return Path.of(System.getProperty("glassledger.server.jar",
                "ledger-server/target/ledger-server-0.1.0-SNAPSHOT-exec.jar")).toAbsolutePath();
    }

    private static ServerCluster start(Options o, Ycsb.ClusterSpec spec) throws Exception {
        WorkDir.prepare(o.dir());  // keeps the marker, so that an interrupted run's leftovers are wiped next time
        log("starting %d shard(s), persist interval %d ms, batching %s", spec.shards(), spec.persistMs(),
                spec.batching() ? "on" : "off");
        List<String> args = new ArrayList<>(ServerCluster.quickArgs(o.quick()));
        args.add("--glassledger.persist-interval=" + spec.persistMs() + "ms");
        args.add("--glassledger.batching=" + spec.batching());
        return ServerCluster.start(serverJar(), o.dir(), spec.shards(), ServerCluster.heap(o.quick()), args);
    }

    private static int runGrids(Options o, List<Grid> grids) throws Exception {
        int rc = 0;
        for (Grid g : grids) {
            Ycsb.KeySpace ks = new Ycsb.KeySpace(g.keys(), o.keyBytes(), o.valueBytes());
            try (ServerCluster cluster = start(o, g.spec())) {
                SigningKey key = SigningKey.generate();
                Path state = o.dir().resolve("client-state.json");
                long t0 = System.nanoTime();
                try (GlassLedgerClient c = GlassLedgerClient.connect(cluster.client("default", key, state,
                        Duration.ofMillis(100)).build())) {
                    Ycsb.preload(c, ks);
                }
                log("preloaded %d keys in %.1f s, all verified", g.keys(), (System.nanoTime() - t0) / 1e9);
                for (Ycsb.Window w : g.windows()) {
                    rc |= window(o, cluster, g.spec(), ks, key, state, w);
                }
            } finally {
                WorkDir.prepare(o.dir());
            }
        }
        return rc;
    }

    private static int window(Options o, ServerCluster cluster, Ycsb.ClusterSpec spec, Ycsb.KeySpace ks,
                              SigningKey key, Path state, Ycsb.Window w) throws Exception {
        Duration delay = Duration.ofMillis(w.deferred() ? w.delayMs() : 0);
        try (GlassLedgerClient client = GlassLedgerClient.connect(cluster.client("default", key, state, delay)
                .build())) {
            VerifierStats vs0 = client.verifierStats();
            double cpu0 = cluster.cpuSeconds();
            Ycsb.Load load = Ycsb.run(client, ks, w);
            double cpu = cluster.cpuSeconds() - cpu0;
            long[] outcome = Ycsb.settle(load.promises, s -> log("%s", s));
            VerifierStats vs = Ycsb.delta(vs0, client.verifierStats());
            long committed = load.recorders.stream().mapToLong(r -> r.committed).sum();
            long conflicts = load.recorders.stream().mapToLong(r -> r.conflicts).sum();
            double tps = committed / w.seconds();
            boolean headline = w.mix().name().equals("x") && spec.shards() == 1 && w.deferred() && spec.batching()
                    && w.delayMs() == 100 && spec.persistMs() == 100;
            Function<JsonLine, JsonLine> common = l -> l.with("sweep", w.sweep()).with("config", w.config())
                    .with("workload", w.mix().name()).with("zipf", w.zipf()).with("clients", w.clients())
                    .with("shards", spec.shards()).with("delay_ms", w.delayMs()).with("persist_ms", spec.persistMs())
                    .with("deferred", w.deferred()).with("batching", spec.batching()).with("keys", ks.size())
                    .with("key_bytes", ks.keyBytes).with("value_bytes", ks.valueBytes).with("seconds", w.seconds());
            common.apply(JsonLine.of("ycsb", "throughput", tps, "tx/s"))
                    .with("committed", committed).with("read_only", load.recorders.stream()
                            .mapToLong(r -> r.readOnly).sum()).printTo(OUT);
            common.apply(JsonLine.of("ycsb", "abort_rate", ratio(conflicts, conflicts + committed), "ratio"))
                    .with("conflicts", conflicts).with("overloaded", load.recorders.stream()
                            .mapToLong(r -> r.overloaded).sum()).printTo(OUT);
            latency(common, "ycsb", "tx", merged(load, r -> r.tx));
            latency(common, "ycsb", "read", merged(load, r -> r.read));
            latency(common, "ycsb", "commit", merged(load, r -> r.commit));
            latency(common, "ycsb", "history", merged(load, r -> r.history));
            latency(common, "ycsb", "verify", load.verify.values());
            common.apply(JsonLine.of("ycsb", "proof_bytes_per_key", ratio(vs.proofBytes(), vs.claims()), "bytes"))
                    .with("proof_bytes", vs.proofBytes()).with("claims", vs.claims())
                    .with("batches", vs.batches()).with("append_only_bytes", vs.appendOnlyBytes()).printTo(OUT);
            common.apply(JsonLine.of("ycsb", "server_cpu_us_per_tx", cpu / committed * 1e6, "us"))
                    .printTo(OUT);
            outcome(common, "ycsb", outcome);
            log("%s%s zipf %.1f, %d clients, delay %d ms%s: %.0f tx/s, abort rate %.3f; verified %d, failed %d, "
                    + "pending %d", w.mix().name(), w.config() == null ? "" : " (" + w.config() + ")", w.zipf(),
                    w.clients(), w.delayMs(), w.deferred() ? "" : ", no DV", tps,
                    ratio(conflicts, conflicts + committed), outcome[0], outcome[1], outcome[2]);
            if (load.error != null) {
                log("a client failed: %s", load.error);
                return 1;
            }
            if (committed == 0) {
                // On 2 shared cores a quick window (2 s, 64 clients) can be shorter than one transaction of a
                // history-heavy mix: none then completes inside it. The window still did work if any committed.
                log("no commit completed inside the measured %.0f s (%d in the whole window, warm-up and drain "
                        + "included)", w.seconds(), load.anyCommitted.sum());
            }
            return outcome[1] == 0 && outcome[2] == 0 && load.anyCommitted.sum() > 0 ? 0 : 1;
        }
    }

    /** A latency line: the median in ms, with p95, p99 and the sample count; nothing for an empty sample. */
    private static void latency(Function<JsonLine, JsonLine> common, String bench, String op, long[] ns) {
        if (ns.length == 0) {
            return;
        }
        Stats s = Stats.ofLongs(ns);
        common.apply(JsonLine.of(bench, "latency", s.median() / 1e6, "ms")).with("op", op)
                .with("p95", s.quantile(0.95) / 1e6).with("p99", s.quantile(0.99) / 1e6).with("n", s.count())
                .printTo(OUT);
    }

    private static long[] merged(Ycsb.Load load, Function<Ycsb.Recorder, Ycsb.Latencies> which) {
        return Ycsb.Latencies.merge(load.recorders.stream().map(which).toList());
    }

    private static void outcome(Function<JsonLine, JsonLine> common, String bench, long[] o) {
        common.apply(JsonLine.of(bench, "verified", o[0], "promises")).printTo(OUT);
        common.apply(JsonLine.of(bench, "verify_failed", o[1], "promises")).printTo(OUT);
        common.apply(JsonLine.of(bench, "verify_pending", o[2], "promises")).printTo(OUT);
    }

    private static int runTpcc(Options o, List<Integer> shardsList, List<Integer> clientsList, String sweep)
            throws Exception {
        int rc = 0;
        tag = "tpcc";
        Tpcc.Scale scale = new Tpcc.Scale(o.warehouses(), o.items(), o.customers());
        for (int shards : shardsList) {
            Ycsb.ClusterSpec spec = new Ycsb.ClusterSpec(shards, o.persistMs().get(0), o.batching().get(0));
            long delay = o.delayMs().get(0);
            try (ServerCluster cluster = start(o, spec)) {
                SigningKey key = SigningKey.generate();
                Path state = o.dir().resolve("client-state.json");
                long t0 = System.nanoTime();
                try (GlassLedgerClient c = GlassLedgerClient.connect(cluster.client("default", key, state,
                        Duration.ofMillis(100)).build())) {
                    long n = new Tpcc(c, scale).load(s -> log("%s", s));
                    log("loaded %d warehouse(s), %d keys in %.1f s, all verified", scale.warehouses(), n,
                            (System.nanoTime() - t0) / 1e9);
                }
                boolean first = true;
                for (int clients : clientsList) {
                    try (GlassLedgerClient client = GlassLedgerClient.connect(cluster.client("default", key, state,
                            Duration.ofMillis(delay)).build())) {
                        Tpcc t = new Tpcc(client, scale);
                        double cpu0 = cluster.cpuSeconds();
                        Tpcc.Load load = t.run(clients, first ? o.warmup() : o.ramp(), o.seconds());
                        double cpu = cluster.cpuSeconds() - cpu0;
                        first = false;
                        long[] outcome = Ycsb.settle(load.promises, s -> log("%s", s));
                        Function<JsonLine, JsonLine> common = l -> l.with("sweep", sweep).with("workload", "tpcc")
                                .with("clients", clients).with("shards", shards).with("delay_ms", delay)
                                .with("persist_ms", spec.persistMs()).with("deferred", true)
                                .with("batching", spec.batching()).with("warehouses", scale.warehouses())
                                .with("seconds", o.seconds());
                        long newOrders = load.committed.get(0);
                        long all = 0;
                        long conflicts = 0;
                        for (int i = 0; i < Tpcc.TYPES.size(); i++) {
                            all += load.committed.get(i);
                            conflicts += load.conflicts.get(i);
                        }
                        common.apply(JsonLine.of("tpcc", "tpmC", newOrders / o.seconds() * 60, "tpmC"))
                                .with("new_orders", newOrders).with("rolled_back", load.rolledBack.get())
                                .printTo(OUT);
                        common.apply(JsonLine.of("tpcc", "throughput", all / o.seconds(), "tx/s"))
                                .with("committed", all).printTo(OUT);
                        common.apply(JsonLine.of("tpcc", "abort_rate", ratio(conflicts, conflicts + all), "ratio"))
                                .with("conflicts", conflicts).printTo(OUT);
                        for (int i = 0; i < Tpcc.TYPES.size(); i++) {
                            int type = i;
                            latency(l -> common.apply(l).with("conflicts", load.conflicts.get(type)), "tpcc",
                                    Tpcc.TYPES.get(i), load.latency[i].values());
                        }
                        common.apply(JsonLine.of("tpcc", "server_cpu_us_per_tx", cpu / all * 1e6, "us"))
                                .printTo(OUT);
                        VerifierStats vs = client.verifierStats();
                        common.apply(JsonLine.of("tpcc", "proof_bytes_per_key", ratio(vs.proofBytes(), vs.claims()),
                                "bytes")).printTo(OUT);
                        outcome(common, "tpcc", outcome);
                        log("%d clients: %.0f tpmC (%.0f tx/s), abort rate %.3f; verified %d, failed %d, pending %d",
                                clients, newOrders / o.seconds() * 60, all / o.seconds(),
                                ratio(conflicts, conflicts + all), outcome[0], outcome[1], outcome[2]);
                        if (load.error != null) {
                            log("a terminal failed: %s", load.error);
                            rc = 1;
                        }
                        rc |= outcome[1] == 0 && outcome[2] == 0 && newOrders > 0 ? 0 : 1;
                    }
                }
                try (GlassLedgerClient client = GlassLedgerClient.connect(cluster.client("default", key, state,
                        Duration.ofMillis(100)).build())) {
                    List<String> bad = new Tpcc(client, scale).check(s -> log("%s", s));
                    JsonLine.of("tpcc", "consistency_violations", bad.size(), "conditions")
                            .with("sweep", sweep).with("shards", shards).with("warehouses", scale.warehouses())
                            .printTo(OUT);
                    for (String b : bad.subList(0, Math.min(10, bad.size()))) {
                        log("consistency violation: %s", b);
                    }
                    rc |= bad.isEmpty() ? 0 : 1;
                    // Negative control: a database broken on purpose must fail the same check.
                    Tpcc t = new Tpcc(client, scale);
                    t.corrupt();
                    List<String> caught = t.check(s -> log("negative control: %s", s));
                    boolean ok = caught.stream().anyMatch(b -> b.contains("(condition 1)"))
                            && caught.stream().anyMatch(b -> b.contains("(conditions 3, 4)"));
                    JsonLine.of("tpcc", "consistency_negative_control", caught.size(), "conditions")
                            .with("sweep", sweep).with("shards", shards).with("caught", ok).printTo(OUT);
                    if (!ok) {
                        log("the consistency check missed a database broken on purpose: %s", caught);
                        rc = 1;
                    }
                }
            } finally {
                WorkDir.prepare(o.dir());
            }
        }
        return rc;
    }

    private static double ratio(double a, double b) {
        return b == 0 ? 0 : a / b;
    }

    private Suite() {
    }
}
