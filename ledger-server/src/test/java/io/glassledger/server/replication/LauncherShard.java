package io.glassledger.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.glassledger.api.PinnedTrustManager;
import io.glassledger.server.testing.ExecJar;
import io.glassledger.server.testing.LauncherCluster;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One shard of three replicas, run as real server processes by the launcher ({@link LauncherCluster}: {@code
 * ./glassledger cluster start --shards 1 --replicas 3}), for the replication tests: starting and restarting members,
 * finding the leader, reading heads, and comparing the replicas' signed heads block by block.
 *
 * <p>Waits for progress (a leader, a caught-up replica, identical heads) are bounded in minutes: on a loaded machine
 * an election or a catch-up takes far longer than on a quiet one, and the condition, not the bound, ends the wait.
 */
final class LauncherShard implements AutoCloseable {
    static final int REPLICAS = 3;
    /** The bound of a wait for the shard's progress: an election, a catch-up, every replica at one head. */
    static final Duration PROGRESS = Duration.ofMinutes(3);
    /** The servers' arguments: a snapshot every 100 entries and small log segments, so a wiped replica needs one. */
    private static final String ARGS = "--glassledger.replication.snapshot-every=100 "
            + "--glassledger.replication.snapshot-min-interval=3s --glassledger.replication.log-segment-size=128KB "
            + "--glassledger.ledger-cache=32MB --logging.level.root=WARN "
            + "--logging.level.io.glassledger.server.StartupReport=INFO "
            + "--logging.level.io.glassledger.server.replication=INFO";

    final LauncherCluster cluster;
    final Path root;
    final Path dir;
    final int port;
    String apiKey;
    String pin;
    List<URI> urls;
    private HttpClient http;

    /**
     * @param dir the cluster's directory (deleted first)
     * @param env extra environment for the launcher (merged over the tests' defaults)
     */
    LauncherShard(Path dir, Map<String, String> env) throws IOException {
        this.cluster = new LauncherCluster(dir, 1, REPLICAS, ARGS, env);
        this.root = cluster.root;
        this.dir = cluster.dir;
        this.port = cluster.port;
    }

    /** Starts every member that is down (all, the first time), and reads the cluster file and the client key. */
    void start() throws Exception {
        cluster.start();
        if (urls != null) {
            return;
        }
        pin = cluster.pin();
        urls = cluster.urls(0);
        assertThat(urls).hasSize(REPLICAS);
        apiKey = cluster.credential("default");
        http = HttpClient.newBuilder().sslContext(PinnedTrustManager.sslContext(pin))
                .connectTimeout(Duration.ofSeconds(2)).build();
    }

    @Override
    public void close() throws Exception {
        if (extra != null) {
            extra.destroyForcibly();
        }
        cluster.close();
    }

    private Process extra;

    /** The admin API key of the cluster's first start. */
    String adminKey() throws IOException {
        return cluster.credential("admin");
    }

    /** The Raft address of replica {@code r} (a fourth one included). */
    String raftAddress(int r) {
        return "127.0.0.1:" + (port + 1000 + r);
    }

    /** The HTTPS URL of replica {@code r} (a fourth one included). */
    URI url(int r) {
        return URI.create("https://127.0.0.1:" + (port + r));
    }

    /** The management port's URL of replica {@code r} (health probes, metrics): the launcher's P + 3000 + r. */
    URI management(int r) {
        return URI.create("https://127.0.0.1:" + (port + 3000 + r));
    }

