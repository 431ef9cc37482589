package io.glassledger.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;

/**
 * What {@link RaftAttackIT} reads of the shard it attacks, through the replicas' admin routes, their storage and their
 * console logs: each replica's view of its group, its readiness, the directory's applied index, the shard's Raft log as
 * a replica stored it, and when the shard is idle. {@link #shard} is the cluster under attack, set once it started.
 */
final class AttackedShard {
    private static final ObjectMapper JSON = new ObjectMapper();
    static LauncherShard shard;

    private AttackedShard() {
    }

    /** Replica {@code r}'s view of its group, with the admin key. */
    static JsonNode replicas(int r) throws IOException {
        HttpResponse<byte[]> resp = shard.getAdmin(shard.urls.get(r), "/v1/admin/replicas");
        assertThat(resp.statusCode()).as("GET /v1/admin/replicas at replica %d", r).isEqualTo(200);
        return JSON.readTree(resp.body());
    }

    static boolean ready(int r) throws IOException {
        return shard.ready(r);
    }

    static long directoryApplied(int r) throws IOException {
        return JSON.readTree(LauncherShard.body(shard.get(shard.urls.get(r), "/v1/cluster"))).get("directory")
                .get("appliedIndex").asLong();
    }

    static void awaitDirectoryApplied(long index) {
        await().atMost(LauncherShard.PROGRESS).pollInterval(Duration.ofMillis(100)).until(() -> {
            for (int r = 0; r < LauncherShard.REPLICAS; r++) {
                if (directoryApplied(r) < index) {
                    return false;
                }
            }
            return true;
        });
    }

    /** Replica {@code r}'s copy of the shard's Raft log, as its storage holds it. */
    static List<LogEntryProto> shardLog(int r) throws IOException {
        return RaftProbe.readLog(shard.memberDir(r).resolve("raft-0").resolve(RaftProbe.SHARD_GROUP.getUuid()
                .toString()).resolve("current"));
    }

    static String console(int r) throws IOException {
        return Files.readString(shard.memberDir(r).resolve("console.log"), StandardCharsets.UTF_8);
    }

    /**
     * Waits until the shard is idle: the leader's and {@code follower}'s commit index equal, in the same term, and
     * unchanged since the previous read; returns {term, commit index} (the follower's last entry: the leader has
     * nothing more to send it).
     */
    static long[] awaitIdle(int leader, int follower) {
        AtomicReference<long[]> last = new AtomicReference<>(new long[] {-1, -1});
        AtomicReference<long[]> idle = new AtomicReference<>();
        await().atMost(LauncherShard.PROGRESS).pollInterval(Duration.ofMillis(300)).until(() -> {
            JsonNode l = replicas(leader);
            JsonNode f = replicas(follower);
            long[] now = {f.get("term").asLong(), f.get("commitIndex").asLong()};
            boolean same = l.get("term").asLong() == now[0] && l.get("commitIndex").asLong() == now[1]
                    && now[0] == last.get()[0] && now[1] == last.get()[1];
            last.set(now);
            if (same) {
                idle.set(now);
            }
            return same;
        });
        return idle.get();
    }
}
