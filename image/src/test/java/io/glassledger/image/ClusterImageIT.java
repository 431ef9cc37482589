package io.glassledger.image;

import static io.glassledger.image.Containers.ADMIN;
import static io.glassledger.image.Containers.AUDITOR;
import static io.glassledger.image.Containers.CLIENT;
import static io.glassledger.image.Containers.glassledger;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.glassledger.client.ClientConfig;
import io.glassledger.client.CommitPromise;
import io.glassledger.client.GlassLedgerClient;
import io.glassledger.verify.crypto.SigningKey;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.containers.GenericContainer;

/**
 * The image as a replicated shard (three containers, one Raft group, the cluster directory over all three) and as
 * its auditor, wired as the chart wires pods: one shared certificate and the secrets as mounted files, each member
 * finding its position from its own address ({@code glassledger.replication.self}, {@code directory.self}), the
 * auditor reading a mounted {@code cluster.properties} and pinning the mounted certificate. The SDK commits and
 * verifies through the group, goes on after its leader's container is killed, and audits against the auditor.
 */
class ClusterImageIT {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterImageIT.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PEER = "it-peer-key-0123456789abcdefghijklm";
    private static final int R = 3;

    @TempDir
    Path dir;

    @BeforeAll
    static void image() throws Exception {
        Containers.loadImage();
    }

    @Test
    void replicatedShard_formsAGroup_sdkCommitsVerifiesAcrossAFailover_andTheAuditorFindsItConsistent()
            throws Exception {
        Containers.Tls tls = Containers.Tls.make(dir.resolve("pki"));
        Map<String, String> keys = new java.util.HashMap<>(Containers.firstStartKeys());
        keys.put("glassledger.cluster.peer-key", PEER);
        // The shard's signing key: its replicas sign one ledger.
        keys.put("glassledger.auth.server-key", java.util.HexFormat.of().formatHex(SigningKey.generate().seed()));
        Path secrets = Containers.secretDirectory(dir.resolve("secrets"), keys);
        List<Integer> ports = Containers.freePorts(4 * R + 1);
        List<String> urls = IntStream.range(0, R).mapToObj(r -> "https://127.0.0.1:" + ports.get(r)).toList();
        List<String> raft = IntStream.range(0, R).mapToObj(r -> "127.0.0.1:" + ports.get(R + r)).toList();
        List<String> directory = IntStream.range(0, R).mapToObj(r -> "127.0.0.1:" + ports.get(2 * R + r)).toList();
        // Health probes and metrics.
        List<String> management = IntStream.range(0, R).mapToObj(r -> "https://127.0.0.1:" + ports.get(3 * R + 1 + r))
                .toList();
        List<GenericContainer<?>> members = new ArrayList<>();
        for (int r = 0; r < R; r++) {
            GenericContainer<?> m = glassledger("s0-" + r, "server")
                    .withEnv("SERVER_PORT", "" + ports.get(r))
                    .withEnv("MANAGEMENT_SERVER_PORT", "" + ports.get(3 * R + 1 + r))
                    .withEnv("GLASSLEDGER_SHARD", "0")
                    .withEnv("GLASSLEDGER_CLUSTER_SHARDS", "1")
                    .withEnv("GLASSLEDGER_CLUSTER_PEERS", String.join("|", urls))
                    .withEnv("GLASSLEDGER_REPLICATION_PEERS", String.join(",", raft))
                    .withEnv("GLASSLEDGER_REPLICATION_URLS", String.join(",", urls))
                    .withEnv("GLASSLEDGER_REPLICATION_SELF", raft.get(r))
                    .withEnv("GLASSLEDGER_DIRECTORY_PEERS", String.join(",", directory))
                    .withEnv("GLASSLEDGER_DIRECTORY_SELF", directory.get(r))
                    .withEnv("GLASSLEDGER_DIRECTORY_VOTERS", "3");
            tls.mount(m);
            Containers.mountReadOnly(m, secrets, "/etc/glassledger/secrets");
            Containers.mountData(m, Containers.ownedDirectory(dir.resolve("data-" + r)));
            members.add(Containers.waitingUntilListening(m));
        }
        int auditorPort = ports.get(3 * R);
        String auditorUrl = "https://127.0.0.1:" + auditorPort;
        Path clusterDir = Files.createDirectories(dir.resolve("cluster"));
        Files.writeString(clusterDir.resolve("cluster.properties"),
                "shards=1\nmap-version=1\nurl.0=" + String.join(",", urls) + "\n");
        Path auditorSecrets = Containers.secretDirectory(dir.resolve("auditor-secrets"),
                Map.of("glassledger.auditor.api-key", AUDITOR));
        GenericContainer<?> auditor = glassledger("auditor", "auditor")
                .withEnv("SERVER_PORT", "" + auditorPort)
                .withEnv("GLASSLEDGER_AUDITOR_CLUSTER", "/etc/glassledger/cluster/cluster.properties")
                .withEnv("GLASSLEDGER_AUDITOR_PIN_CERTIFICATE", "/etc/glassledger/cluster-tls/tls.crt")
                .withEnv("GLASSLEDGER_AUDITOR_POLL_INTERVAL", "200ms");
        tls.mount(auditor);
        Containers.mountReadOnly(auditor, clusterDir, "/etc/glassledger/cluster");
        Containers.mountReadOnly(auditor, tls.dir(), "/etc/glassledger/cluster-tls");
        Containers.mountReadOnly(auditor, auditorSecrets, "/etc/glassledger/secrets");
        Containers.mountData(auditor, Containers.ownedDirectory(dir.resolve("auditor-data")));
        Containers.waitingUntilListening(auditor);
        try {
            members.parallelStream().forEach(GenericContainer::start);
            for (String m : management) {
                await().atMost(Duration.ofSeconds(90)).until(() -> Containers.ready(m, tls.pin()));
            }
            int leader = leader(urls, tls.pin());
            LOG.info("the group formed: replica {} leads", leader);
            // One directory: a key made at one member works at every member.
            // A member is ready once its shard group serves; its directory group may still be electing
            // (role CANDIDATE, appliedIndex 0), so wait until each member's map names the replicas.
            for (String u : urls) {
                await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                    JsonNode cluster = JSON.readTree(Containers.https("GET", u + "/v1/cluster", tls.pin(), ADMIN).body());
                    assertTrue(cluster.toString().contains(raft.get(0)) || cluster.toString().contains(urls.get(0)),
                            "the shard map names the replicas: " + cluster);
                });
            }
            auditor.start();

