package io.glassledger.benchmark;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.glassledger.client.ClientConfig;
import io.glassledger.client.GlassLedgerClient;
import io.glassledger.client.IntegrityViolation;
import io.glassledger.client.PromiseOverdue;
import io.glassledger.client.VerifierStats;
import io.glassledger.verify.crypto.SigningKey;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * {@code benchmark/run failover} (issue 31, "No false accusation, ever"): replicated clusters of real server
 * processes run by the launcher ({@code ./glassledger cluster start --shards N --replicas 3}), written to by several
 * threads of one SDK client with a short promise deadline (about a second), while a seeded generator kills members
 * with SIGKILL in the ways {@link FailoverFaults} lists. The servers are honest, so the SDK must never report an
 * {@link IntegrityViolation}: a promise not proven in time during a failover is overdue ({@link PromiseOverdue}) and
 * proven later. Afterwards every acknowledged promise must verify and every acknowledged write read back as written.
 * Exit status 1 if anything was lost, a violation was reported, a promise stayed unverified, or a fault did not
 * recover; each violation's evidence goes to stderr and to {@code violations.jsonl} in the cluster's directory, which
 * is then kept, with the members' logs.
 */
public final class FailoverBenchmark {
    private static final PrintStream OUT = System.out;
    private static final String BENCH = "failover";
    private static final List<FailoverFaults.Kind> ALL = List.of(FailoverFaults.Kind.values());

    /** {@code shards} x 3 replicas. */
    record Layout(int shards) {
        static Layout parse(String s) {
            String[] f = s.trim().split("x");
            if (f.length != 2 || !f[1].equals("3")) {
                throw new IllegalArgumentException("--layout takes SHARDSx3 (three replicas a shard), not " + s);
            }
            return new Layout((int) Args.number("--layout", f[0], 1, 8));
        }

        @Override
        public String toString() {
            return shards + "x3";
        }
    }

    record Options(List<Layout> layouts, Integer faults, long seed, int writers, double crossShare,
                   double warmupSeconds, double pauseMin, double pauseMax, FailoverFaults.Timing timing,
                   boolean loadDuringStarts, Path dir, Path launcher, boolean quick) {
        static Options parse(String[] args) {
            boolean quick = List.of(args).contains("--quick");
            // --quick, the CI smoke: 2x3 only. Its load has single-shard transactions (70%) beside the cross-shard
            // ones, so a 1x3 cluster's run would go through no path this one does not.
            List<Layout> layouts = quick ? List.of(new Layout(2)) : List.of(new Layout(1), new Layout(2));
            Integer faults = null;
            long seed = new java.security.SecureRandom().nextLong();
            int writers = quick ? 6 : 12;
            // --quick: the quorum down 3 s, three times the ~1 s promise deadline; no warm-up beyond the wait every run
            // has, until the writers' transactions are acknowledged.
            double quorumDown = quick ? 3 : 60;
            double warmup = quick ? 0 : 10;
            boolean loadDuringStarts = false;
            Path dir = Path.of(System.getProperty("glassledger.bench.dir", "benchmark/work/failover"));
            Path launcher = Path.of(System.getProperty("glassledger.launcher", "glassledger"));
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--quick" -> {
                    }
                    case "--layout" -> layouts = List.of(Args.value(args, ++i).split(",")).stream()
                            .map(Layout::parse).toList();
                    case "--faults" -> faults = (int) Args.number(args[i], Args.value(args, ++i), 0, 1000);
                    case "--seed" -> seed = Args.number(args[i], Args.value(args, ++i), Long.MIN_VALUE,
                            Long.MAX_VALUE);
                    case "--writers" -> writers = (int) Args.number(args[i], Args.value(args, ++i), 1, 256);
                    case "--quorum-down" -> quorumDown = Args.decimal(args[i], Args.value(args, ++i), 1, 3600);
                    case "--warmup" -> warmup = Args.decimal(args[i], Args.value(args, ++i), 0, 3600);
                    case "--load-during-starts" -> loadDuringStarts = true;
                    case "--dir" -> dir = Path.of(Args.value(args, ++i));
                    case "-h", "--help" -> {
                        System.err.println("""
                                usage: benchmark/run failover [--quick] [--layout 1x3,2x3] [--faults N] [--seed S]
                                [--writers W] [--quorum-down SECONDS] [--warmup SECONDS]
                                [--load-during-starts] [--dir PATH]
                                  replicated clusters started by ./glassledger cluster start (SHARDSx3: each shard a
                                  Raft group of 3), written to by W threads of one SDK client (promise deadline about
                                  1 s: persist interval 100 ms x 10), while members are killed with SIGKILL, N faults
                                  per layout chosen by a seeded generator (the seed is logged; --seed S replays):
                                    leader_after_sign    the leader, the moment its signed head advances
                                    leader_after_return  a follower down for a while, then the leader as soon as the
                                                         follower is back (ready, or caught up)
                                    follower             a follower, restarted after a pause
                                    pair                 two members (the quorum), restarted after 1-5 s
                                    quorum_down          two members kept down SECONDS (default 60; --quick 3)
                                  before the first fault: W s (default 10; --quick 0) after the writers' first
                                  transactions, single- and cross-shard, are acknowledged.
                                  after each fault: until every shard has a leader and every member is ready; the
                                  writers wait while the killed members' JVMs start (until they listen), not during
                                  the kills, elections and catch-up (--load-during-starts: not at all).
                                  At the end: every acknowledged promise verified, every acknowledged write read back
                                  (verified reads); no integrity violation may be reported. Exit 1 otherwise.
                                  Default: 1x3 and 2x3, 16 faults per layout (all kinds first, then at random),
                                  10 s of warm-up, 3-8 s between faults; --quick (the CI smoke): 2x3 (with
                                  cross-shard transactions) with 3 faults, leader_after_sign, leader_after_return
                                  (after 2 s without the follower) and quorum_down (3 s), 1-2 s apart.""");
                        System.exit(0);
                    }
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            FailoverFaults.Timing timing = quick
                    ? new FailoverFaults.Timing(2, 2, 2, quorumDown, Duration.ofSeconds(180))
                    : new FailoverFaults.Timing(8, 10, 5, quorumDown, Duration.ofSeconds(300));
            return new Options(layouts, faults, seed, writers, 0.3, warmup, quick ? 1 : 3, quick ? 2 : 8,
                    timing, loadDuringStarts, dir.toAbsolutePath().normalize(), launcher.toAbsolutePath().normalize(),
                    quick);
        }