    /**
     * Starts a fourth server, replica {@code r3}, the way an operator would before {@code POST
     * /v1/admin/replicas/add}: an empty data directory with the shard's signing key, the cluster's certificate and
     * API keys, the group and itself as its Raft peers, and {@code join} (it waits to be added).
     */
    void startFourth() throws Exception {
        Path d = memberDir(REPLICAS);
        Path first = memberDir(0);
        Files.createDirectories(d.resolve("tls"));
        Files.createDirectories(d.resolve("auth"));
        for (String f : List.of("server.key", "tls/server.p12", "tls/server.p12.password", "auth/api-keys.json")) {
            Files.copy(first.resolve(f), d.resolve(f));
        }
        List<String> rafts = new ArrayList<>();
        List<String> https = new ArrayList<>();
        for (int r = 0; r <= REPLICAS; r++) {
            rafts.add(raftAddress(r));
            https.add(url(r).toString());
        }
        List<String> cmd = new ArrayList<>(ExecJar.javaCommand(
                root.resolve("ledger-server/target/ledger-server-0.1.0-SNAPSHOT-exec.jar"),
                LauncherCluster.JAVA_OPTS.split(" ")));
        cmd.addAll(List.of("--glassledger.data-dir=" + d, "--glassledger.shard=0", "--server.port=" + (port + REPLICAS),
                "--management.server.port=" + (port + 3000 + REPLICAS),
                "--glassledger.ledger-cache=32MB", "--logging.level.root=WARN",
                "--logging.level.io.glassledger.server.replication=INFO",
                "--glassledger.replication.peers=" + String.join(",", rafts),
                "--glassledger.replication.urls=" + String.join(",", https),
                "--glassledger.replication.replica=" + REPLICAS, "--glassledger.replication.join=true"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(d.resolve("console.log").toFile());
        pb.environment().put("GLASSLEDGER_CLUSTER_PEERKEY", Files.readString(dir.resolve("peer.key")).trim());
        extra = pb.start();
        await().atMost(PROGRESS).pollInterval(Duration.ofMillis(250)).ignoreExceptions()
                .until(() -> get(url(REPLICAS), "/v1/info").statusCode() == 200);
    }

    void stopFourth() throws InterruptedException {
        extra.destroyForcibly();
        extra.waitFor(60, TimeUnit.SECONDS);
        extra = null;
    }

    /** POST with the admin key. */
    HttpResponse<byte[]> postAdmin(URI base, String path, String json) throws IOException {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
                    .header("Authorization", "Bearer " + adminKey()).timeout(Duration.ofSeconds(60))
                    .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    /** GET with the admin key. */
    HttpResponse<byte[]> getAdmin(URI base, String path) throws IOException {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(base + path))
                    .header("Authorization", "Bearer " + adminKey()).timeout(Duration.ofSeconds(30)).GET().build(),
                    HttpResponse.BodyHandlers.ofByteArray());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    Path memberDir(int replica) {
        return cluster.member(0, replica);
    }

    /**
     * True once replica {@code r}'s Raft log of the shard's group (its {@code raft-0} directory; the cluster
     * directory's group has a log of its own) no longer holds the group's first entries: Ratis names a closed
     * segment {@code log_START-END} and the open one {@code log_inprogress_START}, and deletes closed segments behind a
     * snapshot. A replica that starts empty can then only catch up from that replica through a snapshot.
     */
    boolean raftLogPurgedFromStart(int r) throws IOException {
        Path raft = memberDir(r).resolve("raft-0");
        List<String> segments = new ArrayList<>();
        try (java.util.stream.Stream<Path> groups = Files.list(raft)) {
            for (Path current : groups.map(g -> g.resolve("current")).toList()) {
                // Listed, not walked: the replica deletes old snapshots and segments meanwhile.
                try (java.util.stream.Stream<Path> files = Files.list(current)) {
                    files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("log_"))
                            .forEach(segments::add);
                } catch (java.nio.file.NoSuchFileException | java.nio.file.NotDirectoryException e) {
                    // not a group's directory
                }
            }
        } catch (java.nio.file.NoSuchFileException e) {
            return false; // not started yet
        }
        return !segments.isEmpty()
                && segments.stream().noneMatch(n -> n.startsWith("log_0-") || n.equals("log_inprogress_0"));
    }

    /** The replica that answers a latest read (only a leader does), once there is one. */
    int awaitLeader() {
        int[] found = {-1};
        await().atMost(PROGRESS).pollInterval(Duration.ofMillis(50)).until(() -> {
            for (int r = 0; r < REPLICAS; r++) {
                if (isLeader(r)) {
                    found[0] = r;
                    return true;
                }
            }
            return false;
        });
        return found[0];
    }

    boolean isLeader(int r) {
        try {
            return post(urls.get(r), "/v1/get", "{\"keys\":[\"azE=\"]}").statusCode() == 200;
        } catch (IOException e) {
            return false;
        }
    }

    /** Waits until replica {@code r} follows a leader other than itself and is within two blocks of its head. */
    void awaitCaughtUp(int r) {
        await().atMost(PROGRESS).pollInterval(Duration.ofMillis(200)).until(() -> {
            int l = awaitLeader();
            return l != r && headBlock(r) >= headBlock(l) - 2 && headBlock(r) > 0;
        });
    }

    long headBlock(int r) {
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

    /**
     * Waits for every replica to reach the same head, then checks that all of them serve byte-identical signed heads
     * for every block; returns that head.
     */
    long assertIdenticalBlocks() throws IOException {
        await().atMost(PROGRESS).until(() -> {
            long h0 = headBlock(0);
            return h0 > 0 && headBlock(1) == h0 && headBlock(2) == h0;
        });
        long head = headBlock(0);
        // 32 blocks at a time, every replica's answers in flight together (one by one, thousands of requests took
        // a minute on a loaded machine).
        for (long from = 1; from <= head; from += 32) {
            List<List<CompletableFuture<HttpResponse<byte[]>>>> heads = new ArrayList<>();
            for (long b = from; b <= Math.min(head, from + 31); b++) {
                List<CompletableFuture<HttpResponse<byte[]>>> at = new ArrayList<>();
                for (int r = 0; r < REPLICAS; r++) {
                    at.add(http.sendAsync(request(URI.create(urls.get(r) + "/v1/head?block=" + b)).GET().build(),
                            HttpResponse.BodyHandlers.ofByteArray()));
                }
                heads.add(at);
            }
            for (int i = 0; i < heads.size(); i++) {
                String h = body(heads.get(i).get(0).join());
                for (int r = 1; r < REPLICAS; r++) {
                    assertThat(body(heads.get(i).get(r).join())).as("block %d at replica %d", from + i, r)
                            .isEqualTo(h);
                }
            }
        }
        return head;
    }

    /** Whether replica {@code r} says it is ready (its readiness probe answers 200, not 503). */
    boolean ready(int r) {
        try {
            return get(management(r), "/actuator/health/readiness").statusCode() == 200;
        } catch (IOException e) {
            return false;
        }
    }

    HttpResponse<byte[]> get(URI base, String path) throws IOException {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
    }

    HttpResponse<byte[]> post(URI base, String path, String json) throws IOException {
        return send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    /** A request with the client key; 30 s for the answer, which a loaded machine can take. */
    private HttpRequest.Builder request(URI uri) {
        return HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + apiKey).timeout(Duration.ofSeconds(30));
    }

    private HttpResponse<byte[]> send(HttpRequest.Builder b) throws IOException {
        try {
            return http.send(b.header("Authorization", "Bearer " + apiKey).timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    static String body(HttpResponse<byte[]> r) {
        assertThat(r.statusCode()).isEqualTo(200);
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    void kill9(int replica) throws Exception {
        cluster.kill9(0, replica);
    }

    static void deleteTree(Path p) throws IOException {
        LauncherCluster.deleteTree(p);
    }
}