            ClientConfig cfg = ClientConfig.builder()
                    .replicas(List.of(urls.stream().map(URI::create).toList()))
                    .pinnedCertSha256(tls.pin()).apiKey(CLIENT).signingKey(SigningKey.generate())
                    .stateFile(dir.resolve("client.json")).verifyDelay(Duration.ofMillis(50))
                    .auditors(List.of(URI.create(auditorUrl))).auditorPins(List.of(tls.pin())).build();
            try (GlassLedgerClient client = GlassLedgerClient.connect(cfg)) {
                commit(client, 0, 30);
                members.get(leader).getDockerClient().killContainerCmd(members.get(leader).getContainerId()).exec();
                LOG.info("killed the leader's container (replica {})", leader);
                commit(client, 30, 60);  // the SDK finds the new leader
                for (int i = 0; i < 60; i++) {
                    assertEquals("v" + i, client.get("cluster-k" + i));
                }
                long head = client.digest(0).blockNo();
                await().atMost(Duration.ofSeconds(90)).until(() -> audited(auditorUrl, tls.pin()) >= head);
                client.audit();  // the auditor agrees with what the client trusts
                JsonNode status = JSON.readTree(Containers.https("GET", auditorUrl + "/v1/status", tls.pin(), null)
                        .body());
                assertTrue(status.get("ok").asBoolean(), status.toString());
                assertEquals(0, status.get("shards").get(0).get("violations").size(), status.toString());
            }
        } finally {
            auditor.stop();
            members.forEach(GenericContainer::stop);
        }
    }

    private static void commit(GlassLedgerClient client, int from, int to) throws Exception {
        List<CommitPromise> promises = new ArrayList<>();
        for (int i = from; i < to; i++) {
            int n = i;
            promises.add(client.runTransaction(t -> {
                t.put("cluster-k" + n, "v" + n);
                return null;
            }).promise());
        }
        for (CommitPromise p : promises) {
            p.verification().get(90, TimeUnit.SECONDS);
        }
    }

    /** The replica the group names its leader (GET /v1/admin/replicas: the member whose role is LEADER). */
    private static int leader(List<String> urls, String pin) {
        int[] found = {-1};
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            for (String u : urls) {
                var resp = Containers.https("GET", u + "/v1/admin/replicas", pin, ADMIN);
                if (resp.statusCode() != 200) {
                    continue;
                }
                for (JsonNode m : JSON.readTree(resp.body()).path("replicas")) {
                    if (m.path("role").asText().equals("LEADER")) {
                        found[0] = urls.indexOf(m.path("url").asText().replaceAll("/+$", ""));
                        return found[0] >= 0;
                    }
                }
            }
            return false;
        });
        return found[0];
    }

    private static long audited(String auditorUrl, String pin) throws Exception {
        JsonNode s = JSON.readTree(Containers.https("GET", auditorUrl + "/v1/status", pin, null).body());
        return s.get("shards").get(0).get("auditedBlock").asLong();
    }
}
