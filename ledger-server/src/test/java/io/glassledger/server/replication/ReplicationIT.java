package io.glassledger.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.glassledger.api.PinnedTrustManager;
import io.glassledger.client.ClientConfig;
import io.glassledger.client.CommitPromise;
import io.glassledger.client.GlassLedgerClient;
import io.glassledger.client.GlassLedgerException;
import io.glassledger.client.IntegrityViolation;
import io.glassledger.core.crypto.SigningKey;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One shard replicated by a Raft group of three real server processes ({@code ./glassledger cluster start --shards 1
 * --replicas 3}), under a steady load of single-key commits from the SDK. While it runs: the leader is killed with
 * SIGKILL and restarted, a follower is killed and restarted, and a follower's whole data directory is deleted
 * before it restarts (it rejoins through the leader's snapshot: the test's log holds a snapshot every 100 entries
 * and small log segments, so the log it would need is purged). Then:
 * <ul>
 *   <li>the client key registered at connect is known to every replica (it went through the group's log);</li>
 *   <li>writes resume after the leader's death (the time is logged; benchmark/run replication measures it);</li>
 *   <li>the killed leader rejoins as a follower, and every restarted replica catches up;</li>
 *   <li>no acknowledged commit is lost: each reads back, verified, with its value;</li>
 *   <li>every acknowledged promise verifies, and no integrity violation is reported;</li>
 *   <li>the three replicas hold byte-identical signed heads for every block (the same blocks, digests and
 *       signatures).</li>
 * </ul>
 */
class ReplicationIT {
    private static final long SEED = System.nanoTime();
    private static Path root;
    private static Path dir;
    private static int port;
    private static String apiKey;
    private static String pin;
    private static List<URI> urls;
    private static HttpClient http;

    @BeforeAll
    static void startCluster() throws Exception {
        System.out.println("ReplicationIT seed " + SEED);
        root = Path.of("").toAbsolutePath().getParent();
        dir = Path.of("target", "replication-it").toAbsolutePath();
        deleteTree(dir);
        Files.createDirectories(dir);
        port = freePorts();
        launcher("start", "--shards", "1", "--replicas", "3", "--dir", dir.toString(), "--port",
                Integer.toString(port));
        Properties cluster = new Properties();
        try (var in = Files.newBufferedReader(dir.resolve("cluster.properties"))) {
            cluster.load(in);
        }
        pin = cluster.getProperty("pin");
        urls = new ArrayList<>();
        for (String u : cluster.getProperty("url.0").split(",")) {
            urls.add(URI.create(u));
        }
        assertThat(urls).hasSize(3);
        for (String line : Files.readAllLines(dir.resolve("credentials.txt"))) {
            String[] f = line.split("\t");
            if (f.length == 3 && f[0].equals("default")) {
                apiKey = f[2];
            }
        }
        http = HttpClient.newBuilder().sslContext(PinnedTrustManager.sslContext(pin))
                .connectTimeout(Duration.ofSeconds(2)).build();
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (dir != null) {
            launcher("stop", "--dir", dir.toString());
        }
    }

    @Test
    void failuresUnderLoad_loseNothingAcknowledged_andReplicasFormIdenticalBlocks() throws Exception {
        SigningKey key = SigningKey.generate();
        List<IntegrityViolation> violations = new CopyOnWriteArrayList<>();
        ClientConfig cfg = ClientConfig.builder().clusterFile(dir.resolve("cluster.properties")).apiKey(apiKey)
                .signingKey(key).stateFile(dir.resolve("client-state.json")).verifyDelay(Duration.ofMillis(200))
                .violationHandler(violations::add).build();
        Map<String, String> acked = new ConcurrentHashMap<>();
        List<CommitPromise> promises = new CopyOnWriteArrayList<>();
        // Per acknowledged commit: when it was begun and when it was acknowledged (nanoTime).
        ConcurrentLinkedQueue<long[]> ackTimes = new ConcurrentLinkedQueue<>();
        AtomicLong unknown = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        try (GlassLedgerClient client = GlassLedgerClient.connect(cfg)) {
            // The client registered its key at connect, at the leader, through the group's log: every replica knows
            // it (and a failover does not lose it).
            for (URI u : urls) {
                await().atMost(Duration.ofSeconds(10)).until(() -> {
                    HttpResponse<byte[]> r = get(u, "/v1/clients/default");
                    return r.statusCode() == 200 && new String(r.body(), StandardCharsets.UTF_8)
                            .contains(key.publicKey().hex());
                });
            }
            List<Thread> writers = new ArrayList<>();
            long until = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
            for (int t = 0; t < 4; t++) {
                int w = t;
                Thread th = new Thread(() -> {
                    for (int n = 0; !stop.get() && System.nanoTime() < until; n++) {
                        String k = "w" + w + "-" + n;
                        String v = "v" + n + "-" + SEED;
                        long begun = System.nanoTime();
                        try {
                            CommitPromise p = client.runTransaction(tx -> {
                                tx.put(k.getBytes(StandardCharsets.UTF_8), v.getBytes(StandardCharsets.UTF_8));
                                return null;
                            }).promise();
                            acked.put(k, v);
                            promises.add(p);
                            ackTimes.add(new long[] {begun, System.nanoTime()});
                        } catch (GlassLedgerException e) {
                            unknown.incrementAndGet();  // refused or of unknown outcome: may be there or not
                        }
                    }
                }, "writer-" + t);
                th.setDaemon(true);
                th.start();
                writers.add(th);
            }
            SplittableRandom random = new SplittableRandom(SEED);
            await().atMost(Duration.ofSeconds(60)).until(() -> acked.size() >= 50);

            // 1. The leader dies.
            int leader = awaitLeader();
            long killedAt = System.nanoTime();
            kill9(leader);
            // Resumed: the first commit begun after the kill is acknowledged.
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
                    .until(() -> ackTimes.stream().anyMatch(t -> t[0] > killedAt));
            long resumed = ackTimes.stream().filter(t -> t[0] > killedAt).mapToLong(t -> t[1]).min().orElseThrow();
            System.out.printf("ReplicationIT: writes resumed %d ms after the leader (replica %d) was killed%n",
                    TimeUnit.NANOSECONDS.toMillis(resumed - killedAt), leader);
            int newLeader = awaitLeader();
            assertThat(newLeader).isNotEqualTo(leader);
            launcher("start", "--shards", "1", "--replicas", "3", "--dir", dir.toString(), "--port",
                    Integer.toString(port));
            awaitCaughtUp(leader);
            assertThat(isLeader(leader)).as("the old leader rejoins as a follower").isFalse();

            // 2. A follower dies; commits go on.
            int follower = otherThan(awaitLeader(), random);
            long before = acked.size();
            kill9(follower);
            long killed = acked.size();
            await().atMost(Duration.ofSeconds(30)).until(() -> acked.size() >= killed + 50);
            System.out.printf("ReplicationIT: %d commits before follower %d died, %d more since%n", before,
                    follower, acked.size() - killed);
            launcher("start", "--shards", "1", "--replicas", "3", "--dir", dir.toString(), "--port",
                    Integer.toString(port));
            awaitCaughtUp(follower);

            // 3. A follower's disk is wiped (not replica 0, whose directory the launcher copies the certificate and
            // keys from); it rejoins through a snapshot of the leader.
            int wiped = 1 + random.nextInt(2);
            while (wiped == awaitLeader()) {
                wiped = wiped == 1 ? 2 : 1;
            }
            kill9(wiped);
            deleteTree(dir.resolve("shard-0-r" + wiped));
            long atWipe = acked.size();
            await().atMost(Duration.ofSeconds(60)).until(() -> acked.size() >= atWipe + 300);
            launcher("start", "--shards", "1", "--replicas", "3", "--dir", dir.toString(), "--port",
                    Integer.toString(port));
            awaitCaughtUp(wiped);
            assertThat(Files.readString(dir.resolve("shard-0-r" + wiped).resolve("console.log")))
                    .as("the wiped replica installed the leader's snapshot").contains("installing the leader's snapshot");

            stop.set(true);
            for (Thread th : writers) {
                th.join(60_000);
            }
            System.out.printf("ReplicationIT: %d commits acknowledged, %d refused or of unknown outcome%n",
                    acked.size(), unknown.get());

            // Every replica at the same head, with the same signed head at every block.
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                long h0 = headBlock(0);
                return h0 > 0 && headBlock(1) == h0 && headBlock(2) == h0;
            });
            long head = headBlock(0);
            for (long b = 1; b <= head; b++) {
                String h = body(get(urls.get(0), "/v1/head?block=" + b));
                for (int r = 1; r < 3; r++) {
                    assertThat(body(get(urls.get(r), "/v1/head?block=" + b))).as("block %d at replica %d", b, r)
                            .isEqualTo(h);
                }
            }

            // Nothing acknowledged lost, every promise verified.
            for (Map.Entry<String, String> e : acked.entrySet()) {
                assertThat(client.get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
            }
            for (CommitPromise p : promises) {
                // Completes normally only once the promise verified (a violation completes it exceptionally).
                assertThat(p.verification().get(60, TimeUnit.SECONDS)).as(p.toString()).isNotNull();
            }
            assertThat(violations).isEmpty();
        } finally {
            stop.set(true);
        }
    }

    private static int otherThan(int leader, SplittableRandom random) {
        int r = random.nextInt(2);
        return r >= leader ? r + 1 : r;
    }

    /** The replica that answers a latest read (only the leader does), once there is one. */
    private static int awaitLeader() {
        int[] found = {-1};
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> {
            for (int r = 0; r < 3; r++) {
                if (isLeader(r)) {
                    found[0] = r;
                    return true;
                }
            }
            return false;
        });
        return found[0];
    }

    private static boolean isLeader(int r) {
        try {
            return post(urls.get(r), "/v1/get", "{\"keys\":[\"azE=\"]}").statusCode() == 200;
        } catch (IOException e) {
            return false;
        }
    }

    private static void awaitCaughtUp(int r) {
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> {
            int l = awaitLeader();
            return l != r && headBlock(r) >= headBlock(l) - 2 && headBlock(r) > 0;
        });
    }

    private static long headBlock(int r) {
        try {
            HttpResponse<byte[]> resp = get(urls.get(r), "/v1/head");
            if (resp.statusCode() != 200) {
                return -1;
            }
            String b = new String(resp.body(), StandardCharsets.UTF_8);
            int i = b.indexOf("\"block\":");
            return Long.parseLong(b.substring(i + 8, b.indexOf(',', i)));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static HttpResponse<byte[]> get(URI base, String path) throws IOException {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
    }

    private static HttpResponse<byte[]> post(URI base, String path, String json) throws IOException {
        return send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    private static HttpResponse<byte[]> send(HttpRequest.Builder b) throws IOException {
        try {
            return http.send(b.header("Authorization", "Bearer " + apiKey).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private static String body(HttpResponse<byte[]> r) {
        assertThat(r.statusCode()).isEqualTo(200);
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    private static void kill9(int replica) throws Exception {
        long pid = Long.parseLong(Files.readString(dir.resolve("shard-0-r" + replica).resolve("server.pid")).trim());
        Process p = new ProcessBuilder("kill", "-9", Long.toString(pid)).inheritIO().start();
        assertThat(p.waitFor()).isZero();
        await().atMost(Duration.ofSeconds(10)).until(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
    }

    /** Runs {@code ./glassledger cluster ARGS} from the repository root and waits for it to succeed. */
    private static void launcher(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("bash", root.resolve("glassledger").toString(), "cluster"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(root.toFile()).redirectErrorStream(true);
        pb.environment().put("GLASSLEDGER_JAVA_OPTS", "-Xmx384m -XX:TieredStopAtLevel=1");
        pb.environment().put("GLASSLEDGER_CLUSTER_ARGS", "--glassledger.replication.snapshot-every=100 "
                + "--glassledger.replication.snapshot-min-interval=3s --glassledger.replication.log-segment-size=128KB --glassledger.ledger-cache=32MB "
                + "--logging.level.root=WARN --logging.level.io.glassledger.server.StartupReport=INFO "
                + "--logging.level.io.glassledger.server.replication=INFO");
        Process p = pb.start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(180, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(output).isZero();
    }

    /** A port P with P..P+2 (HTTPS) and P+1000..P+1002 (Raft) free. */
    private static int freePorts() {
        for (int attempt = 0; attempt < 50; attempt++) {
            int base = 20_000 + new SplittableRandom().nextInt(20_000);
            boolean free = true;
            for (int i = 0; i < 3 && free; i++) {
                free = free(base + i) && free(base + 1000 + i);
            }
            if (free) {
                return base;
            }
        }
        throw new IllegalStateException("no free ports");
    }

    private static boolean free(int p) {
        try (ServerSocket s = new ServerSocket(p, 1, java.net.InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void deleteTree(Path p) throws IOException {
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
