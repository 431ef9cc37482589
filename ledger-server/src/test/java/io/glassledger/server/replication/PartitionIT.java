package io.glassledger.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.glassledger.client.ClientConfig;
import io.glassledger.client.CommitPromise;
import io.glassledger.client.GlassLedgerClient;
import io.glassledger.client.IntegrityViolation;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.server.testing.TestPorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The leader of a three-replica shard cut off from the other two by a network partition, under load, then healed.
 *
 * <p>Every Raft connection between replicas goes through Toxiproxy (tools/toxiproxy/install), one proxy per
 * direction of every pair: the launcher names replica {@code r}'s Raft address {@code raft-s0-r<r>}, and each server
 * process resolves those names through a hosts file of its own ({@code -Djdk.net.hosts.file}) to a loopback address
 * of its own ({@code 127.0.0.<2+i>}), where the proxies for its outgoing links listen. Disabling the four proxies into
 * and out of the leader isolates it from both followers while clients still reach every replica over HTTPS.
 *
 * <p>Checked:
 * <ul>
 *   <li>the majority elects a new leader, and writes go on there;</li>
 *   <li>the minority side refuses writes: no commit begun at the isolated leader after the cut is acknowledged,
 *       and it stops answering as leader;</li>
 *   <li>no two leaders both acknowledge: every acknowledged commit, from either side, is in the one history the
 *       replicas agree on after the partition heals (read back verified; the signed heads of every block identical
 *       at the three replicas);</li>
 *   <li>the isolated leader's readiness goes DOWN while it is cut off (the others' stays UP), and UP again once
 *       it has rejoined;</li>
 *   <li>the old leader rejoins as a follower once the partition heals, and every promise verifies.</li>
 * </ul>
 */
