package io.glassledger.benchmark;

import io.glassledger.api.PinnedTrustManager;
import io.glassledger.client.ClientConfig;
import io.glassledger.client.CommitPromise;
import io.glassledger.client.GlassLedgerClient;
import io.glassledger.verify.crypto.SigningKey;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * {@code benchmark/run replication} (issue 20): workload X against one shard replicated by a Raft group of three
 * server processes on loopback, and against one unreplicated server, with every promise verified by the SDK.
 * <ol>
 *   <li><b>Overhead</b>: windows against the single server and the group, alternately (A-B-A-B), the same load;
 *       {@code overhead} = 1 − (group rate ÷ single rate), medians of the rounds; with each process's CPU per
 *       transaction.</li>
 *   <li><b>GlassDB's Figure 9</b>: throughput per second over time against the group; the leader is killed with
 *       SIGKILL at 40 s and started again at 60 s, to 100 s. {@code recovery_seconds}: the end of the first second
 *       after the kill whose rate is back at 90 % of the median rate of the ten seconds before it.
 *       {@code acked_lost}: acknowledged commits whose promise did not verify (their writes are not in the group's
 *       ledger as promised). The replicas' signed heads are then compared at every block.</li>
 * </ol>
 * On this 2-core machine the three replicas share the cores with each other and with the client.
 */
public final class ReplicationBenchmark {
    private static final PrintStream OUT = System.out;
    private static final String BENCH = "replication";

