package io.glassledger.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.glassledger.client.ClientConfig;
import io.glassledger.client.CommitPromise;
import io.glassledger.client.GlassLedgerClient;
import io.glassledger.client.IntegrityViolation;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.server.testing.LauncherCluster;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One shard replicated by a Raft group of three real server processes ({@code ./glassledger cluster start --shards 1
 * --replicas 3}), under a steady load of single-key commits from the SDK. While it runs: the leader is killed with
 * SIGKILL and restarted; a follower is killed, commits go on without it, and its whole data directory is deleted
 * before it restarts (it rejoins through the leader's snapshot: the test's log holds a snapshot every 100 entries
 * and small log segments, so the log it would need is purged); a fourth replica is added and removed. Each
 * failure once: a restart that catches up from the log is the old leader's, one through a snapshot the wiped
 * follower's. Then:
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
    /** The writers' own bound, far past the test's steps, should the test never stop them. */
    private static final Duration LOAD_BOUND = Duration.ofMinutes(20);
    private static final Duration PROGRESS = LauncherShard.PROGRESS;
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
        CommitLoad load = null;
        try (GlassLedgerClient client = GlassLedgerClient.connect(cfg)) {
            // The client registered its key at connect, at the leader, through the group's log: every replica knows
            // it (and a failover does not lose it).
            for (URI u : shard.urls) {
                await().atMost(PROGRESS).until(() -> {
                    HttpResponse<byte[]> r = shard.get(u, "/v1/clients/default");
                    return r.statusCode() == 200 && new String(r.body(), StandardCharsets.UTF_8)
                            .contains(key.publicKey().hex());
                });
            }
            // Two writers of 10 commits a second each: a steady load that every step waits on by count, paced so
            // that a restarted replica catches up on a busy 2-core machine (unpaced, two wrote 10,000 commits and
            // made each catch-up take minutes: a replica applies less than the leader takes when they share cores).
            load = new CommitLoad(client, "w", 2, 10, Long.toString(SEED), LOAD_BOUND);
            CommitLoad writes = load;
            Map<String, String> acked = load.acked;
            long t0 = System.nanoTime();
            SplittableRandom random = new SplittableRandom(SEED);
            await().atMost(PROGRESS).until(() -> acked.size() >= 50);

            // 1. The leader dies.
            int leader = shard.awaitLeader();
            long killedAt = System.nanoTime();
            shard.kill9(leader);
            // Resumed: the first commit begun after the kill is acknowledged.
            await().atMost(PROGRESS).pollInterval(Duration.ofMillis(20))
                    .until(() -> writes.acknowledgedAfter(killedAt) > 0);
            long resumed = writes.firstAcknowledgedAfter(killedAt);
            System.out.printf("ReplicationIT [%d s]: writes resumed %d ms after the leader (replica %d) was killed%n",
                    seconds(t0), TimeUnit.NANOSECONDS.toMillis(resumed - killedAt), leader);
            int newLeader = shard.awaitLeader();
            assertThat(newLeader).isNotEqualTo(leader);
            shard.start();
            shard.awaitCaughtUp(leader);
            System.out.printf("ReplicationIT [%d s]: replica %d caught up%n", seconds(t0), leader);
            assertThat(shard.isLeader(leader)).as("the old leader rejoins as a follower").isFalse();

            // 2. A follower dies and commits go on; then its disk is wiped (not replica 0's, whose directory the
            // launcher copies the certificate and keys from), and it rejoins through a snapshot of the leader.
            int wiped = 1 + random.nextInt(2);
            while (wiped == shard.awaitLeader()) {
                wiped = wiped == 1 ? 2 : 1;
            }
            // The entries a replica that starts empty would need must be gone from every replica's log first: the
            // leader keeps, behind a snapshot, what a live follower has not acknowledged, so a purge has to happen
            // while all three run. Counting commits instead (as before) depends on how many a group commit
            // batches: under load fewer entries closed no segment, nothing was purged, and the wiped replica
            // caught up from the log.
            await().atMost(PROGRESS).pollInterval(Duration.ofMillis(200)).until(() -> {
                for (int r = 0; r < LauncherShard.REPLICAS; r++) {
                    if (!shard.raftLogPurgedFromStart(r)) {
                        return false;
                    }
                }
                return true;
            });
            long before = acked.size();
            shard.kill9(wiped);
            long killed = acked.size();
            await().atMost(PROGRESS).until(() -> acked.size() >= killed + 50);
            System.out.printf("ReplicationIT [%d s]: %d commits before follower %d died, %d more since%n",
                    seconds(t0), before, wiped, acked.size() - killed);
            LauncherCluster.deleteTree(shard.memberDir(wiped));
            long atWipe = acked.size();
            // Enough entries that the group snapshots and purges the log the wiped replica would need.
            await().atMost(PROGRESS).until(() -> acked.size() >= atWipe + 300);
            shard.start();
            shard.awaitCaughtUp(wiped);
            System.out.printf("ReplicationIT [%d s]: replica %d caught up%n", seconds(t0), wiped);
            assertThat(Files.readString(shard.memberDir(wiped).resolve("console.log")))
                    .as("the wiped replica installed the leader's snapshot").contains("installing the leader's snapshot");

            // 3. Membership while the shard serves: a fourth replica is added at the leader, catches up, and is
            // removed again; commits go on throughout.
            shard.startFourth();
            int l4 = shard.awaitLeader();
            HttpResponse<byte[]> added = shard.postAdmin(shard.urls.get(l4), "/v1/admin/replicas/add",
                    "{\"id\":\"r3\",\"raft\":\"" + shard.raftAddress(3) + "\",\"url\":\"" + shard.url(3) + "\"}");
            assertThat(added.statusCode()).as(new String(added.body(), StandardCharsets.UTF_8)).isEqualTo(200);
            assertThat(new String(added.body(), StandardCharsets.UTF_8)).contains("\"r3\"");
            long atAdd = acked.size();
            await().atMost(PROGRESS).pollInterval(Duration.ofMillis(250)).until(() -> {
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
                    seconds(t0), acked.size() - atAdd);
            await().atMost(PROGRESS).pollInterval(Duration.ofMillis(250)).until(() -> shard.ready(3));
            int l5 = shard.awaitLeader();
            HttpResponse<byte[]> removed = shard.postAdmin(shard.urls.get(l5), "/v1/admin/replicas/remove",
                    "{\"id\":\"r3\"}");
            assertThat(removed.statusCode()).as(new String(removed.body(), StandardCharsets.UTF_8)).isEqualTo(200);
            assertThat(new String(shard.getAdmin(shard.urls.get(shard.awaitLeader()), "/v1/admin/replicas").body(),
                    StandardCharsets.UTF_8)).doesNotContain("\"r3\"");
            // Health tells the truth: removed from its group, the replica says it is not ready (it said UP before).
            await().atMost(PROGRESS).pollInterval(Duration.ofMillis(250)).until(() -> !shard.ready(3));
            shard.stopFourth();
            long atRemove = acked.size();
            await().atMost(PROGRESS).until(() -> acked.size() >= atRemove + 50);

            load.stop();
            System.out.printf("ReplicationIT [%d s]: %d commits acknowledged, %d refused or of unknown outcome%n",
                    seconds(t0), acked.size(), load.unacknowledged());

            // Every replica at the same head, with the same signed head at every block.
            shard.assertIdenticalBlocks();

            // Nothing acknowledged lost, every promise verified.
            CommitLoad.assertReadBack(client, load);
            for (CommitPromise p : load.promises) {
                // Completes normally only once the promise verified (a violation completes it exceptionally).
                assertThat(p.verification().get(2, TimeUnit.MINUTES)).as(p.toString()).isNotNull();
            }
            assertThat(violations).isEmpty();
            System.out.printf("ReplicationIT [%d s]: every acknowledged commit read back and verified%n", seconds(t0));
        } finally {
            if (load != null) {
                load.stopNow();
            }
        }
    }

    private static long seconds(long since) {
        return TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - since);
    }
}