class PartitionIT {
    private static final long SEED = System.nanoTime();
    private static final String HOST_PATTERN = "raft-s0-r";
    private static final Duration PROGRESS = LauncherShard.PROGRESS;
    /** The writers' own bound, far past the test's steps, should the test never stop them. */
    private static final Duration LOAD_BOUND = Duration.ofMinutes(15);
    private static LauncherShard shard;
    private static Process toxiproxy;
    private static URI toxiproxyApi;
    private static final HttpClient PLAIN = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @BeforeAll
    static void start() throws Exception {
        System.out.println("PartitionIT seed " + SEED);
        Path dir = Path.of("target", "partition-it").toAbsolutePath();
        Path root = Path.of("").toAbsolutePath().getParent();
        String toxiproxyBin = install(root);
        Map<String, String> env = Map.of("GLASSLEDGER_RAFT_HOST", HOST_PATTERN + "{replica}",
                "GLASSLEDGER_JAVA_OPTS", "-Xmx384m -XX:TieredStopAtLevel=1 -Djdk.net.hosts.file="
                        + dir.resolve("hosts-r{replica}"));
        shard = new LauncherShard(dir, env);
        int apiPort = shard.port + 4 * TestPorts.LAYER;  // reserved with the shard's; its management ports at + 3000
        assertThat(TestPorts.free(apiPort)).as("Toxiproxy's API port %d is free", apiPort).isTrue();
        toxiproxy = new ProcessBuilder(toxiproxyBin, "-host", "127.0.0.1", "-port", Integer.toString(apiPort))
                .redirectErrorStream(true).redirectOutput(dir.resolve("toxiproxy.log").toFile()).start();
        toxiproxyApi = URI.create("http://127.0.0.1:" + apiPort);
        await().atMost(PROGRESS).ignoreExceptions()
                .until(() -> toxiproxy("GET", "/version", null).statusCode() == 200);
        StringBuilder names = new StringBuilder();
        for (int j = 0; j < LauncherShard.REPLICAS; j++) {
            names.append(' ').append(HOST_PATTERN).append(j);
        }
        for (int i = 0; i < LauncherShard.REPLICAS; i++) {
            // Process i reaches every replica's Raft name at its own loopback address, where its proxies listen.
            Files.writeString(dir.resolve("hosts-r" + i), "127.0.0.1 localhost\n" + ownAddress(i) + names + "\n");
            for (int j = 0; j < LauncherShard.REPLICAS; j++) {
                if (i != j) {
                    int raft = shard.port + 1000 + j;
                    HttpResponse<String> r = toxiproxy("POST", "/proxies", "{\"name\":\"" + link(i, j)
                            + "\",\"listen\":\"" + ownAddress(i) + ":" + raft + "\",\"upstream\":\"127.0.0.1:" + raft
                            + "\",\"enabled\":true}");
                    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
                }
            }
        }
        shard.start();
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (shard != null) {
                shard.close();
            }
        } finally {
            if (toxiproxy != null) {
                toxiproxy.destroy();
                toxiproxy.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void isolatedLeader_refusesWrites_majorityGoesOn_andNothingAcknowledgedIsLost() throws Exception {
        SigningKey key = SigningKey.generate();
        List<IntegrityViolation> violations = new CopyOnWriteArrayList<>();
        Path clusterFile = shard.dir.resolve("cluster.properties");
        ClientConfig cfg = ClientConfig.builder().clusterFile(clusterFile).apiKey(shard.apiKey).signingKey(key)
                .stateFile(shard.dir.resolve("client-state.json")).verifyDelay(Duration.ofMillis(200))
                .violationHandler(violations::add).build();
        CommitLoad load = null;
        CommitLoad pinnedLoad = null;
        try (GlassLedgerClient client = GlassLedgerClient.connect(cfg)) {
            // Paced (CommitLoad): the rejoining leader catches up with a bounded amount of work on a busy machine.
            load = new CommitLoad(client, "w", 3, 8, Long.toString(SEED), LOAD_BOUND);
            CommitLoad writes = load;
            Map<String, String> acked = load.acked;
            await().atMost(PROGRESS).until(() -> acked.size() >= 50);
            int leader = shard.awaitLeader();
            URI leaderUrl = shard.urls.get(leader);
            // A client that knows only the leader's URL: it cannot follow a new leader, so whatever acknowledges its
            // commits is that one process.
            ClientConfig pinnedCfg = ClientConfig.builder().url(leaderUrl).pinnedCertSha256(shard.pin)
                    .apiKey(shard.apiKey).signingKey(key).stateFile(shard.dir.resolve("pinned-state.json"))
                    .verifyDelay(Duration.ofMillis(200)).violationHandler(violations::add).maxRetries(0).build();
            // (closed at the end: its promises verify through the replica it knows, a follower by then)
            try (GlassLedgerClient pinned = GlassLedgerClient.connect(pinnedCfg)) {
                pinnedLoad = new CommitLoad(pinned, "p", 2, 10, Long.toString(SEED), LOAD_BOUND);
                CommitLoad pinnedWrites = pinnedLoad;
                Map<String, String> pinnedAcked = pinnedLoad.acked;
                await().atMost(PROGRESS).until(() -> pinnedAcked.size() >= 20);

                // The cut: every Raft link into and out of the leader.
                for (int j = 0; j < LauncherShard.REPLICAS; j++) {
                    if (j != leader) {
                        setEnabled(link(leader, j), false);
                        setEnabled(link(j, leader), false);
                    }
                }
                long cutAt = System.nanoTime();
                System.out.printf("PartitionIT: replica %d (the leader) cut off from the others%n", leader);

                // The majority elects another leader, and writes go on there.
                int[] newLeader = {-1};
                await().atMost(PROGRESS).pollInterval(Duration.ofMillis(50)).until(() -> {
                    for (int r = 0; r < LauncherShard.REPLICAS; r++) {
                        if (r != leader && shard.isLeader(r)) {
                            newLeader[0] = r;
                            return true;
                        }
                    }
                    return false;
                });
                await().atMost(PROGRESS).pollInterval(Duration.ofMillis(50))
                        .until(() -> writes.acknowledgedAfter(cutAt) >= 100);
                long resumed = writes.firstAcknowledgedAfter(cutAt);
                System.out.printf("PartitionIT: replica %d leads the majority; writes resumed %d ms after the cut%n",
                        newLeader[0], TimeUnit.NANOSECONDS.toMillis(resumed - cutAt));
                // Linearizable latest reads: once the majority side has acknowledged a write, the old leader must
                // not answer a latest read (it would be stale: it cannot have that write), whether or not it has
                // noticed that it lost its group (its lease has lapsed, and it cannot reach a majority to renew it).
                String probe = "probe-" + SEED;
                client.runTransaction(tx -> {
                    tx.put(probe.getBytes(StandardCharsets.UTF_8), "after-the-cut".getBytes(StandardCharsets.UTF_8));
                    return null;
                });
                String probeB64 = java.util.Base64.getEncoder().encodeToString(probe.getBytes(StandardCharsets.UTF_8));
                for (int i = 0; i < 5; i++) {
                    HttpResponse<byte[]> r = shard.post(leaderUrl, "/v1/get", "{\"keys\":[\"" + probeB64 + "\"]}");
                    assertThat(r.statusCode()).as("a latest read at the isolated old leader after the majority "
                            + "acknowledged a write: %s", new String(r.body(), StandardCharsets.UTF_8)).isNotEqualTo(200);
                }
                // The isolated leader steps down: it answers no latest read, as no leader.
                await().atMost(PROGRESS).pollInterval(Duration.ofMillis(100))
                        .until(() -> !shard.isLeader(leader));
                // Health tells the truth: cut off from a majority, it says it is not ready; the majority's are.
                await().atMost(PROGRESS).pollInterval(Duration.ofMillis(200))
                        .until(() -> !shard.ready(leader));
                for (int j = 0; j < LauncherShard.REPLICAS; j++) {
                    int r = j;
                    if (r != leader) {
                        await().atMost(PROGRESS).pollInterval(Duration.ofMillis(200))
                                .until(() -> shard.ready(r));
                    }
                }
                // Its clients kept trying: at least two commits were begun there after the cut, and ended.
                await().atMost(PROGRESS).pollInterval(Duration.ofMillis(100))
                        .until(() -> pinnedWrites.begunAfter(cutAt).size() >= 2);
                List<long[]> afterCut = pinnedWrites.begunAfter(cutAt);
                System.out.printf("PartitionIT: %d commits begun at the isolated leader after the cut, %d "
                        + "acknowledged%n", afterCut.size(), afterCut.stream().filter(a -> a[2] == 1).count());
                assertThat(afterCut).as("commits begun at the isolated leader after the cut, acknowledged")
                        .noneMatch(a -> a[2] == 1);

                pinnedLoad.stop();
                // Heal: the old leader rejoins as a follower of the new one.
                for (int j = 0; j < LauncherShard.REPLICAS; j++) {
                    if (j != leader) {
                        setEnabled(link(leader, j), true);
                        setEnabled(link(j, leader), true);
                    }
                }
                shard.awaitCaughtUp(leader);
                assertThat(shard.isLeader(leader)).as("the old leader rejoins as a follower").isFalse();
                await().atMost(PROGRESS).pollInterval(Duration.ofMillis(200))
                        .until(() -> shard.ready(leader));
                long atHeal = acked.size();
                await().atMost(PROGRESS).until(() -> acked.size() >= atHeal + 50);
                load.stop();
                System.out.printf("PartitionIT: %d commits acknowledged through failover, %d at the old leader%n",
                        acked.size(), pinnedAcked.size());

                long head = shard.assertIdenticalBlocks();
                System.out.printf("PartitionIT: the three replicas serve identical signed heads for blocks 1..%d%n",
                        head);
                CommitLoad.assertReadBack(client, load, pinnedLoad);
                for (CommitLoad l : List.of(load, pinnedLoad)) {
                    for (CommitPromise p : l.promises) {
                        assertThat(p.verification().get(2, TimeUnit.MINUTES)).as(p.toString()).isNotNull();
                    }
                }
                assertThat(violations).isEmpty();
            }
        } finally {
            for (CommitLoad l : new CommitLoad[] {load, pinnedLoad}) {
                if (l != null) {
                    l.stopNow();
                }
            }
        }
    }

    private static String link(int from, int to) {
        return "r" + from + "-to-r" + to;
    }

    private static String ownAddress(int replica) {
        return "127.0.0." + (2 + replica);
    }

    private static void setEnabled(String proxy, boolean enabled) throws IOException {
        HttpResponse<String> r = toxiproxy("POST", "/proxies/" + proxy, "{\"enabled\":" + enabled + "}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    private static HttpResponse<String> toxiproxy(String method, String path, String json) throws IOException {
        HttpRequest.Builder b = HttpRequest.newBuilder(toxiproxyApi.resolve(path)).timeout(Duration.ofSeconds(5));
        b = json == null ? b.method(method, HttpRequest.BodyPublishers.noBody())
                : b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json));
        try {
            return PLAIN.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    /** Toxiproxy's server, installed from the Go module proxy on first use. */
    private static String install(Path root) throws Exception {
        Process p = new ProcessBuilder("bash", root.resolve("tools/toxiproxy/install").toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor(300, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("tools/toxiproxy/install").isZero();
        return out;
    }
}