        /**
         * The kinds injected first, in a random order: all five; in a quick run the three that take every path of
         * the other two as well. leader_after_sign: a leader killed with promises not yet proven (the false
         * accusation the run exists to rule out); leader_after_return: a follower killed and restarted (the whole
         * of {@code follower}), caught up, then the leader; quorum_down: two members killed and restarted (the
         * whole of {@code pair}), down past the promise deadline, so that promises go overdue and are proven later.
         */
        List<FailoverFaults.Kind> first(Layout layout) {
            if (!quick) {
                return ALL;
            }
            return List.of(FailoverFaults.Kind.LEADER_AFTER_SIGN, FailoverFaults.Kind.LEADER_AFTER_RETURN,
                    FailoverFaults.Kind.QUORUM_DOWN);
        }

        int faults(Layout layout) {
            return faults != null ? faults : quick ? first(layout).size() : 16;
        }
    }

    /**
     * The HTTP transport's loggers, held at SEVERE: every kill resets the client's connections to that member, and
     * the transport would print a warning with a stack trace for each (the writers count what they see themselves).
     */
    private static final List<java.util.logging.Logger> QUIET = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        System.setProperty("reactor.logging.fallback", "JDK");  // before any Reactor class logs
        for (String name : List.of("reactor.netty", "io.netty", "reactor.core")) {
            java.util.logging.Logger l = java.util.logging.Logger.getLogger(name);
            l.setLevel(java.util.logging.Level.SEVERE);
            QUIET.add(l);
        }
        Options o;
        try {
            o = Options.parse(args);
            WorkDir.prepare(o.dir());
        } catch (IllegalArgumentException e) {
            System.err.println("benchmark/run failover: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.exit(new FailoverBenchmark().run(o));
    }

    private static final long T0 = System.nanoTime();

    private static void log(String fmt, Object... a) {
        System.err.printf("[failover %6.1f s] " + fmt + "%n", prepend((System.nanoTime() - T0) / 1e9, a));
    }

    private static Object[] prepend(Object first, Object[] rest) {
        Object[] all = new Object[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }

    int run(Options o) throws Exception {
        log("seed %d (replay: --seed %d); layouts %s; load average %s", o.seed(), o.seed(), o.layouts(),
                WorkDir.loadAverage());
        SplittableRandom random = new SplittableRandom(o.seed());
        int rc = 0;
        long faults = 0;
        long t0 = System.nanoTime();
        for (Layout layout : o.layouts()) {
            SplittableRandom r = random.split();
            Path dir = o.dir().resolve("cluster-" + layout);
            boolean ok;
            try {
                Result res = runLayout(o, layout, r, dir);
                faults += res.faults;
                ok = res.ok;
            } catch (IOException | RuntimeException e) {
                log("%s: the run failed: %s", layout, e);
                ok = false;
            }
            if (ok) {
                WorkDir.deleteTree(dir);
            } else {
                log("%s: kept %s (the members' console.log and logs/server.json, launcher.log, violations.jsonl)",
                        layout, dir);
                rc = 1;
            }
        }
        JsonLine.of(BENCH, "faults_total", faults, "faults").with("seed", Long.toString(o.seed()))
                .with("seconds", (System.nanoTime() - t0) / 1e9).printTo(OUT);
        return rc;
    }

    private record Result(long faults, boolean ok) {
    }

    private Result runLayout(Options o, Layout layout, SplittableRandom random, Path dir) throws Exception {
        long started = System.nanoTime();
        List<IntegrityViolation> violations = new CopyOnWriteArrayList<>();
        List<PromiseOverdue> overdue = new CopyOnWriteArrayList<>();
        List<FailoverFaults.Outcome> outcomes = new ArrayList<>();
        try (LaunchedCluster cluster = new LaunchedCluster(o.launcher(), dir, layout.shards(), environment(o))) {
            log("%s: starting the cluster in %s (ports from %d)", layout, dir, cluster.port);
            cluster.start();
            if (!cluster.awaitHealthy(o.timing().recoveryBound())) {
                throw new IOException("the cluster did not become healthy within " + o.timing().recoveryBound());
            }
            log("%s: up after %.1f s", layout, (System.nanoTime() - started) / 1e9);
            ClientConfig cfg = cluster.client().signingKey(SigningKey.generate())
                    .stateFile(dir.resolve("client-state.json")).verifyDelay(Duration.ofMillis(100))
                    .persistInterval(Duration.ofMillis(100)).promiseDeadlineIntervals(10)
                    .violationHandler(violations::add).overdueHandler(overdue::add).build();
            FailoverLoad load;
            FailoverLoad.Verification verification;
            FailoverLoad.ReadBack readBack;
            VerifierStats stats;
            long loadNanos;
            try (GlassLedgerClient client = GlassLedgerClient.connect(cfg)) {
                load = new FailoverLoad(client, "failover/" + layout + "/" + Long.toHexString(random.nextLong())
                        + "/", o.crossShare());
                long loadStart = System.nanoTime();
                load.start(o.writers(), random.nextLong());
                if (!awaitFlowing(load, o.writers(), layout, o.timing().recoveryBound())) {
                    throw new IOException("no transaction of the writers was acknowledged within "
                            + o.timing().recoveryBound() + " (single- and cross-shard)");
                }
                Thread.sleep((long) (o.warmupSeconds() * 1000));
                log("%s: %d writers, %d tx acknowledged after the warm-up", layout, o.writers(), load.acked.get());
                FailoverFaults faults = new FailoverFaults(cluster, load, !o.loadDuringStarts(), random,
                        o.timing(), s -> log("%s: %s", layout, s));
                List<FailoverFaults.Kind> plan = FailoverFaults.plan(o.first(layout), o.faults(layout), random);
                for (int i = 0; i < plan.size(); i++) {
                    long acked0 = load.acked.get();
                    log("%s: fault %d of %d: %s", layout, i + 1, plan.size(), plan.get(i).label);
                    FailoverFaults.Outcome out;
                    try {
                        out = faults.inject(plan.get(i));
                    } catch (IOException | RuntimeException e) {
                        out = new FailoverFaults.Outcome(plan.get(i), -1, List.of(), Double.NaN, 0, Double.NaN,
                                e.toString());
                    }
                    outcomes.add(out);
                    faultLine(layout, i, out, load.acked.get() - acked0);
                    if (!out.recovered()) {
                        log("%s: the cluster did not recover (%s); no more faults", layout, out.note());
                        break;
                    }
                    if (i + 1 < plan.size()) {
                        Thread.sleep((long) (1000 * (o.pauseMin() + random.nextDouble() * (o.pauseMax()
                                - o.pauseMin()))));
                    }
                }
                if (!load.stop(Duration.ofSeconds(90))) {
                    log("%s: a writer did not stop within 90 s", layout);
                }
                loadNanos = System.nanoTime() - loadStart;
                log("%s: writers stopped: %d tx acknowledged (%d cross-shard), %d keys; checking every promise",
                        layout, load.acked.get(), load.crossShard.get(), load.acknowledgedKeys());
                verification = load.awaitVerification(Duration.ofMinutes(2), s -> log("%s: %s", layout, s));
                log("%s: promises: %s; reading back every acknowledged key", layout, verification);
                readBack = load.readBack(16, Duration.ofMinutes(o.quick() ? 3 : 10), s -> log("%s: %s", layout, s));
                log("%s: read back: %s", layout, readBack);
                stats = client.verifierStats();
            }
            List<ShardReplicas.Comparison> compared = new ArrayList<>();
            for (int s = 0; s < layout.shards(); s++) {
                compared.add(cluster.shard(s).compareSignedHeads(200, Duration.ofSeconds(60)));
            }
            boolean ok = report(layout, outcomes, load, verification, readBack, stats, violations, overdue, compared,
                    loadNanos, dir);
            log("%s: done in %.0f s", layout, (System.nanoTime() - started) / 1e9);
            return new Result(outcomes.size(), ok);
        }
    }

    /**
     * Until every writer's transactions flow: as many acknowledged as there are writers, and with several shards one
     * cross-shard among them. False if not within {@code bound}.
     */
    private static boolean awaitFlowing(FailoverLoad load, int writers, Layout layout, Duration bound)
            throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (load.acked.get() < writers || (layout.shards() > 1 && load.crossShard.get() == 0)) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }

    /** The launcher's environment: the members' JVM options and server settings. */
    private static Map<String, String> environment(Options o) {
        // C1 only: a member's start costs about 22 CPU seconds this way (39 with C2), and a run starts members dozens of
        // times on 2 cores.
        String jvm = (o.quick() ? "-Xms128m -Xmx384m" : "-Xms256m -Xmx768m") + " -XX:TieredStopAtLevel=1";
        String extra = System.getenv("SERVER_JAVA_OPTS");
        if (extra != null && !extra.isBlank()) {
            jvm += " " + extra.trim();
        }
        // Persist every 100 ms (the client's deadline counts in it); 2PC resolved within seconds of a coordinator's
        // failure; snapshots and log segments small, so that a returning replica is caught up from a snapshot.
        String args = String.join(" ", "--glassledger.persist-interval=100ms",
                "--glassledger.cluster.prepare-timeout=2s", "--glassledger.cluster.resolve-interval=500ms",
                "--glassledger.replication.snapshot-every=200", "--glassledger.replication.snapshot-min-interval=5s",
                "--glassledger.replication.log-segment-size=128KB",
                "--glassledger.ledger-cache=" + (o.quick() ? "32MB" : "128MB"), "--logging.level.root=WARN",
                "--logging.level.io.glassledger.server.StartupReport=INFO",
                "--logging.level.io.glassledger.server.replication=INFO");
        return Map.of("GLASSLEDGER_JAVA_OPTS", jvm, "GLASSLEDGER_CLUSTER_ARGS", args);
    }

    private static void faultLine(Layout layout, int i, FailoverFaults.Outcome out, long ackedDuring) {
        JsonLine.of(BENCH + ".fault", "recovery_seconds", out.recoverySeconds(), "s").with("layout", layout.toString())
                .with("n", i + 1).with("kind", out.kind().label).with("shard", out.shard())
                .with("killed", String.join(" ", out.killed())).with("leader_seconds", out.leaderSeconds())
                .with("down_seconds", out.downSeconds()).with("acked_during", ackedDuring).with("note", out.note())
                .printTo(OUT);
    }

    /** The layout's result lines; true if nothing was lost, violated, left unverified or unrecovered. */
    private static boolean report(Layout layout, List<FailoverFaults.Outcome> outcomes, FailoverLoad load,
                                  FailoverLoad.Verification v, FailoverLoad.ReadBack rb, VerifierStats stats,
                                  List<IntegrityViolation> violations, List<PromiseOverdue> overdue,
                                  List<ShardReplicas.Comparison> compared, long loadNanos, Path dir)
            throws IOException {
        String l = layout.toString();
        Map<FailoverFaults.Kind, Integer> byKind = new EnumMap<>(FailoverFaults.Kind.class);
        List<Double> recovery = new ArrayList<>();
        List<Double> leader = new ArrayList<>();
        long unrecovered = 0;
        for (FailoverFaults.Outcome out : outcomes) {
            byKind.merge(out.kind(), 1, Integer::sum);
            if (out.recovered()) {
                recovery.add(out.recoverySeconds());
            } else {
                unrecovered++;
            }
            if (!Double.isNaN(out.leaderSeconds())) {
                leader.add(out.leaderSeconds());
            }
        }
        JsonLine faults = JsonLine.of(BENCH, "faults", outcomes.size(), "faults").with("layout", l);
        for (FailoverFaults.Kind k : FailoverFaults.Kind.values()) {
            faults.with(k.label, byKind.getOrDefault(k, 0));
        }
        faults.printTo(OUT);
        JsonLine.of(BENCH, "unrecovered", unrecovered, "faults").with("layout", l).printTo(OUT);
        JsonLine.of(BENCH, "acknowledged_tx", load.acked.get(), "tx").with("layout", l)
                .with("keys", load.acknowledgedKeys()).with("tx_per_s", load.acked.get() / (loadNanos / 1e9))
                .printTo(OUT);
        JsonLine.of(BENCH, "cross_shard_tx", load.crossShard.get(), "tx").with("layout", l).printTo(OUT);
        JsonLine.of(BENCH, "lost", rb.lost(), "writes").with("layout", l).with("checked", rb.checked())
                .with("missing", rb.missing()).with("wrong", rb.wrong()).with("unread", rb.unread()).printTo(OUT);
        JsonLine.of(BENCH, "violations", violations.size(), "violations").with("layout", l)
                .with("thrown_by_commits", load.violationsThrown.get()).printTo(OUT);
        JsonLine.of(BENCH, "unverified", v.unverified(), "promises").with("layout", l).with("verified", v.verified())
                .with("violated", v.violated()).with("failed", v.failed()).with("pending", v.pending()).printTo(OUT);
        JsonLine.of(BENCH, "overdue", overdue.size(), "promises").with("layout", l)
                .with("verifier_overdue", stats.overdue()).with("promises_marked", v.overdue()).printTo(OUT);
        JsonLine.of(BENCH, "overdue_proven", stats.overdueProven(), "promises").with("layout", l).printTo(OUT);
        median("recovery_seconds", recovery, l).printTo(OUT);
        median("leader_seconds", leader, l).printTo(OUT);
        JsonLine refusals = JsonLine.of(BENCH, "refused_commits", load.refusals.values().stream()
                .mapToLong(java.util.concurrent.atomic.LongAdder::sum).sum(), "commits").with("layout", l)
                .with("unexpected", load.unexpected.get());
        new TreeMap<>(load.refusals).forEach((code, n) -> refusals.with(code, n.sum()));
        refusals.printTo(OUT);
        for (String s : load.samples()) {
            log("%s: unexpected error: %s", l, s);
        }
        long differing = 0;
        boolean converged = true;
        for (int s = 0; s < compared.size(); s++) {
            ShardReplicas.Comparison c = compared.get(s);
            if (c == null) {
                converged = false;
                log("%s: shard %d's replicas did not reach one head within 60 s", l, s);
            } else {
                differing += c.differing();
                log("%s: shard %d: signed heads of %d of %d blocks compared, %d differ", l, s, c.compared(), c.head(),
                        c.differing());
            }
        }
        JsonLine.of(BENCH, "replicas_differing_blocks", converged ? differing : Double.NaN, "blocks").with("layout", l)
                .printTo(OUT);
        evidence(layout, violations, dir);
        return rb.lost() == 0 && violations.isEmpty() && v.unverified() == 0 && unrecovered == 0 && differing == 0;
    }

    /** A line of the median of {@code xs} (seconds) with its spread; NaN and n = 0 if there are none. */
    private static JsonLine median(String metric, List<Double> xs, String layout) {
        if (xs.isEmpty()) {
            return JsonLine.of(BENCH, metric, Double.NaN, "s").with("layout", layout).with("n", 0);
        }
        Stats st = new Stats(xs.stream().mapToDouble(Double::doubleValue).toArray());
        return JsonLine.of(BENCH, metric, st.median(), "s").with("layout", layout).spread(st);
    }

    /** Every violation's kind and message on stderr, and its whole evidence in {@code violations.jsonl}. */
    private static void evidence(Layout layout, List<IntegrityViolation> violations, Path dir) throws IOException {
        ObjectMapper json = new ObjectMapper();
        for (IntegrityViolation v : violations) {
            System.err.printf("[failover] %s: VIOLATION %s (shard %d, tx %s): %s%n", layout, v.kind(),
                    v.evidence().shard(), v.evidence().txIds().stream().map(io.glassledger.verify.hash.Bytes::hex)
                            .toList(), v.evidence().message());
            Files.writeString(dir.resolve("violations.jsonl"), json.writeValueAsString(v.evidence().toMap()) + "\n",
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
    }
}