    record Options(int keys, int clients, int rounds, double windowSeconds, double warmupSeconds, double killAt,
                   double restartAt, double endAt, Path dir, Path chart, boolean quick, boolean killFollower) {
        static Options parse(String[] args) {
            boolean quick = List.of(args).contains("--quick");
            // --quick, the CI smoke: one window of each, and a timeline of 8 s with 3 s of load before the kill (the
            // restarted replica's catch-up is waited for after it, before the replicas are compared)
            int keys = quick ? 2_000 : 100_000;
            int clients = 64;
            int rounds = quick ? 1 : 2;
            double window = quick ? 2 : 15;
            double warmup = quick ? 1 : 20;
            double kill = quick ? 3 : 40;
            double restart = quick ? 5 : 60;
            double end = quick ? 8 : 100;
            Path dir = Path.of(System.getProperty("glassledger.bench.dir", "benchmark/work/replication"));
            Path chart = null;
            boolean killFollower = false;
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--quick" -> {
                    }
                    case "--keys" -> keys = (int) Args.number(args[i], Args.value(args, ++i), 1000, 10_000_000);
                    case "--clients" -> clients = (int) Args.number(args[i], Args.value(args, ++i), 1, 1024);
                    case "--rounds" -> rounds = (int) Args.number(args[i], Args.value(args, ++i), 1, 20);
                    case "--window" -> window = Args.decimal(args[i], Args.value(args, ++i), 1, 600);
                    case "--dir" -> dir = Path.of(Args.value(args, ++i));
                    case "--chart" -> chart = Path.of(Args.value(args, ++i));
                    case "--kill" -> {
                        String which = Args.value(args, ++i);
                        if (!which.equals("leader") && !which.equals("follower")) {
                            throw new IllegalArgumentException("--kill leader|follower, not " + which);
                        }
                        killFollower = which.equals("follower");
                    }
                    case "-h", "--help" -> {
                        System.err.println("""
                                usage: benchmark/run replication [--quick] [--keys N] [--clients C] [--rounds R] [--window S] [--kill leader|follower]
                                  workload X against a Raft group of 3 replicas and a single server on loopback:
                                  the replication overhead (alternating windows of S seconds, R rounds; default
                                  2 x 15 s), then GlassDB's Figure 9: throughput per second with the leader killed
                                  at 40 s and restarted at 60 s, to 100 s (--quick: 3, 5, 8 s), and its chart;
                                  --kill follower kills a follower instead (a diagnostic: recovery_seconds then
                                  says whether two replicas keep the rate of three)""");
                        System.exit(0);
                    }
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            return new Options(keys, clients, rounds, window, warmup, kill, restart, end,
                    dir.toAbsolutePath().normalize(), chart, quick, killFollower);
        }
    }

    public static void main(String[] args) throws Exception {
        Options o;
        try {
            o = Options.parse(args);
            WorkDir.prepare(o.dir());
        } catch (IllegalArgumentException e) {
            System.err.println("benchmark/run replication: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.exit(new ReplicationBenchmark().run(o));
    }

    private static void log(String fmt, Object... a) {
        System.err.printf("[replication] " + fmt + "%n", a);
    }

    int run(Options o) throws Exception {
        Path jar = Path.of(System.getProperty("glassledger.server.jar",
                "ledger-server/target/ledger-server-0.1.0-SNAPSHOT-exec.jar")).toAbsolutePath();
        List<String> common = new ArrayList<>(ServerCluster.quickArgs(o.quick()));
        common.addAll(List.of("--logging.level.root=WARN", "--logging.level.io.glassledger.server.StartupReport=INFO"));
        List<String> heap = o.quick() ? List.of("-Xms256m", "-Xmx512m", ServerCluster.C1_ONLY)
                : List.of("-Xms1g", "-Xmx1g");
        Workload data = new Workload(o.keys(), 42);
        // The single server starts while the group does.
        CompletableFuture<ServerProcess> singleStart = ServerProcess.startAsync(jar, o.dir().resolve("single"), heap,
                common, 0);
        ReplicaGroup started;
        try {
            started = new ReplicaGroup(jar, o.dir().resolve("group"), heap, common);
        } catch (Exception e) {
            try {
                ServerProcess.started(singleStart).close();
            } catch (IOException ignored) {
                // it did not start either
            }
            throw e;
        }
        try (ReplicaGroup group = started; ServerProcess single = ServerProcess.started(singleStart)) {
            log("single server %s; group %s", single.url, group.urls);
            ServerProcess first = group.servers[0];
            HttpClient http = HttpClient.newBuilder().sslContext(PinnedTrustManager.sslContext(first.fingerprint))
                    .connectTimeout(Duration.ofSeconds(2)).build();
            String key = first.apiKey("default");
            ClientConfig singleCfg = ClientConfig.builder().url(URI.create(single.url))
                    .apiKey(single.apiKey("default")).pinnedCertSha256(single.fingerprint)
                    .signingKey(SigningKey.generate()).stateFile(o.dir().resolve("single-client.json"))
                    .verifyDelay(Duration.ofMillis(100)).build();
            ClientConfig groupCfg = ClientConfig.builder().replicas(List.of(group.urls)).apiKey(key)
                    .pinnedCertSha256(first.fingerprint).signingKey(SigningKey.generate())
                    .stateFile(o.dir().resolve("group-client.json")).verifyDelay(Duration.ofMillis(100)).build();
            ShardReplicas replicas = new ShardReplicas(http, key, group.urls, "azE=");
            leader(replicas, Duration.ofSeconds(60));
            try (GlassLedgerClient one = GlassLedgerClient.connect(singleCfg);
                 GlassLedgerClient three = GlassLedgerClient.connect(groupCfg)) {
                ServiceBenchmark.preload(one, data, 10, o.clients());
                ServiceBenchmark.preload(three, data, 10, o.clients());
                int rc = overhead(o, data, one, three, single, group);
                rc |= figure9(o, data, three, group, http, replicas);
                return rc;
            }
        } finally {
            WorkDir.deleteTree(o.dir());
        }
    }

    /** Alternating windows, single then group, {@code rounds} times; medians. */
    private int overhead(Options o, Workload data, GlassLedgerClient one, GlassLedgerClient three,
                         ServerProcess single, ReplicaGroup group) throws Exception {
        List<Double> r1 = new ArrayList<>();
        List<Double> r3 = new ArrayList<>();
        List<Double> cpu1 = new ArrayList<>();
        List<List<Double>> cpu3 = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        int failed = 0;
        long unverifiedWindows = 0;
        for (int round = 0; round < o.rounds(); round++) {
            for (int which = 0; which < 2; which++) {
                boolean replicated = round % 2 == 0 ? which == 1 : which == 0;  // A-B, then B-A
                GlassLedgerClient client = replicated ? three : one;
                List<ServerProcess> procs = replicated ? List.of(group.servers) : List.of(single);
                ServiceBenchmark.Load load = start(o, data, client);
                Thread.sleep((long) (o.warmupSeconds() * 1000));
                List<Double> cpu0 = new ArrayList<>();
                for (ServerProcess sp : procs) {
                    cpu0.add(sp.cpuSeconds());
                }
                long c0 = load.committed.get();
                long t0 = System.nanoTime();
                load.measuring = true;
                Thread.sleep((long) (o.windowSeconds() * 1000));
                load.measuring = false;
                double secs = (System.nanoTime() - t0) / 1e9;
                long n = load.committed.get() - c0;
                double rate = n / secs;
                List<Double> cpuPerTx = new ArrayList<>();
                for (int i = 0; i < procs.size(); i++) {
                    cpuPerTx.add((procs.get(i).cpuSeconds() - cpu0.get(i)) / n * 1e6);
                }
                failed += stop(load);
                unverifiedWindows += unverified(load);
                (replicated ? r3 : r1).add(rate);
                if (replicated) {
                    for (int i = 0; i < 3; i++) {
                        cpu3.get(i).add(cpuPerTx.get(i));
                    }
                } else {
                    cpu1.add(cpuPerTx.get(0));
                }
                log("round %d, %s: %.0f tx/s, server CPU per tx %s us", round, replicated ? "3 replicas" : "1 server",
                        rate, cpuPerTx.stream().map(c -> String.format("%.0f", c)).toList());
            }
        }
        double m1 = median(r1);
        double m3 = median(r3);
        double c1 = median(cpu1);
        List<Double> perReplica = cpu3.stream().map(ReplicationBenchmark::median).toList();
        double leaderCpu = perReplica.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        JsonLine.of(BENCH, "overhead", 1 - m3 / m1, "ratio").with("r3_tx_per_s", m3).with("r1_tx_per_s", m1)
                .with("rounds", o.rounds()).with("window_s", o.windowSeconds()).with("clients", o.clients())
                .printTo(OUT);
        // With a core per replica the group is bounded by its busiest replica (the leader) alone, the single server
        // by itself: the overhead would be 1 - (single's CPU per tx / the leader's).
        JsonLine.of(BENCH, "cpu_us_per_tx", leaderCpu, "us").with("single_server", c1)
                .with("replica_0", perReplica.get(0)).with("replica_1", perReplica.get(1))
                .with("replica_2", perReplica.get(2))
                .with("group_total", perReplica.stream().mapToDouble(Double::doubleValue).sum())
                .with("overhead_core_per_replica", 1 - c1 / leaderCpu).printTo(OUT);
        log("overhead %.3f (3 replicas %.0f tx/s, 1 server %.0f tx/s); CPU per tx: 1 server %.0f us, replicas %s us;"
                + " with a core per replica the overhead would be %.3f", 1 - m3 / m1, m3, m1, c1,
                perReplica.stream().map(c -> String.format("%.0f", c)).toList(), 1 - c1 / leaderCpu);
        JsonLine.of(BENCH, "verify_failed", unverifiedWindows, "promises").with("part", "overhead").printTo(OUT);
        return failed == 0 && unverifiedWindows == 0 ? 0 : 1;
    }

    /** The timeline: the leader killed at {@code killAt}, restarted at {@code restartAt}. */
    private int figure9(Options o, Workload data, GlassLedgerClient client, ReplicaGroup group, HttpClient http,
                        ShardReplicas replicas) throws Exception {
        ServiceBenchmark.Load load = start(o, data, client);
        Thread.sleep((long) (o.warmupSeconds() * 1000));
        load.measuring = true;  // every promise from here on is checked
        long t0 = System.nanoTime();
        Thread lag = lagLogger(group, http, group.servers[0].apiKey("admin"), t0, o.endAt());
        List<long[]> samples = new ArrayList<>();  // (nanos since t0, commits so far)
        long c0 = load.committed.get();
        boolean killed = false;
        boolean restarted = false;
        Thread restarter = null;
        int leader = -1;
        double killedAt = Double.NaN;
        while (true) {
            double t = (System.nanoTime() - t0) / 1e9;
            samples.add(new long[] {System.nanoTime() - t0, load.committed.get() - c0});
            if (!killed && t >= o.killAt()) {
                leader = leader(replicas, Duration.ofSeconds(10));
                if (o.killFollower()) {
                    leader = (leader + 1) % group.urls.size();  // the replica killed and restarted: a follower
                }
                group.kill(leader);
                killedAt = (System.nanoTime() - t0) / 1e9;
                killed = true;
                log("killed the %s, replica %d, at %.2f s", o.killFollower() ? "follower" : "leader", leader,
                        killedAt);
            } else if (killed && !restarted && t >= o.restartAt()) {
                // In the background: the timeline goes on being sampled while the JVM starts.
                int r = leader;
                restarter = new Thread(() -> {
                    try {
                        group.restart(r);
                        log("replica %d listening again at %.2f s", r, (System.nanoTime() - t0) / 1e9);
                    } catch (Exception e) {
                        log("replica %d did not restart: %s", r, e);
                    }
                }, "restart");
                restarter.start();
                restarted = true;
                log("restarting replica %d at %.2f s", leader, (System.nanoTime() - t0) / 1e9);
            } else if (t >= o.endAt()) {
                break;
            }
            Thread.sleep(50);
        }
        int failed = stop(load);
        lag.interrupt();
        if (restarter != null) {
            restarter.join(180_000);
        }
        int seconds = (int) Math.floor(o.endAt());
        double[] perSecond = new double[seconds];
        for (int s = 0; s < seconds; s++) {
            perSecond[s] = commitsBetween(samples, s, s + 1);
            JsonLine.of(BENCH + ".timeline", "tx_per_s", perSecond[s], "tx/s").with("second", s).printTo(OUT);
        }
        List<Double> before = new ArrayList<>();
        for (double s = Math.max(0, killedAt - 10); s + 1 <= killedAt; s += 1) {
            before.add(commitsBetween(samples, s, s + 1));
        }
        double preKill = median(before);
        double recovery = Double.NaN;
        for (double s = killedAt; s + 1 <= o.endAt(); s += 0.1) {
            if (commitsBetween(samples, s, s + 1) >= 0.9 * preKill) {
                recovery = s + 1 - killedAt;
                break;
            }
        }
        JsonLine.of(BENCH, "recovery_seconds", recovery, "s").with("pre_kill_tx_per_s", preKill)
                .with("killed_at_s", killedAt).with("killed", o.killFollower() ? "follower" : "leader")
                .with("replica", leader).printTo(OUT);
        // Acknowledged commits lost: promises that did not verify against the group's ledger.
        long lost = unverified(load);
        long verified = load.promises.size() - lost;
        JsonLine.of(BENCH, "acked_lost", lost, "commits").with("verified", verified).printTo(OUT);
        long differing = compareReplicas(replicas);
        JsonLine.of(BENCH, "replicas_differing_blocks", differing, "blocks").printTo(OUT);
        log("pre-kill %.0f tx/s; back at 90%% %.1f s after the kill; %d acknowledged commits verified, %d lost; "
                + "%d blocks differ between replicas", preKill, recovery, verified, lost, differing);
        if (o.chart() != null) {
            chart(perSecond, killedAt, o.restartAt(), o.chart(), o.killFollower() ? "a follower" : "the leader");
            log("chart: %s", o.chart());
        }
        return failed == 0 && lost == 0 && differing == 0 ? 0 : 1;
    }

    private static double commitsBetween(List<long[]> samples, double from, double to) {
        return at(samples, to) - at(samples, from);
    }

    /** Commits by time {@code t} (seconds), interpolated between samples. */
    private static double at(List<long[]> samples, double t) {
        long nanos = (long) (t * 1e9);
        long[] prev = samples.get(0);
        for (long[] s : samples) {
            if (s[0] >= nanos) {
                if (s[0] == prev[0]) {
                    return s[1];
                }
                return prev[1] + (double) (s[1] - prev[1]) * (nanos - prev[0]) / (s[0] - prev[0]);
            }
            prev = s;
        }
        return prev[1];
    }

    /** Waits for every replica to reach the same head, then compares their signed heads at every block. */
    private static long compareReplicas(ShardReplicas replicas) throws Exception {
        ShardReplicas.Comparison c = replicas.compareSignedHeads(Integer.MAX_VALUE, Duration.ofSeconds(60));
        if (c == null) {
            log("the replicas did not reach one head within 60 s");
            return Long.MAX_VALUE;
        }
        log("compared the %d blocks of the three replicas", c.head());
        return c.differing();
    }

    /** The replica that answers a latest read: only the leader does. */
    private static int leader(ShardReplicas replicas, Duration within) throws InterruptedException {
        int l = replicas.awaitLeader(within);
        if (l < 0) {
            throw new IllegalStateException("no leader within " + within);
        }
        return l;
    }

    private static ServiceBenchmark.Load start(Options o, Workload data, GlassLedgerClient client) {
        ServiceBenchmark.Load load = new ServiceBenchmark.Load();
        // The recovery part kills the leader: until the two left elect one, a transaction is refused and re-run.
        load.awaitLeader = true;
        for (int i = 0; i < o.clients(); i++) {
            long seed = 7000 + i;
            Thread t = new Thread(() -> ServiceBenchmark.clientLoop(client, data, load, seed, null), "x-client-" + i);
            t.setDaemon(true);
            load.threads.add(t);
            t.start();
        }
        return load;
    }

    /**
     * Logs, once a second through the timeline, each replica's head block, writes not yet persisted and queue depth
     * (its Prometheus gauges): where a replica lags, and how far the new leader is behind when it takes over.
     */
    private static Thread lagLogger(ReplicaGroup group, HttpClient http, String adminKey, long t0, double endAt) {
        java.util.regex.Pattern gauge = java.util.regex.Pattern.compile(
                "(?m)^glassledger_(head_block|unpersisted_writes|queue_depth)\\{[^}]*\\} ([0-9.E+-]+)$");
        Thread t = new Thread(() -> {
            for (int second = 0; second <= endAt + 5 && !Thread.currentThread().isInterrupted(); second++) {
                StringBuilder line = new StringBuilder();
                for (int r = 0; r < group.urls.size(); r++) {
                    String text;
                    try {
                        HttpResponse<String> resp = http.send(HttpRequest.newBuilder(URI.create(
                                group.servers[r].managementUrl + "/actuator/prometheus"))
                                .header("Authorization", "Bearer " + adminKey)
                                .timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.ofString());
                        java.util.regex.Matcher m = gauge.matcher(resp.body());
                        java.util.Map<String, Long> g = new java.util.TreeMap<>();
                        while (m.find()) {
                            g.put(m.group(1), (long) Double.parseDouble(m.group(2)));
                        }
                        text = "head " + g.get("head_block") + " unpersisted " + g.get("unpersisted_writes")
                                + " queued " + g.get("queue_depth");
                    } catch (IOException e) {
                        text = "down";
                    } catch (InterruptedException e) {
                        return;
                    }
                    line.append(String.format("  r%d: %s", r, text));
                }
                log("t=%.1f s%s", (System.nanoTime() - t0) / 1e9, line);
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "lag-logger");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Stops the load: 1 if a client failed, else 0. */
    private static int stop(ServiceBenchmark.Load load) throws InterruptedException {
        load.stop = true;
        for (Thread t : load.threads) {
            t.join(60_000);
        }
        if (load.error != null) {
            log("a client failed: %s", load.error);
            return 1;
        }
        return 0;
    }

    /** Promises of the measured part that did not verify within two minutes (each its own wait). */
    private static long unverified(ServiceBenchmark.Load load) {
        long bad = 0;
        for (CommitPromise p : load.promises) {
            try {
                p.verification().get(120, TimeUnit.SECONDS);
            } catch (Exception e) {
                bad++;
                if (bad <= 5) {
                    log("promise %s did not verify: %s", p.txId().hex(), e.getCause() != null ? e.getCause() : e);
                }
            }
        }
        return bad;
    }

    private static double median(List<Double> xs) {
        if (xs.isEmpty()) {
            return Double.NaN;
        }
        List<Double> s = new ArrayList<>(xs);
        s.sort(Double::compare);
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    private static void chart(double[] perSecond, double killedAt, double restartAt, Path png, String killed)
            throws IOException {
        System.setProperty("java.awt.headless", "true");
        XYChart chart = new XYChartBuilder().width(900).height(450)
                .title("Workload X, one shard of 3 replicas: " + killed + " killed at " + Math.round(killedAt)
                        + " s, restarted at " + Math.round(restartAt) + " s").xAxisTitle("time (s)")
                .yAxisTitle("committed transactions per second").build();
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setLegendVisible(false);
        List<Double> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        for (int s = 0; s < perSecond.length; s++) {
            xs.add(s + 0.5);
            ys.add(perSecond[s]);
        }
        chart.addSeries("tx/s", xs, ys).setMarker(SeriesMarkers.NONE);
        double top = ys.stream().mapToDouble(Double::doubleValue).max().orElse(1) * 1.1;
        chart.addSeries("kill", List.of(killedAt, killedAt), List.of(0.0, top)).setMarker(SeriesMarkers.NONE)
                .setLineColor(java.awt.Color.RED);
        chart.addSeries("restart", List.of(restartAt, restartAt), List.of(0.0, top)).setMarker(SeriesMarkers.NONE)
                .setLineColor(java.awt.Color.GRAY);
        Path dir = png.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
    }
}
