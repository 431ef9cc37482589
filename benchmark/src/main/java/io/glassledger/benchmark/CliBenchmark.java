package io.glassledger.benchmark;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code benchmark/run cli}: how long one {@code ledger-cli} call takes, as a user at a shell sees it (issue 34,
 * item 7). One ledger-server process on loopback ({@link ServerCluster}, started as the other subcommands start
 * theirs), one {@code ledger-cli put}, then {@code ledger-cli get KEY} run {@code --calls} times one after the other
 * (20; {@code --quick} 5), connected as the README's quick start does: {@code GLASSLEDGER_URL},
 * {@code GLASSLEDGER_PIN} and {@code GLASSLEDGER_API_KEY} in the environment. Every call must exit 0 and print the
 * value put.
 *
 * <p>With several {@code --cli} scripts (e.g. a copy of an older {@code ledger-cli} in the project's root), the
 * calls alternate A-B-A-B against the same server, so that the machine's load falls on each alike; one line each.
 * Each script's first call is a warm-up, reported apart ({@code first_seconds}): it is the one that builds or
 * prepares what later calls reuse.
 *
 * <p>Per call: the wall time from the process's start to its exit, and its CPU: user + system of the children this
 * JVM has reaped ({@code cutime} + {@code cstime} of {@code /proc/self/stat}), which are the script, the JVM it
 * execs and whatever the script ran; the server, also a child, is reaped only at the end.
 */
public final class CliBenchmark {
    private static final String KEY = "bench-cli-key";
    private static final String VALUE = "hello from benchmark/run cli";
    private static final long CALL_TIMEOUT_SECONDS = 120;

    record Options(List<Path> clis, int calls, Path dir, boolean quick) {
        static Options parse(String[] args) {
            boolean quick = List.of(args).contains("--quick");
            int calls = quick ? 5 : 20;
            List<Path> clis = new ArrayList<>();
            Path dir = Path.of(System.getProperty("glassledger.bench.dir", "benchmark/work/cli"));
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--quick" -> {
                    }
                    case "--calls" -> calls = (int) Args.number(args[i], Args.value(args, ++i), 1, 1000);
                    case "--cli" -> clis.add(Path.of(Args.value(args, ++i)).toAbsolutePath().normalize());
                    case "--dir" -> dir = Path.of(Args.value(args, ++i));
                    case "-h", "--help" -> {
                        System.err.println("""
                                usage: benchmark/run cli [--quick] [--calls N] [--cli PATH]... [--dir PATH]
                                  wall time and CPU of one ledger-cli get KEY call against a server on loopback
                                  --calls N    measured calls per script, one after the other (default 20; --quick 5)
                                  --cli PATH   the script to run (default the project's ledger-cli); repeated, the
                                               scripts' calls alternate A-B-A-B, one result line each""");
                        System.exit(0);
                    }
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            if (clis.isEmpty()) {
                clis.add(Path.of(System.getProperty("glassledger.cli", "ledger-cli")).toAbsolutePath().normalize());
            }
            for (Path p : clis) {
                if (!Files.isExecutable(p)) {
                    throw new IllegalArgumentException("--cli " + p + " is not an executable file");
                }
            }
            return new Options(List.copyOf(clis), calls, dir.toAbsolutePath().normalize(), quick);
        }
    }

    public static void main(String[] args) throws Exception {
        Options o;
        try {
            o = Options.parse(args);
            WorkDir.prepare(o.dir());
        } catch (IllegalArgumentException e) {
            System.err.println("benchmark/run cli: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.exit(new CliBenchmark().run(o));
    }

    private static void log(String fmt, Object... a) {
        System.err.printf("[cli] " + fmt + "%n", a);
    }

    /** One call's outcome: wall and CPU seconds, and whether it exited 0 with the expected first line. */
    record Call(double wallSeconds, double cpuSeconds, boolean ok) {
    }

    int run(Options o) throws Exception {
        Path jar = Path.of(System.getProperty("glassledger.server.jar",
                "ledger-server/target/ledger-server-0.1.0-SNAPSHOT-exec.jar")).toAbsolutePath();
        String load = WorkDir.loadAverage();
        // The server as a quick run starts it: small heap, C1 only. A get is one small request, and the server's
        // share of a call is milliseconds either way.
        try (ServerCluster cluster = ServerCluster.start(jar, o.dir(), 1, ServerCluster.heap(true),
                ServerCluster.quickArgs(true))) {
            ServerProcess server = cluster.first();
            Map<String, String> env = new HashMap<>(System.getenv());
            env.put("GLASSLEDGER_URL", server.url);
            env.put("GLASSLEDGER_PIN", server.fingerprint);
            env.put("GLASSLEDGER_API_KEY", server.apiKey("default"));
            env.remove("GLASSLEDGER_CLUSTER");
            log("server %s (pid %d); %d call(s) of get per script, %s; load %s", server.url, server.process.pid(),
                    o.calls(), o.clis(), load);
            Call put = call(o.clis().get(0), o.dir(), env, List.of("put", KEY, VALUE), null);
            log("put: %.2f s, %s", put.wallSeconds(), put.ok() ? "ok" : "FAILED");
            if (!put.ok()) {
                return 1;
            }
            int n = o.clis().size();
            double[] first = new double[n];
            for (int c = 0; c < n; c++) {
                Call w = call(o.clis().get(c), o.dir(), env, List.of("get", KEY), VALUE);
                first[c] = w.wallSeconds();
                log("%s first get (warm-up): %.2f s%s", label(o.clis().get(c)), w.wallSeconds(),
                        w.ok() ? "" : ", FAILED");
            }
            List<List<Call>> calls = new ArrayList<>();
            for (int c = 0; c < n; c++) {
                calls.add(new ArrayList<>());
            }
            for (int i = 0; i < o.calls(); i++) {
                for (int c = 0; c < n; c++) {
                    Call r = call(o.clis().get(c), o.dir(), env, List.of("get", KEY), VALUE);
                    calls.get(c).add(r);
                    log("%s get %d: %.3f s wall, %.3f s CPU%s", label(o.clis().get(c)), i + 1, r.wallSeconds(),
                            r.cpuSeconds(), r.ok() ? "" : ", FAILED");
                }
            }
            int rc = 0;
            for (int c = 0; c < n; c++) {
                rc |= report(o, o.clis().get(c), calls.get(c), first[c], load);
            }
            return rc;
        } finally {
            WorkDir.deleteTree(o.dir());
        }
    }

    private static int report(Options o, Path cli, List<Call> calls, double first, String load) {
        Stats wall = new Stats(calls.stream().mapToDouble(Call::wallSeconds).toArray());
        Stats cpu = new Stats(calls.stream().mapToDouble(Call::cpuSeconds).toArray());
        long failed = calls.stream().filter(c -> !c.ok()).count();
        JsonLine.of("cli.get", "wall_seconds", wall.median(), "s").with("min", wall.min()).with("max", wall.max())
                .spread(wall).with("cpu_seconds", cpu.median()).with("cpu_seconds_mean", cpu.mean())
                .with("first_seconds", first).with("cli", label(cli)).with("load", load).with("quick", o.quick())
                .printTo(System.out);
        JsonLine.of("cli.get", "failed", failed, "calls").with("cli", label(cli)).with("n", calls.size())
                .printTo(System.out);
        return failed == 0 ? 0 : 1;
    }

    /** The script's name as the user would type it from the project's root. */
    private static String label(Path cli) {
        return cli.getFileName().toString();
    }

    /**
     * Runs {@code cli ARGS} in {@code dir} with its own key and trusted state there; the call is ok if it exits 0
     * and, if {@code expect} is not null, its first line of output is {@code expect}.
     */
    private static Call call(Path cli, Path dir, Map<String, String> env, List<String> args, String expect)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(cli.toString(), "--key-file", dir.resolve("client.key").toString(),
                "--state", dir.resolve("state.json").toString()));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile())
                .redirectErrorStream(false)
                .redirectOutput(dir.resolve("cli.out").toFile())
                .redirectError(ProcessBuilder.Redirect.appendTo(dir.resolve("cli.err").toFile()));
        pb.environment().clear();
        pb.environment().putAll(env);
        long cpu0 = childTicks();
        long t0 = System.nanoTime();
        Process p = pb.start();
        if (!p.waitFor(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            log("%s %s did not end within %d s", cli, args, CALL_TIMEOUT_SECONDS);
            return new Call(CALL_TIMEOUT_SECONDS, 0, false);
        }
        double wall = (System.nanoTime() - t0) / 1e9;
        double cpu = (double) (childTicks() - cpu0) / TaskStat.TICKS_PER_SECOND;
        boolean ok = p.exitValue() == 0;
        if (ok && expect != null) {
            List<String> out = Files.readAllLines(dir.resolve("cli.out"), StandardCharsets.UTF_8);
            ok = !out.isEmpty() && out.get(0).equals(expect);
        }
        if (!ok) {
            List<String> err = Files.readAllLines(dir.resolve("cli.err"), StandardCharsets.UTF_8);
            log("%s %s: exit %d; its stderr ends:%n  %s", cli, args, p.exitValue(),
                    String.join("\n  ", err.subList(Math.max(0, err.size() - 5), err.size())));
        }
        return new Call(wall, cpu, ok);
    }

    /**
     * User plus system clock ticks of this process's children that have ended and been waited for: fields 16 and 17
     * ({@code cutime}, {@code cstime}) of {@code /proc/self/stat}, counted after the name in parentheses as
     * {@link TaskStat} does.
     */
    static long childTicks() throws IOException {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        return Long.parseLong(f[16 - 3]) + Long.parseLong(f[17 - 3]);
    }
}
