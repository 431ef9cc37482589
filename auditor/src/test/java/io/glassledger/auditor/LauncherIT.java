package io.glassledger.auditor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.glassledger.server.testing.TestPorts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The launcher {@code ./glassledger} run as a user runs it, as a process, over a cluster of one shard and an auditor
 * (real server and auditor processes; this module's build has both jars by the time integration tests run). It must
 * not take a killed shard, a zombie, or a PID reused by another program for a running shard; it must keep the
 * previous run's console log as {@code console.log.1} and wait on a fresh one; {@code auditor stop} and
 * {@code stop} stop what {@code auditor start} and {@code cluster start} started and nothing else; and no expected
 * failure inside the script may trip its ERR trap ("glassledger: failed ... at line N").
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LauncherIT {
    private static final Pattern STARTING = Pattern.compile("starting shard 0 \\(pid (\\d+)\\)");
    private static final List<Process> helpers = new ArrayList<>();
    private static Path root;
    private static Path dir;
    private static Path auditorDir;
    private static int port;
    private static int auditorPort;

    @BeforeAll
    static void startCluster() throws Exception {
        root = Path.of("").toAbsolutePath().getParent();
        dir = Path.of("target", "launcher-it").toAbsolutePath();
        if (Files.exists(dir)) {
            try (var files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        Files.createDirectories(dir);
        auditorDir = dir.resolve("auditor");
        port = TestPorts.port();  // the launcher's layout: its directory port at + 2000, management at + 3000
        auditorPort = TestPorts.port();
        Result r = glassledger("cluster", "start", "--shards", "1", "--dir", dir.toString(), "--port",
                Integer.toString(port));
        assertThat(r.exit).as(r.output).isZero();
    }

    @AfterAll
    static void stopAll() throws Exception {
        if (dir != null) {
            glassledger("stop", "--dir", dir.toString(), "--glassledger.auditor.data-dir=" + auditorDir);
        }
        helpers.forEach(Process::destroyForcibly);
    }

    @Test
    @Order(1)
    void clusterStart_rightAfterShardKilled_startsItAgainOnAFreshLog() throws Exception {
        long old = shardPid();
        assertThat(isAlive(old)).isTrue();
        new ProcessBuilder("kill", "-9", Long.toString(old)).start().waitFor(10, TimeUnit.SECONDS);

        // At once, while the killed process may still be dying or a zombie: kill -0 would succeed on it.
        Result r = startCluster1();
        assertThat(r.exit).as(r.output).isZero();
        long now = startedPid(r);
        assertThat(now).isNotEqualTo(old);
        assertThat(shardPid()).isEqualTo(now);
        assertThat(r.output).contains("(pid " + now + ",");

        // The readiness wait read a fresh log: this run's, and the previous run's is kept beside it.
        String log = Files.readString(dir.resolve("shard-0/console.log"));
        String previous = Files.readString(dir.resolve("shard-0/console.log.1"));
        assertThat(log).contains("with PID " + now).doesNotContain("with PID " + old);
        assertThat(previous).contains("with PID " + old).contains("listening on https://");
    }

    @Test
    @Order(2)
    void clusterStart_pidFileNamesAZombie_startsTheShard() throws Exception {
        assertThat(glassledger("cluster", "stop", "--dir", dir.toString()).output).contains("stopped shard-0");
        // A child that exits under a parent that never reaps it (the shell exec'd into sleep): a zombie.
        Process parent = helper("sh", "-c", "sleep 0.1 & echo $!; exec sleep 300");
        long zombie = Long.parseLong(new BufferedReader(new InputStreamReader(parent.getInputStream(),
                StandardCharsets.US_ASCII)).readLine().trim());
        await().atMost(Duration.ofSeconds(60)).until(() -> state(zombie).equals(Optional.of("Z")));
        Files.writeString(dir.resolve("shard-0/server.pid"), zombie + "\n");

        Result r = startCluster1();
        assertThat(r.exit).as(r.output).isZero();
        assertThat(startedPid(r)).isNotEqualTo(zombie).isEqualTo(shardPid());
    }

    @Test
    @Order(3)
    void clusterStartAndStop_pidFileNamesAnUnrelatedProcess_neitherTakesNorSignalsIt() throws Exception {
        assertThat(glassledger("cluster", "stop", "--dir", dir.toString()).output).contains("stopped shard-0");
        Process sleep = helper("sleep", "300");
        Files.writeString(dir.resolve("shard-0/server.pid"), sleep.pid() + "\n");

        Result r = startCluster1();
        assertThat(r.exit).as(r.output).isZero();
        assertThat(startedPid(r)).isNotEqualTo(sleep.pid()).isEqualTo(shardPid());

        Result stop = glassledger("cluster", "stop", "--dir", dir.toString());
        assertThat(stop.output).contains("stopped shard-0");
        Files.writeString(dir.resolve("shard-0/server.pid"), sleep.pid() + "\n");
        stop = glassledger("cluster", "stop", "--dir", dir.toString());
        assertThat(stop.output).contains("no running shard");
        assertThat(sleep.isAlive()).as("an unrelated process named by a stale pid file").isTrue();

        // A running shard is left alone by a second start.
        long started = startedPid(startCluster1());
        Result again = startCluster1();
        assertThat(again.exit).as(again.output).isZero();
        assertThat(again.output).doesNotContain("starting shard").contains("(pid " + started + ",");
    }

    @Test
    @Order(4)
    void auditorStartAndStop_runInTheBackgroundAndStopIt() throws Exception {
        Result r = auditorStart();
        assertThat(r.exit).as(r.output).isZero();
        assertThat(r.output).contains("auditor is up: https://127.0.0.1:" + auditorPort);
        long first = Long.parseLong(Files.readString(auditorDir.resolve("auditor.pid")).trim());
        assertThat(isAlive(first)).isTrue();

        Result twice = auditorStart();
        assertThat(twice.exit).isEqualTo(1);
        assertThat(twice.output).contains("already runs").contains("pid " + first);

        Result stop = glassledger("auditor", "stop", "--glassledger.auditor.data-dir=" + auditorDir);
        assertThat(stop.exit).as(stop.output).isZero();
        assertThat(stop.output).contains("stopped auditor (pid " + first + ")");
        await().atMost(Duration.ofSeconds(60)).until(() -> !isAlive(first));
        assertThat(auditorDir.resolve("auditor.pid")).doesNotExist();
        assertThat(glassledger("auditor", "stop", "--glassledger.auditor.data-dir=" + auditorDir).output)
                .contains("no running auditor");
        Path none = dir.resolve("no-auditor");
        assertThat(glassledger("auditor", "stop", "--glassledger.auditor.data-dir=" + none).output)
                .contains("no running auditor over " + none);
        assertThat(none).as("a stop creates nothing").doesNotExist();

        // Started again: a fresh log, the previous one kept; then one stop for the auditor and the cluster.
        Result again = auditorStart();
        assertThat(again.exit).as(again.output).isZero();
        long second = Long.parseLong(Files.readString(auditorDir.resolve("auditor.pid")).trim());
        assertThat(Files.readString(auditorDir.resolve("console.log.1"))).contains("with PID " + first);
        assertThat(Files.readString(auditorDir.resolve("console.log"))).contains("with PID " + second)
                .doesNotContain("with PID " + first);
        long shard = shardPid();
        Result all = glassledger("stop", "--dir", dir.toString(), "--glassledger.auditor.data-dir=" + auditorDir);
        assertThat(all.exit).as(all.output).isZero();
        assertThat(all.output).contains("stopped auditor (pid " + second + ")").contains("stopped shard-0 (pid "
                + shard + ")");
        await().atMost(Duration.ofSeconds(60)).until(() -> !isAlive(second) && !isAlive(shard));
    }

    private static Result auditorStart() throws Exception {
        return glassledger("auditor", "start", "--cluster", dir.resolve("cluster.properties").toString(),
                "--server.port=" + auditorPort, "--glassledger.auditor.data-dir=" + auditorDir);
    }

    private static Result startCluster1() throws Exception {
        return glassledger("cluster", "start", "--shards", "1", "--dir", dir.toString(), "--port",
                Integer.toString(port));
    }

    private static long startedPid(Result r) {
        Matcher m = STARTING.matcher(r.output);
        assertThat(m.find()).as("a shard started:\n" + r.output).isTrue();
        return Long.parseLong(m.group(1));
    }

    private static long shardPid() throws IOException {
        return Long.parseLong(Files.readString(dir.resolve("shard-0/server.pid")).trim());
    }

    private static boolean isAlive(long pid) {
        return state(pid).map(s -> !s.equals("Z")).orElse(false);
    }

    /** The process state letter from /proc/PID/stat (R, S, Z, ...), empty if there is no such process. */
    /**
     * Issue 34: {@code cluster start} over a directory that holds another layout is refused with exit 2, saying what
     * is there, how to start that one again, and how to start a new one beside it (its own directory and ports).
     */
    @Test
    @Order(5)
    void clusterStart_anotherLayoutInTheDirectory_saysWhatIsThereAndTheWaysOn_exit2() throws Exception {
        Result r = glassledger("cluster", "start", "--shards", "2", "--replicas", "3", "--dir", dir.toString(),
                "--port", Integer.toString(port));
        assertThat(r.exit).as(r.output).isEqualTo(2);
        assertThat(r.output).contains("already holds a cluster of 1 shard(s) x 1 replica(s); you asked for 2 x 3")
                .contains("./glassledger cluster start --dir " + dir + "\n").contains("--dir " + dir + "-2x3 --port")
                .contains("cluster stop --dir " + dir);
    }

    private static Optional<String> state(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return Optional.of(stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static Process helper(String... cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        helpers.add(p);
        return p;
    }

    record Result(int exit, String output) {
    }

    /**
     * Runs {@code ./glassledger ARGS} from the repository root (at most 180 s) and returns its exit status and its
     * output, which must never hold the ERR trap's message: every failure the script expects is handled.
     */
    private static Result glassledger(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("bash", root.resolve("glassledger").toString()));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "launcher-", ".out");
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(root.toFile()).redirectErrorStream(true)
                .redirectOutput(out.toFile());
        pb.environment().put("GLASSLEDGER_JAVA_OPTS", "-Xmx384m -XX:TieredStopAtLevel=1");
        pb.environment().put("GLASSLEDGER_CLUSTER_ARGS", "--glassledger.ledger-cache=64MB");
        pb.environment().remove("GLASSLEDGER_AUDITOR_APIKEY");
        Process p = pb.start();
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("./glassledger " + String.join(" ", args) + " did not end in 180 s:\n"
                    + Files.readString(out));
        }
        String output = Files.readString(out);
        System.out.println("./glassledger " + String.join(" ", args) + " -> " + p.exitValue() + "\n" + output);
        assertThat(output).as("the launcher's ERR trap").doesNotContain("glassledger: failed");
        return new Result(p.exitValue(), output);
    }
}
