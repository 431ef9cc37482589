package io.glassledger.server.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * A cluster of real server processes as a user runs it: {@code ./glassledger cluster start --shards S --replicas R
 * --dir DIR --port P} from the repository root, on ports {@link TestPorts} reserved for this JVM. The one launcher
 * of the integration tests (the cluster, replication, auditor and launcher tests); what a test needs of its own
 * (a shard's leader, a proxy between replicas) it builds on this.
 *
 * <p>Every wait is bounded by its condition, with bounds for a loaded 2-core machine: the launcher itself waits up
 * to 120 s for each member to answer, this class up to {@link #LAUNCHER_TIMEOUT} for the launcher.
 */
public final class LauncherCluster implements AutoCloseable {
    /** How long one run of the launcher may take: it starts members one after another on a busy machine. */
    public static final Duration LAUNCHER_TIMEOUT = Duration.ofMinutes(6);
    /** The server JVM's options in tests: small heaps, C1 only (they start much faster and run long enough). */
    public static final String JAVA_OPTS = "-Xmx384m -XX:TieredStopAtLevel=1";

    public final Path root;
    public final Path dir;
    public final int shards;
    public final int replicas;
    /** The base port: member (s, r) serves HTTPS at {@code port + s * replicas + r}; see {@link #management}. */
    public final int port;
    private final Map<String, String> env;
    private Properties cluster;

    /**
     * Reserves the ports and empties {@code dir}; starts nothing.
     *
     * @param clusterArgs the servers' extra arguments ({@code GLASSLEDGER_CLUSTER_ARGS})
     * @param env more environment for the launcher (over {@code GLASSLEDGER_JAVA_OPTS} = {@link #JAVA_OPTS} and
     *     the cluster arguments), e.g. {@code GLASSLEDGER_RAFT_HOST}
     */
    public LauncherCluster(Path dir, int shards, int replicas, String clusterArgs, Map<String, String> env)
            throws IOException {
        this.root = repositoryRoot();
        this.dir = dir.toAbsolutePath();
        this.shards = shards;
        this.replicas = replicas;
        // One more member's room in every layer: a replica a test adds (LauncherShard's fourth).
        this.port = TestPorts.block(shards * replicas + 1);
        this.env = new HashMap<>(Map.of("GLASSLEDGER_JAVA_OPTS", JAVA_OPTS, "GLASSLEDGER_CLUSTER_ARGS", clusterArgs));
        this.env.putAll(env);
        deleteTree(this.dir);
        Files.createDirectories(this.dir);
    }

    /** The repository's root: the integration tests run in a module's directory. */
    public static Path repositoryRoot() {
        return Path.of("").toAbsolutePath().getParent();
    }

    /** Starts every member that is down (all, the first time) and reads the cluster file. */
    public void start() throws Exception {
        launcher("start", "--shards", Integer.toString(shards), "--replicas", Integer.toString(replicas), "--dir",
                dir.toString(), "--port", Integer.toString(port));
        Properties p = new Properties();
        try (var in = Files.newBufferedReader(dir.resolve("cluster.properties"))) {
            p.load(in);
        }
        cluster = p;
    }

    /**
     * Stops every member: SIGTERM to all at once (the launcher's stop signals them one after another and waits for
     * each, a minute for a six-member cluster on a loaded machine), then {@code ./glassledger cluster stop}, which
     * finds them gone and removes their pid files. Only processes whose command line names a member's data directory
     * are signalled.
     */
    @Override
    public void close() throws Exception {
        List<ProcessHandle> members = new ArrayList<>();
        try (var dirs = Files.list(dir)) {
            for (Path d : dirs.filter(d -> Files.isRegularFile(d.resolve("server.pid"))).toList()) {
                ProcessHandle.of(Long.parseLong(Files.readString(d.resolve("server.pid")).trim()))
                        .filter(h -> h.info().commandLine().orElse("").contains("--glassledger.data-dir=" + d))
                        .ifPresent(members::add);
            }
        }
        members.forEach(ProcessHandle::destroy);
        await().atMost(Duration.ofMinutes(2)).until(() -> members.stream().noneMatch(ProcessHandle::isAlive));
        launcher("stop", "--dir", dir.toString());
    }

    /** The cluster file the launcher wrote ({@code cluster.properties}): pin, shard map, URLs. */
    public Properties properties() {
        return cluster;
    }

    public Path clusterFile() {
        return dir.resolve("cluster.properties");
    }

    public String pin() {
        return cluster.getProperty("pin");
    }

    /** The HTTPS URLs of a shard's replicas, from the cluster file. */
    public List<URI> urls(int shard) {
        List<URI> out = new ArrayList<>();
        for (String u : cluster.getProperty("url." + shard).split(",")) {
            out.add(URI.create(u.trim()));
        }
        return out;
    }

    /** A member's management URL (health probes, metrics): the launcher puts it 3000 above its HTTPS port. */
    public static URI management(URI member) {
        return URI.create("https://" + member.getHost() + ":" + (member.getPort() + 3 * TestPorts.LAYER));
    }

    /** The API key of identity {@code id} ({@code default}, {@code admin}, {@code auditor}) the launcher made. */
    public String credential(String id) throws IOException {
        for (String line : Files.readAllLines(dir.resolve("credentials.txt"))) {
            String[] f = line.split("\t");
            if (f.length == 3 && f[0].equals(id)) {
                return f[2];
            }
        }
        throw new IllegalStateException("no credentials for " + id + " in " + dir.resolve("credentials.txt"));
    }

    /** A member's data directory: {@code shard-S} unreplicated, {@code shard-S-rR} replicated. */
    public Path member(int shard, int replica) {
        return dir.resolve(replicas == 1 ? "shard-" + shard : "shard-" + shard + "-r" + replica);
    }

    public long pid(int shard, int replica) throws IOException {
        return Long.parseLong(Files.readString(member(shard, replica).resolve("server.pid")).trim());
    }

    /** Kills a member with SIGKILL and waits until it is gone. */
    public void kill9(int shard, int replica) throws Exception {
        kill9(pid(shard, replica));
    }

    /** Kills a process with SIGKILL and waits until it is gone. */
    public static void kill9(long pid) throws Exception {
        Process p = new ProcessBuilder("kill", "-9", Long.toString(pid)).inheritIO().start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        await().atMost(Duration.ofSeconds(60)).until(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
    }

    /**
     * Runs {@code ./glassledger cluster ARGS} from the repository root and waits for it to succeed. A failed start
     * is run once more (starting the members that are down is idempotent): seen in CI, and again with the ports
     * reserved (a restarted member "exited before it listened"), cause not found yet; the failure is printed with
     * every member's last log lines.
     */
    public void launcher(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("bash", root.resolve("glassledger").toString(), "cluster"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(root.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        String output = "";
        for (int attempt = 1; ; attempt++) {
            Path out = Files.createTempFile(dir, "launcher-", ".out");
            Process p = pb.redirectOutput(out.toFile()).start();
            boolean ended = p.waitFor(LAUNCHER_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            if (!ended) {
                p.destroyForcibly();
            }
            output += Files.readString(out, StandardCharsets.UTF_8);
            if (ended && p.exitValue() == 0) {
                return;
            }
            if (attempt == 2 || !args[0].equals("start")) {
                throw new IllegalStateException("./glassledger cluster " + String.join(" ", args)
                        + (ended ? " failed:\n" : " did not end within " + LAUNCHER_TIMEOUT + ":\n") + output);
            }
            // The next start moves each member's console log aside: what a member said as it failed, kept here.
            System.err.println("./glassledger cluster " + String.join(" ", args) + " failed, again:\n" + output
                    + consoleTails());
        }
    }

    /** The last lines of every member's console log, for a failed start's report. */
    private String consoleTails() throws IOException {
        StringBuilder out = new StringBuilder();
        try (var dirs = Files.list(dir)) {
            for (Path log : dirs.map(d -> d.resolve("console.log")).filter(Files::isRegularFile).sorted().toList()) {
                List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
                out.append("--- ").append(log).append(" (last 40 lines)\n");
                lines.subList(Math.max(0, lines.size() - 40), lines.size()).forEach(l -> out.append(l).append('\n'));
            }
        }
        return out.toString();
    }

    public static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (var s = Files.walk(p)) {
            for (Path q : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(q);
            }
        }
    }
}
