package io.glassledger.benchmark;

import io.glassledger.api.PinnedTrustManager;
import io.glassledger.api.Wire;
import io.glassledger.client.ClientConfig;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.shard.ShardMap;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * A replicated cluster on loopback run by the launcher, {@code ./glassledger cluster start --shards N --replicas 3},
 * as an operator runs one: real server processes, each in the background with its pid in {@code server.pid}. Member
 * (shard i, replica r) has its HTTPS port at P + 3i + r, its Raft port 1000 above, its directory port 2000 above and
 * its management port (health probes, metrics) 3000 above. {@code start()} again restarts the members that are down;
 * {@link #kill} is {@code kill -9} of a member's process, and so is the end ({@link #close}). Every wait is
 * bounded.
 */
final class LaunchedCluster implements AutoCloseable {
    static final int REPLICAS = 3;
    /** The longest a launcher command may take (it waits up to 120 s for each member it starts). */
    private static final Duration LAUNCHER_TIMEOUT = Duration.ofSeconds(400);

    final Path dir;
    final int shards;
    final int port;
    private final Path launcher;
    private final Map<String, String> env;
    private final Path launcherLog;
    private final Thread killOnExit;
    /** The launcher command under way, if any: ended first on exit, so that it starts nothing afterwards. */
    private volatile Process running;
    private String apiKey;
    private String pin;
    private HttpClient http;
    private List<ShardReplicas> groups;

    /**
     * @param launcher the {@code glassledger} script
     * @param env      the launcher's environment: {@code GLASSLEDGER_JAVA_OPTS}, {@code GLASSLEDGER_CLUSTER_ARGS}
     */
    LaunchedCluster(Path launcher, Path dir, int shards, Map<String, String> env) throws IOException {
        this.launcher = launcher.toAbsolutePath();
        this.dir = dir.toAbsolutePath();
        this.shards = shards;
        this.env = Map.copyOf(env);
        this.port = ServerCluster.freePorts(shards * REPLICAS, 4);
        Files.createDirectories(this.dir);
        this.launcherLog = this.dir.resolve("launcher.log");
        // An interrupted benchmark (Ctrl-C) must not leave servers behind.
        this.killOnExit = new Thread(this::killAll, "kill-cluster-" + port);
        Runtime.getRuntime().addShutdownHook(killOnExit);
    }

    /** Starts every member that is down (all, the first time); the first time also reads the cluster file and keys. */
    void start() throws IOException, InterruptedException {
        launcher("start", "--shards", Integer.toString(shards), "--replicas", Integer.toString(REPLICAS), "--dir",
                dir.toString(), "--port", Integer.toString(port));
        if (groups != null) {
            return;
        }
        Properties cluster = new Properties();
        try (var in = Files.newBufferedReader(clusterFile())) {
            cluster.load(in);
        }
        pin = cluster.getProperty("pin");
        apiKey = credential("default");
        http = HttpClient.newBuilder().sslContext(PinnedTrustManager.sslContext(pin))
                .connectTimeout(Duration.ofSeconds(2)).build();
        List<ShardReplicas> gs = new ArrayList<>();
        for (int s = 0; s < shards; s++) {
            List<URI> urls = new ArrayList<>();
            for (String u : cluster.getProperty("url." + s).split(",")) {
                urls.add(URI.create(u.trim()));
            }
            gs.add(new ShardReplicas(http, apiKey, urls, probeKey(s)));
        }
        groups = List.copyOf(gs);
    }

    Path clusterFile() {
        return dir.resolve("cluster.properties");
    }

    /** A client of the cluster as {@code default} (the API key the first member made), its pin from the file. */
    ClientConfig.Builder client() {
        return ClientConfig.builder().clusterFile(clusterFile()).apiKey(apiKey);
    }

    ShardReplicas shard(int s) {
        return groups.get(s);
    }

    Path memberDir(int s, int r) {
        return dir.resolve("shard-" + s + "-r" + r);
    }

    static String name(int s, int r) {
        return s + "/" + r;
    }

    /** Whether member (s, r) says it is ready: its readiness probe answers 200 on its management port. */
    boolean ready(int s, int r) {
        URI probe = URI.create("https://127.0.0.1:" + (port + 3000 + s * REPLICAS + r) + "/actuator/health/readiness");
        try {
            return http.send(HttpRequest.newBuilder(probe).timeout(Duration.ofSeconds(5)).GET().build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Whether every shard has a leader that answers and every member is ready. */
    boolean healthy() {
        for (int s = 0; s < shards; s++) {
            if (groups.get(s).leader() < 0) {
                return false;
            }
            for (int r = 0; r < REPLICAS; r++) {
                if (!ready(s, r)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Polls {@link #healthy()} every 100 ms; false if it is not within {@code within}. */
    boolean awaitHealthy(Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        do {
            if (healthy()) {
                return true;
            }
            Thread.sleep(100);
        } while (System.nanoTime() < deadline);
        return false;
    }

    /** The pid of member (s, r) if its process is alive and runs over its data directory. */
    Optional<ProcessHandle> process(int s, int r) {
        try {
            long pid = Long.parseLong(Files.readString(memberDir(s, r).resolve("server.pid")).trim());
            return ProcessHandle.of(pid).filter(p -> isMember(p, memberDir(s, r)));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * {@code kill -9} of member (s, r), then waits (up to 10 s) until the process is gone. A member that is not
     * running is an IllegalStateException: a fault that kills nothing would be counted as one.
     */
    void kill(int s, int r) throws InterruptedException {
        ProcessHandle p = process(s, r).orElseThrow(() -> new IllegalStateException("member " + name(s, r)
                + " is not running"));
        p.destroyForcibly();  // SIGKILL
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (isMember(p, memberDir(s, r)) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        if (isMember(p, memberDir(s, r))) {
            throw new IllegalStateException("member " + name(s, r) + " (pid " + p.pid() + ") still runs 10 s after "
                    + "SIGKILL");
        }
    }

    /**
     * Ends every member with SIGKILL and waits (up to 30 s) until they are gone: the benchmark is done with their data,
     * and a graceful {@code cluster stop} (SIGTERM, one member after another) takes tens of seconds on 2 cores.
     */
    @Override
    public void close() throws InterruptedException {
        killAll();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (int s = 0; s < shards; s++) {
            for (int r = 0; r < REPLICAS; r++) {
                while (process(s, r).isPresent() && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
            }
        }
        try {
            Runtime.getRuntime().removeShutdownHook(killOnExit);
        } catch (IllegalStateException e) {
            // shutting down already
        }
    }

    private void killAll() {
        Process p = running;
        if (p != null) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        for (int s = 0; s < shards; s++) {
            for (int r = 0; r < REPLICAS; r++) {
                process(s, r).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }

    /** Alive, not a zombie, and running the server over {@code memberDir}: a reused pid is not the member. */
    private static boolean isMember(ProcessHandle p, Path memberDir) {
        if (!p.isAlive()) {
            return false;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
            char state = stat.charAt(stat.lastIndexOf(')') + 2);
            if (state == 'Z' || state == 'X') {
                return false;
            }
            String cmdline = Files.readString(Path.of("/proc", Long.toString(p.pid()), "cmdline"));
            return List.of(cmdline.split("\0")).contains("--glassledger.data-dir=" + memberDir);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private String credential(String clientId) throws IOException {
        for (String line : Files.readAllLines(dir.resolve("credentials.txt"))) {
            String[] f = line.split("\t");
            if (f.length == 3 && f[0].equals(clientId)) {
                return f[2];
            }
        }
        throw new IOException("no API key for " + clientId + " in " + dir.resolve("credentials.txt"));
    }

    /** A key that shard {@code s} holds under the launcher's shard map (version 1), base64. */
    private String probeKey(int s) {
        ShardMap map = new ShardMap(1, shards);
        for (int i = 0; i < 10_000; i++) {
            Bytes k = Bytes.of(("leader-probe-" + i).getBytes(StandardCharsets.UTF_8));
            if (map.shardOf(k) == s) {
                return Wire.b64(k);
            }
        }
        throw new IllegalStateException("no probe key for shard " + s);
    }

    /**
     * Runs {@code ./glassledger cluster ARGS} with the java of this JVM first on the PATH, its output appended to
     * {@code launcher.log}; fails if it fails or takes longer than {@link #LAUNCHER_TIMEOUT}.
     */
    private void launcher(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("bash", launcher.toString(), "cluster"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(launcher.getParent().toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(launcherLog.toFile()));
        pb.environment().putAll(env);
        String javaBin = Path.of(System.getProperty("java.home"), "bin").toString();
        pb.environment().put("PATH", javaBin + ":" + System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        Process p = pb.start();
        running = p;
        try {
            if (!p.waitFor(LAUNCHER_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new IOException("./glassledger cluster " + String.join(" ", args) + " did not finish within "
                        + LAUNCHER_TIMEOUT + "; see " + launcherLog);
            }
        } finally {
            running = null;
        }
        if (p.exitValue() != 0) {
            throw new IOException("./glassledger cluster " + String.join(" ", args) + " failed (exit "
                    + p.exitValue() + "); see " + launcherLog);
        }
    }
}
