package io.glassledger.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.glassledger.api.PinnedTrustManager;
import io.glassledger.client.ClientConfig;
import io.glassledger.client.CommitPromise;
import io.glassledger.client.GlassLedgerClient;
import io.glassledger.client.GlassLedgerException;
import io.glassledger.client.IntegrityViolation;
import io.glassledger.verify.crypto.SigningKey;
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
    private static LauncherShard shard;

    @BeforeAll
    static void startCluster() throws Exception {
        System.out.println("ReplicationIT seed " + SEED);
        shard = new LauncherShard(Path.of("target", "replication-it"), Map.of());
        shard.start();
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (shard != null) {
            shard.close();
        }
    }

    @Test
    void failuresUnderLoad_loseNothingAcknowledged_andReplicasFormIdenticalBlocks() throws Exception {
        SigningKey key = SigningKey.generate();
        List<IntegrityViolation> violations = new CopyOnWriteArrayList<>();
        ClientConfig cfg = ClientConfig.builder().clusterFile(shard.dir.resolve("cluster.properties"))
                .apiKey(shard.apiKey).signingKey(key).stateFile(shard.dir.resolve("client-state.json"))
                .verifyDelay(Duration.ofMillis(200))
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
            for (URI u : shard.urls) {
                await().atMost(Duration.ofSeconds(10)).until(() -> {
                    HttpResponse<byte[]> r = shard.get(u, "/v1/clients/default");
                    return r.statusCode() == 200 && new String(r.body(), StandardCharsets.UTF_8)
                            .contains(key.publicKey().hex());
                });
            }
            List<Thread> writers = new ArrayList<>();
            // Bounded, and long enough for every step below on a busy 2-core machine: a writer stopping on its
            // bound before the last step leaves that step no commits to see.
            long until = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
            long t0 = System.nanoTime();
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
            int leader = shard.awaitLeader();
            long killedAt = System.nanoTime();
            shard.kill9(leader);
            // Resumed: the first commit begun after the kill is acknowledged.
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
                    .until(() -> ackTimes.stream().anyMatch(t -> t[0] > killedAt));
            long resumed = ackTimes.stream().filter(t -> t[0] > killedAt).mapToLong(t -> t[1]).min().orElseThrow();
            System.out.printf("ReplicationIT [%d s]: writes resumed %d ms after the leader (replica %d) was killed%n",
                    TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0), TimeUnit.NANOSECONDS.toMillis(resumed - killedAt),
                    leader);
            int newLeader = shard.awaitLeader();
            assertThat(newLeader).isNotEqualTo(leader);
            shard.start();
            shard.awaitCaughtUp(leader);
            System.out.printf("ReplicationIT [%d s]: replica %d caught up%n",
                    TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0), leader);
            assertThat(shard.isLeader(leader)).as("the old leader rejoins as a follower").isFalse();

            // 2. A follower dies; commits go on.
            int follower = otherThan(shard.awaitLeader(), random);
            long before = acked.size();
            shard.kill9(follower);
            long killed = acked.size();
            await().atMost(Duration.ofSeconds(30)).until(() -> acked.size() >= killed + 50);
            System.out.printf("ReplicationIT [%d s]: %d commits before follower %d died, %d more since%n",
                    TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0), before,
                    follower, acked.size() - killed);
            shard.start();
            shard.awaitCaughtUp(follower);
            System.out.printf("ReplicationIT [%d s]: replica %d caught up%n",
                    TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0), follower);

            // 3. A follower's disk is wiped (not replica 0, whose directory the launcher copies the certificate and
            // keys from); it rejoins through a snapshot of the leader.
            int wiped = 1 + random.nextInt(2);
            while (wiped == shard.awaitLeader()) {
                wiped = wiped == 1 ? 2 : 1;
            }
            shard.kill9(wiped);
            LauncherShard.deleteTree(shard.memberDir(wiped));
            long atWipe = acked.size();
            await().atMost(Duration.ofSeconds(60)).until(() -> acked.size() >= atWipe + 300);
            shard.start();
            shard.awaitCaughtUp(wiped);
            System.out.printf("ReplicationIT [%d s]: replica %d caught up%n",
                    TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0), wiped);
            assertThat(Files.readString(shard.memberDir(wiped).resolve("console.log")))
                    .as("the wiped replica installed the leader's snapshot").contains("installing the leader's snapshot");

            // 4. Membership while the shard serves: a fourth replica is added at the leader, catches up, and is
            // removed again; commits go on throughout.
            shard.startFourth();
            int l4 = shard.awaitLeader();
            HttpResponse<byte[]> added = shard.postAdmin(shard.urls.get(l4), "/v1/admin/replicas/add",
                    "{\"id\":\"r3\",\"raft\":\"" + shard.raftAddress(3) + "\",\"url\":\"" + shard.url(3) + "\"}");
            assertThat(added.statusCode()).as(new String(added.body(), StandardCharsets.UTF_8)).isEqualTo(200);
            assertThat(new String(added.body(), StandardCharsets.UTF_8)).contains("\"r3\"");
            long atAdd = acked.size();
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250)).until(() -> {
                HttpResponse<byte[]> h = shard.get(shard.url(3), "/v1/head");
                long leaderHead = shard.headBlock(shard.awaitLeader());
                if (h.statusCode() != 200 || leaderHead <= 0) {
                    return false;
                }
                String b = new String(h.body(), StandardCharsets.UTF_8);
                int i = b.indexOf("\"block\":");
                return Long.parseLong(b.substring(i + 8, b.indexOf(',', i))) >= leaderHead - 2;
            });
            System.out.printf("ReplicationIT [%d s]: replica r3 added and caught up; %d commits meanwhile%n",
                    TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0), acked.size() - atAdd);
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).until(() -> shard.ready(3));
            int l5 = shard.awaitLeader();
            HttpResponse<byte[]> removed = shard.postAdmin(shard.urls.get(l5), "/v1/admin/replicas/remove",
                    "{\"id\":\"r3\"}");
            assertThat(removed.statusCode()).as(new String(removed.body(), StandardCharsets.UTF_8)).isEqualTo(200);
            assertThat(new String(shard.getAdmin(shard.urls.get(shard.awaitLeader()), "/v1/admin/replicas").body(),
                    StandardCharsets.UTF_8)).doesNotContain("\"r3\"");
            // Health tells the truth: removed from its group, the replica says it is not ready (it said UP before).
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).until(() -> !shard.ready(3));
            shard.stopFourth();
            long atRemove = acked.size();
            await().atMost(Duration.ofSeconds(30)).until(() -> acked.size() >= atRemove + 50);

            stop.set(true);
            for (Thread th : writers) {
                th.join(60_000);
            }
            System.out.printf("ReplicationIT: %d commits acknowledged, %d refused or of unknown outcome%n",
                    acked.size(), unknown.get());

            // Every replica at the same head, with the same signed head at every block.
            shard.assertIdenticalBlocks();

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
}
