package io.glassledger.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static io.glassledger.server.replication.AttackedShard.awaitDirectoryApplied;
import static io.glassledger.server.replication.AttackedShard.awaitIdle;
import static io.glassledger.server.replication.AttackedShard.console;
import static io.glassledger.server.replication.AttackedShard.directoryApplied;
import static io.glassledger.server.replication.AttackedShard.ready;
import static io.glassledger.server.replication.AttackedShard.replicas;
import static io.glassledger.server.replication.AttackedShard.shardLog;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.glassledger.client.ClientConfig;
import io.glassledger.client.CommitPromise;
import io.glassledger.client.GlassLedgerClient;
import io.glassledger.client.GlassLedgerException;
import io.glassledger.client.IntegrityViolation;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.txn.ReplicatedLog;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.Transaction;
import io.glassledger.server.directory.DirectoryEntry;
import io.glassledger.server.replication.RaftProbe.Outcome;
import io.glassledger.server.replication.RaftProbe.Sent;
import io.glassledger.server.replication.RaftProbe.Wire;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.proto.RaftProtos.AppendEntriesReplyProto.AppendResult;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.io.grpc.Status;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The Raft ports of a shard of three replicas ({@code ./glassledger cluster start --shards 1 --replicas 3}, real
 * processes, {@link LauncherShard}) under attack from this test process, which holds Ratis's client, its gRPC stubs
 * and protos (issue 30, docs/ARCHITECTURE.md "Trust boundary"). In order, on one cluster:
 * <ol>
 *   <li><b>A stranger</b> (no cluster certificate), on the shard's and the directory's Raft port of every replica, in
 *       plaintext and over TLS without a client certificate (the server's certificate pinned, so the handshake gets as
 *       far as the server asking for the client's): group list, group info, leadership transfer, a configuration of
 *       one replica, group removal, a listener joining, pausing elections, and an AppendEntries from a peer that does
 *       not exist ({@code x9}) with a high term and an 8-byte garbage entry. Proves: no call is taken (no successful
 *       Ratis reply, no AppendEntries reply of any kind), each fails in the transport ({@code UNAVAILABLE}: the TLS
 *       handshake, before any gRPC service is reached); and after them the group is as it was: the same three
 *       replicas at every replica, every replica ready, a leader, the API keys work at every member, and an SDK commit
 *       verifies.</li>
 *   <li><b>An insider</b> holding the cluster's certificate and key (a member's key store):
 *     <ol type="a">
 *       <li>Ratis's admin service (group list, a configuration change) on both ports, and the shard's client service,
 *           are refused with {@code PERMISSION_DENIED}: the certificate opens no administration.</li>
 *       <li>An AppendEntries naming a sender that is no member ({@code x9}) is refused on the shard's and the
 *           directory's port ({@code PERMISSION_DENIED}, no reply), and each member logs "refused a Raft call", once
 *           (gRPC does not log the refusal again, with its stack trace).</li>
 *       <li>An AppendEntries forged in the real leader's name ({@code r<leader>}), in the current term, right after
 *           a follower's last entry (read from {@code /v1/admin/replicas} while the shard is idle), carrying an
 *           <em>unsealed</em> entry that it claims committed: refused at the gate ({@code PERMISSION_DENIED}, logged
 *           as not sealed); it is nowhere in the follower's Raft log (read from its storage), the follower stays
 *           ready, and the shard goes on committing, with the same signed heads at every replica.</li>
 *     </ol></li>
 *   <li><b>The directory replay</b>, from this process (over Ratis's client with the member certificate, which the
 *       directory's client port takes from members): an entry sealed with the cluster's peer key (rewriting shard 0's
 *       replicas to what they are) is taken; the same bytes sent again, by a client that retries as a member's own
 *       does, are refused at once before they are appended (a StateMachineException, "already in the directory's
 *       log"); a fresh entry sent after it is taken, and once every member has applied it, every member's copy of
 *       the directory's Raft log (read from its storage) holds the first entry once, and the fresh one once.</li>
 *   <li><b>A sealed entry that fails its check</b> (2d): the same forgery in the leader's name, but sealed with the
 *       shard's key (computed here from {@code shard-0.key}, {@link LogSeal}), around a {@code ReplicatedLog} entry
 *       whose one COMMIT record is a transaction in the SDK client's name whose signature does not verify, sent to
 *       one follower with the leader's commit index at that entry. The gate lets it through (it is sealed), the
 *       follower appends and commits it, and its check before applying fails: it quarantines it (the evidence
 *       {@code quarantine/entry-<term>-<index>.bin}, the exact bytes, and {@code .txt}, the reason), leaves the group,
 *       and its readiness goes DOWN; the shard goes on through its leader and other follower (an SDK commit
 *       verifies). Made deterministic by forging only while the shard is idle (the leader's and the follower's commit
 *       index equal and unchanged between two reads): then the follower's last entry is its commit index and the real
 *       leader has nothing to send at the next index. Should the leader still get there first (the follower answers
 *       INCONSISTENCY, or already holds a real entry at that index and skips the forged one, which the leader's commit
 *       index passing it shows), the attempt is logged and made again, up to five times.</li>
 *   <li>A server of another shard, which holds the cluster's member certificate but not this shard's key, is
 *       refused in the handshake on the shard's Raft ports (they present and trust only the identity derived from
 *       the shard's signing key).</li>
 *   <li><b>A known limit</b>, disabled: a <em>configuration</em> entry forged in the leader's name by a holder of
 *       the shard's key (a replica of the shard: the gate seals and checks state-machine entries only, and takes a
 *       member's word for its id) makes a follower the leader of a group of its own.</li>
 * </ol>
 * Run alone, building the modules it needs from this tree, not from the local Maven
 * repository, which other builds on the machine may have overwritten:
 * {@code ./mvnw -B -pl ledger-server -am package org.apache.maven.plugins:maven-failsafe-plugin:3.5.3:integration-test
 * org.apache.maven.plugins:maven-failsafe-plugin:3.5.3:verify -Dit.test=RaftAttackIT -Dtest=NONE
 * -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RaftAttackIT {
    private static final long SEED = System.nanoTime();
    private static final SplittableRandom RANDOM = new SplittableRandom(SEED);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String STRANGER = "x9";
    private static LauncherShard shard;
    private static SigningKey clientKey;
    private static GlassLedgerClient sdk;
    private static final List<IntegrityViolation> VIOLATIONS = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void startCluster() throws Exception {
        System.out.println("RaftAttackIT seed " + SEED);
        RaftProbe.quietLogs();
        shard = new LauncherShard(Path.of("target", "raft-attack-it"), Map.of());
        shard.start();
        AttackedShard.shard = shard;
        shard.awaitLeader();
        clientKey = SigningKey.generate();
        sdk = GlassLedgerClient.connect(ClientConfig.builder().clusterFile(shard.dir.resolve("cluster.properties"))
                .apiKey(shard.apiKey).signingKey(clientKey).stateFile(shard.dir.resolve("client-state.json"))
                .verifyDelay(Duration.ofMillis(200)).violationHandler(VIOLATIONS::add).build());
        commitAndVerify("before-the-attacks");
    }

    @AfterAll
    static void stopCluster() throws Exception {
        try {
            if (sdk != null) {
                sdk.close();
            }
        } finally {
            if (shard != null) {
                shard.close();
            }
        }
        assertThat(VIOLATIONS).isEmpty();
    }

    @Test
    @Order(1)
    void stranger_withoutCertificate_isTakenNowhere_andTheGroupIsUntouched() throws Exception {
        int leaderBefore = shard.awaitLeader();
        List<Outcome> outcomes = new ArrayList<>();
        for (Wire wire : List.of(RaftProbe.plaintext(), RaftProbe.tlsWithoutCertificate(shard.pin))) {
            for (int r = 0; r < LauncherShard.REPLICAS; r++) {
                int next = (r + 1) % LauncherShard.REPLICAS;
                outcomes.addAll(adminAttacks(shardGroup(), shardPeer(r), shardPeer(next), wire));
                outcomes.addAll(adminAttacks(directoryGroup(), directoryPeer(r), directoryPeer(next), wire));
                for (String address : List.of(shard.raftAddress(r), directoryAddress(r))) {
                    RaftGroupId g = address.equals(shard.raftAddress(r)) ? RaftProbe.SHARD_GROUP
                            : RaftProbe.DIRECTORY_GROUP;
                    String to = (g == RaftProbe.SHARD_GROUP ? "r" : "d") + r;
                    Sent sent = RaftProbe.sendOnce(address, wire, RaftProbe.appendEntries(g, STRANGER, to, 1_000_000,
                            RaftProbe.termIndex(0, 0), 1, garbage(8), 1));
                    outcomes.add(new Outcome(wire + " " + address + " appendEntries from " + STRANGER, sent.heard(),
                            sent.code(), sent.toString()));
                }
            }
        }
        outcomes.forEach(o -> System.out.println("RaftAttackIT stranger: " + o));
        assertThat(outcomes).hasSize(2 * 3 * 2 * 8);
        assertThat(outcomes).as("calls a stranger got taken").noneMatch(Outcome::heard);
        assertThat(outcomes).as("failed in the transport (no gRPC service reached)")
                .allMatch(o -> o.code() == Status.Code.UNAVAILABLE);

        assertGroupUntouched();
        int leaderAfter = shard.awaitLeader();
        System.out.printf("RaftAttackIT: leader before the stranger r%d, after r%d%n", leaderBefore, leaderAfter);
        commitAndVerify("after-the-stranger");
    }

    @Test
    @Order(2)
    void insider_adminAndShardClientService_areRefusedEvenWithTheCertificate() throws Exception {
        Wire member = RaftProbe.memberCertificate(shard.memberDir(0), shard.pin);
        Wire shardMember = RaftProbe.shardMember(shard.dir);
        List<Outcome> outcomes = new ArrayList<>();
        for (int r = 0; r < LauncherShard.REPLICAS; r++) {
            for (boolean directory : new boolean[] {false, true}) {
                RaftGroup g = directory ? directoryGroup() : shardGroup();
                RaftPeer target = directory ? directoryPeer(r) : shardPeer(r);
                Wire wire = directory ? member : shardMember;
                try (RaftClient c = RaftProbe.client(g, target.getId(), wire, RetryPolicies.noRetry())) {
                    String at = wire + " " + target.getAddress() + " ";
                    outcomes.add(RaftProbe.attempt(at + "groupList", () -> {
                        c.getGroupManagementApi(target.getId()).list();
                        return true;
                    }));
                    outcomes.add(RaftProbe.attempt(at + "setConfiguration to one replica",
                            () -> c.admin().setConfiguration(List.of(target)).isSuccess()));
                    if (!directory) {
                        outcomes.add(RaftProbe.attempt(at + "client request (the shard's client service)",
                                () -> c.io().send(Message.valueOf("not the engine's")).isSuccess()));
                    }
                }
            }
        }
        outcomes.forEach(o -> System.out.println("RaftAttackIT insider: " + o));
        assertThat(outcomes).hasSize(3 * 5);
        assertThat(outcomes).as("calls taken").noneMatch(Outcome::heard);
        assertThat(outcomes).as("refused by the gate").allMatch(o -> o.code() == Status.Code.PERMISSION_DENIED);
        assertGroupUntouched();
    }

    /**
     * A server of another shard holds the cluster's member certificate but not this shard's key: the shard's Raft
     * ports refuse it in the handshake, so it can neither call them nor speak for one of the shard's replicas.
     */
    @Test
    @Order(2)
    void anotherShardsMember_withTheClusterCertificate_isRefusedAtTheShardsRaftPorts() throws Exception {
        Wire member = RaftProbe.memberCertificate(shard.memberDir(0), shard.pin);
        List<Outcome> outcomes = new ArrayList<>();
        for (int r = 0; r < LauncherShard.REPLICAS; r++) {
            RaftPeer target = shardPeer(r);
            try (RaftClient c = RaftProbe.client(shardGroup(), target.getId(), member, RetryPolicies.noRetry())) {
                outcomes.add(RaftProbe.attempt(member + " " + target.getAddress() + " groupList", () -> {
                    c.getGroupManagementApi(target.getId()).list();
                    return true;
                }));
            }
            int leader = shard.awaitLeader();
            Sent sent = RaftProbe.sendOnce(shard.raftAddress(r), member, RaftProbe.appendEntries(RaftProbe.SHARD_GROUP,
                    "r" + leader, "r" + r, 1_000_000, RaftProbe.termIndex(0, 0), 1, garbage(8), 1));
            System.out.println("RaftAttackIT: the cluster certificate's append to " + shard.raftAddress(r) + ": " + sent);
            assertThat(sent.heard()).as("an append over the cluster certificate answered: %s", sent).isFalse();
            assertThat(sent.code()).as("%s", sent).isEqualTo(Status.Code.UNAVAILABLE);
        }
        outcomes.forEach(o -> System.out.println("RaftAttackIT another shard's member: " + o));
        assertThat(outcomes).as("calls taken").noneMatch(Outcome::heard);
        assertThat(outcomes).as("refused in the handshake").allMatch(o -> o.code() == Status.Code.UNAVAILABLE);
        assertGroupUntouched();
    }

    @Test
    @Order(3)
    void insider_appendEntriesFromANonMember_isRefusedAndLogged() throws Exception {
        Wire member = RaftProbe.memberCertificate(shard.memberDir(0), shard.pin);
        Wire shardMember = RaftProbe.shardMember(shard.dir);
        for (int r = 0; r < LauncherShard.REPLICAS; r++) {
            int replica = r;
            // The gate logs at most one refusal a second: the forgery is sent again until its own line is there.
            for (boolean directory : new boolean[] {false, true}) {
                String address = directory ? directoryAddress(replica) : shard.raftAddress(replica);
                RaftGroupId g = directory ? RaftProbe.DIRECTORY_GROUP : RaftProbe.SHARD_GROUP;
                String to = (directory ? "d" : "r") + replica;
                String line = (directory ? "directory" : "shard 0") + ": refused a Raft call from";
                await().atMost(LauncherShard.PROGRESS).pollInterval(Duration.ofMillis(400)).until(() -> {
                    Sent sent = RaftProbe.sendOnce(address, directory ? member : shardMember,
                            RaftProbe.appendEntries(g, STRANGER, to,
                            1_000_000, RaftProbe.termIndex(0, 0), 1, garbage(8), 1));
                    System.out.println("RaftAttackIT: appendEntries from " + STRANGER + " to " + address + ": " + sent);
                    assertThat(sent.heard()).as("an append from a non-member answered: %s", sent).isFalse();
                    assertThat(sent.code()).as("%s", sent).isEqualTo(Status.Code.PERMISSION_DENIED);
                    return console(replica).lines().anyMatch(l -> l.contains(line)
                            && l.contains("sender '" + STRANGER + "' is not a member of the group"));
                });
            }
            // Each refusal is logged once, by the gate (at most a line a second), not again by gRPC with its stack.
            assertThat(console(replica)).doesNotContain("Exception while executing runnable");
        }
        assertGroupUntouched();
    }

    @Test
    @Order(4)
    void forgedLeader_unsealedEntry_isRefusedAtTheGate_andTheFollowerStaysReady() throws Exception {
        Wire member = RaftProbe.shardMember(shard.dir);  // a replica of the shard: it holds the shard's key
        int leader = shard.awaitLeader();
        int follower = (leader + 1) % LauncherShard.REPLICAS;
        long[] idle = awaitIdle(leader, follower);
        long term = idle[0];
        long index = idle[1];
        byte[] unsealed = garbage(8);
        System.out.printf("RaftAttackIT: forging an unsealed entry %d (term %d) as r%d to r%d%n", index + 1, term,
                leader, follower);
        await().atMost(LauncherShard.PROGRESS).pollInterval(Duration.ofMillis(400)).until(() -> {
            Sent sent = RaftProbe.sendOnce(shard.raftAddress(follower), member, RaftProbe.appendEntries(
                    RaftProbe.SHARD_GROUP, "r" + leader, "r" + follower, term, RaftProbe.termIndex(term, index),
                    index + 1, unsealed, index + 1));
            System.out.println("RaftAttackIT: unsealed entry: " + sent);
            assertThat(sent.heard()).as("an unsealed entry answered: %s", sent).isFalse();
            assertThat(sent.code()).as("%s", sent).isEqualTo(Status.Code.PERMISSION_DENIED);
            return console(follower).lines().anyMatch(l -> l.contains("refused a Raft call")
                    && l.contains("entry " + (index + 1)) && l.contains("not a sealed log entry"));
        });
        commitAndVerify("after-the-unsealed-entry");
        await().atMost(LauncherShard.PROGRESS).until(() -> replicas(follower).get("commitIndex").asLong()
                == replicas(shard.awaitLeader()).get("commitIndex").asLong());
        assertThat(ready(follower)).as("the follower is ready").isTrue();
        assertThat(shardLog(follower)).as("the follower's log").noneMatch(e -> e.hasStateMachineLogEntry()
                && e.getStateMachineLogEntry().getLogData().equals(ByteString.copyFrom(unsealed)));
        long head = shard.assertIdenticalBlocks();
        System.out.printf("RaftAttackIT: the three replicas agree on blocks 1..%d%n", head);
    }

    @Test
    @Order(5)
    void directory_replayedEntry_isRefusedBeforeItIsAppended() throws Exception {
        Wire member = RaftProbe.memberCertificate(shard.memberDir(0), shard.pin);
        String peerKey = Files.readString(shard.dir.resolve("peer.key"), StandardCharsets.UTF_8).trim();
        JsonNode cluster = JSON.readTree(LauncherShard.body(shard.get(shard.urls.get(0), "/v1/cluster")));
        List<String> urls = new ArrayList<>();
        cluster.get("replicas").get(0).get("replicas").forEach(u -> urls.add(u.asText()));
        assertThat(urls).hasSize(3);
        // Shard 0's replicas as they are: a change that leaves the cluster as it is when applied.
        byte[] entry = DirectoryEntry.of(false, List.of(new DirectoryEntry.ShardReplicas(0, urls))).encode(peerKey);

        long first;
        try (RaftClient c = directoryClient(member, "d0")) {
            RaftClientReply reply = c.io().send(Message.valueOf(ByteString.copyFrom(entry)));
            assertThat(reply.isSuccess()).as("the entry is taken: %s", reply).isTrue();
            first = reply.getLogIndex();
        }
        awaitDirectoryApplied(first);
        System.out.printf("RaftAttackIT: a sealed directory entry was taken at index %d%n", first);

        String directoryLeader = JSON.readTree(LauncherShard.body(shard.get(shard.urls.get(0), "/v1/cluster")))
                .get("directory").get("leader").asText();
        Outcome replay;
        try (RaftClient c = directoryClient(member, directoryLeader)) {  // a captured entry sent from elsewhere
            replay = RaftProbe.attempt("the same entry again",
                    () -> c.io().send(Message.valueOf(ByteString.copyFrom(entry))).isSuccess());
        }
        System.out.println("RaftAttackIT directory: " + replay);
        assertThat(replay.heard()).as("the replay taken").isFalse();
        // Refused at once by the leader's state machine: a client that retries is not left waiting for a timeout.
        assertThat(replay.detail()).contains("StateMachineException").contains("already in the directory's log");

        byte[] fresh = DirectoryEntry.of(false, List.of(new DirectoryEntry.ShardReplicas(0, urls))).encode(peerKey);
        long next;
        try (RaftClient c = directoryClient(member, directoryLeader)) {
            RaftClientReply reply = c.io().send(Message.valueOf(ByteString.copyFrom(fresh)));
            assertThat(reply.isSuccess()).as("a fresh entry is taken: %s", reply).isTrue();
            next = reply.getLogIndex();
        }
        awaitDirectoryApplied(next);
        // Every member's copy of the directory's log holds each entry once: the replay never reached it.
        for (int r = 0; r < LauncherShard.REPLICAS; r++) {
            Path log = shard.memberDir(r).resolve("directory").resolve("raft")
                    .resolve(RaftProbe.DIRECTORY_GROUP.getUuid().toString()).resolve("current");
            List<ByteString> data = RaftProbe.readLog(log).stream().filter(e -> e.hasStateMachineLogEntry())
                    .map(e -> e.getStateMachineLogEntry().getLogData()).toList();
            System.out.printf("RaftAttackIT: directory log at member %d: %d state-machine entries%n", r, data.size());
            assertThat(data).as("the entry in member %d's directory log", r)
                    .filteredOn(d -> d.equals(ByteString.copyFrom(entry))).hasSize(1);
            assertThat(data).as("the fresh entry in member %d's directory log", r)
                    .filteredOn(d -> d.equals(ByteString.copyFrom(fresh))).hasSize(1);
        }
    }

    @Test
    @Order(6)
    void forgedLeader_sealedEntryThatFailsItsCheck_isQuarantinedByTheFollower_andTheShardGoesOn() throws Exception {
        Wire member = RaftProbe.shardMember(shard.dir);  // a replica of the shard: it holds the shard's key
        LogSeal seal = LogSeal.of(SigningKey.fromSeed(HexFormat.of().parseHex(
                Files.readString(shard.dir.resolve("shard-0.key"), StandardCharsets.UTF_8).trim())), 0);
        byte[] sealed = seal.seal(entryWithForgedTransaction());
        int leader = -1;
        int follower = -1;
        long quarantinedTerm = -1;
        long quarantinedIndex = -1;
        for (int attempt = 1; attempt <= 5 && quarantinedIndex < 0; attempt++) {
            leader = shard.awaitLeader();
            follower = (leader + 1) % LauncherShard.REPLICAS;
            int l = leader;
            long[] idle = awaitIdle(leader, follower);
            long term = idle[0];
            long index = idle[1];
            Sent sent = RaftProbe.sendOnce(shard.raftAddress(follower), member, RaftProbe.appendEntries(
                    RaftProbe.SHARD_GROUP, "r" + leader, "r" + follower, term, RaftProbe.termIndex(term, index),
                    index + 1, sealed, index + 1));
            System.out.printf("RaftAttackIT: attempt %d, sealed forged entry %d (term %d) as r%d to r%d: %s%n",
                    attempt, index + 1, term, leader, follower, sent);
            if (!sent.heard() || sent.reply().getResult() != AppendResult.SUCCESS
                    || sent.reply().getMatchIndex() != index + 1) {
                continue;  // refused, or not in line with the follower's log (the leader got there first)
            }
            // In the follower's log and committed there: it quarantines the entry, unless it already held the
            // leader's own entry at that index (then it skipped the forgery, and the leader's commit passes it).
            int f = follower;
            await().atMost(LauncherShard.PROGRESS).pollInterval(Duration.ofMillis(200))
                    .until(() -> !ready(f) || replicas(l).get("commitIndex").asLong() > index);
            if (!ready(follower)) {
                quarantinedTerm = term;
                quarantinedIndex = index + 1;
            } else {
                System.out.printf("RaftAttackIT: attempt %d: the leader had committed past %d; again%n", attempt,
                        index);
            }
        }
        assertThat(quarantinedIndex).as("a forged sealed entry reached the follower's log").isPositive();

        Path evidence = shard.memberDir(follower).resolve("quarantine");
        Path bin = evidence.resolve("entry-" + quarantinedTerm + "-" + quarantinedIndex + ".bin");
        Path txt = evidence.resolve("entry-" + quarantinedTerm + "-" + quarantinedIndex + ".txt");
        assertThat(bin).exists();
        assertThat(txt).exists();
        assertThat(Files.readAllBytes(bin)).as("the evidence is the entry as sent").isEqualTo(sealed);
        String reason = Files.readString(txt, StandardCharsets.UTF_8);
        System.out.println("RaftAttackIT: " + txt + ":\n" + reason);
        assertThat(reason).contains("log entry " + quarantinedIndex).contains("signature does not verify");
        HttpResponse<byte[]> readiness = shard.get(shard.management(follower), "/actuator/health/readiness");
        assertThat(readiness.statusCode()).isEqualTo(503);
        int other = (leader + 2) % LauncherShard.REPLICAS;
        assertThat(new String(readiness.body(), StandardCharsets.UTF_8)).contains("DOWN");

        // The shard goes on through its leader and the other follower.
        commitAndVerify("after-the-quarantine");
        assertThat(shard.awaitLeader()).isNotEqualTo(follower);
        assertThat(ready(leader)).as("the leader is ready").isTrue();
        assertThat(ready(other)).as("the other follower is ready").isTrue();
        await().atMost(LauncherShard.PROGRESS).until(() -> replicas(other).get("commitIndex").asLong()
                == replicas(shard.awaitLeader()).get("commitIndex").asLong());
        assertThat(ready(follower)).as("the quarantined follower stays out").isFalse();
        assertThat(sdk.get("forged-" + SEED)).as("the forged transaction's key").isNull();
    }

    /**
     * A known gap, kept here to be enabled once it is closed: the gate checks the seal of state-machine entries only,
     * and judges the sender by the id it names. A configuration entry forged in the leader's name (making the group
     * the target follower alone) is taken today: the follower adopts it, stops hearing the real leader (no longer a
     * member of its configuration), elects itself in a new term, and leads alone, ready, answering latest reads; with
     * the rest of the group healthy that is a second leader. Run it with
     * {@code -Djunit.jupiter.conditions.deactivate=org.junit.*DisabledCondition}.
     */
    @Test
    @Order(7)
    @Disabled("known limit: an append's configuration entries are not checked, and a replica of the shard (it holds "
            + "the shard's key, from which the Raft identity derives) can speak as its leader: a forged configuration "
            + "makes a follower leader of a group of its own. Such a replica can sign forks with that key anyway "
            + "(caught by auditors); a per-replica identity would close it")
    void forgedLeader_configurationEntry_isRefused_andTheFollowerStaysInTheGroup() throws Exception {
        Wire member = RaftProbe.shardMember(shard.dir);  // a replica of the shard: it holds the shard's key
        int leader = shard.awaitLeader();
        int target = -1;
        for (int r = 0; r < LauncherShard.REPLICAS; r++) {
            if (r != leader && ready(r)) {
                target = r;
            }
        }
        assertThat(target).as("a ready follower").isNotNegative();
        long[] idle = awaitIdle(leader, target);
        Sent sent = RaftProbe.sendOnce(shard.raftAddress(target), member, RaftProbe.appendConfiguration(
                RaftProbe.SHARD_GROUP, "r" + leader, "r" + target, idle[0], RaftProbe.termIndex(idle[0], idle[1]),
                idle[1] + 1, List.of(shardPeer(target)), idle[1] + 1));
        System.out.printf("RaftAttackIT: a configuration of r%d alone, as r%d to r%d at %d: %s%n", target, leader,
                target, idle[1] + 1, sent);
        assertThat(sent.heard()).as("a forged configuration entry answered: %s", sent).isFalse();
        assertThat(sent.code()).as("%s", sent).isEqualTo(Status.Code.PERMISSION_DENIED);
        commitAndVerify("after-the-forged-configuration");
        assertThat(replicas(target).get("replicas")).as("the group at the target").hasSize(3);
        assertThat(shard.isLeader(target)).as("the target leads").isFalse();
    }

    // ---- the attacks' parts ----

    /** The shard's group as its replicas name it: r0..r2 at their Raft ports. */
    private static RaftGroup shardGroup() {
        return RaftGroup.valueOf(RaftProbe.SHARD_GROUP, shardPeer(0), shardPeer(1), shardPeer(2));
    }

    /** The directory's group: d0..d2 at the directory's Raft ports. */
    private static RaftGroup directoryGroup() {
        return RaftGroup.valueOf(RaftProbe.DIRECTORY_GROUP, directoryPeer(0), directoryPeer(1), directoryPeer(2));
    }

    private static RaftPeer shardPeer(int r) {
        return RaftProbe.peer("r" + r, shard.raftAddress(r));
    }

    private static RaftPeer directoryPeer(int r) {
        return RaftProbe.peer("d" + r, directoryAddress(r));
    }

    private static String directoryAddress(int r) {
        return "127.0.0.1:" + (shard.port + 2000 + r);
    }

    /** Ratis's admin calls at {@code target}, through Ratis's own client. */
    private static List<Outcome> adminAttacks(RaftGroup group, RaftPeer target, RaftPeer other, Wire wire)
            throws IOException {
        List<Outcome> out = new ArrayList<>();
        String at = wire + " " + target.getAddress() + " ";
        RaftPeer listener = RaftPeer.newBuilder().setId(STRANGER).setAddress("127.0.0.1:9").build();
        try (RaftClient c = RaftProbe.client(group, target.getId(), wire, RetryPolicies.noRetry())) {
            out.add(RaftProbe.attempt(at + "groupList", () -> {
                c.getGroupManagementApi(target.getId()).list();
                return true;
            }));
            out.add(RaftProbe.attempt(at + "groupInfo",
                    () -> c.getGroupManagementApi(target.getId()).info(group.getGroupId()).isSuccess()));
            out.add(RaftProbe.attempt(at + "transferLeadership",
                    () -> c.admin().transferLeadership(other.getId(), 2000).isSuccess()));
            out.add(RaftProbe.attempt(at + "setConfiguration to one replica",
                    () -> c.admin().setConfiguration(List.of(target)).isSuccess()));
            out.add(RaftProbe.attempt(at + "groupRemove", () -> c.getGroupManagementApi(target.getId())
                    .remove(group.getGroupId(), true, false).isSuccess()));
            SetConfigurationRequest.Arguments join = SetConfigurationRequest.Arguments.newBuilder()
                    .setServersInNewConf(new ArrayList<>(group.getPeers())).setListenersInNewConf(List.of(listener))
                    .build();
            out.add(RaftProbe.attempt(at + "listener join", () -> c.admin().setConfiguration(join).isSuccess()));
            out.add(RaftProbe.attempt(at + "pause", () -> c.getLeaderElectionManagementApi(target.getId()).pause()
                    .isSuccess()));
        }
        return out;
    }

    /**
     * A client of the directory with the member certificate that first addresses {@code leader} (d0..d2) and retries
     * like a member's own directory client (Directory: up to 20 times, 250 ms apart), which finds the leader.
     */
    private static RaftClient directoryClient(Wire member, String leader) {
        return RaftProbe.client(directoryGroup(), RaftPeerId.valueOf(leader), member,
                RetryPolicies.retryUpToMaximumCountWithFixedSleep(20,
                        TimeDuration.valueOf(250, TimeUnit.MILLISECONDS)));
    }

    private static byte[] garbage(int n) {
        byte[] b = new byte[n];
        RANDOM.nextBytes(b);
        return b;
    }

    /**
     * A shard log entry in {@code ReplicatedLog}'s encoding, {@code u8 version (1) || u64 incarnation || u64 seq ||
     * varint n || n × (u8 type || varint length || payload)}, written by hand (the encoder is the engine's): one
     * COMMIT record (type 1) whose payload is a transaction in the SDK client's name, writing {@code forged-<seed>},
     * whose signature does not verify (a valid one with a bit flipped: the best a forger without the client's key
     * has).
     */
    private static byte[] entryWithForgedTransaction() {
        Transaction tx = new Transaction(Transaction.newTxId(System.currentTimeMillis()), clientKey.publicKey(), 0,
                List.of(0), List.of(), List.of(Mutation.put(Bytes.utf8("forged-" + SEED),
                        Bytes.utf8("by an insider"))));
        byte[] record = SignedTransaction.sign(tx, clientKey).record();
        record[record.length - 64] ^= 1;  // the signature's first byte
        assertThat(SignedTransaction.decode(record).signatureValid()).as("the forged signature verifies").isFalse();
        byte[] entry = new ByteWriter().u8(ReplicatedLog.ENTRY_VERSION).u64(RANDOM.nextLong()).u64(1).varint(1)
                .u8(1).lengthPrefixed(record).toByteArray();
        assertThat(ReplicatedLog.decode(entry).seq()).as("the entry decodes").isEqualTo(1);
        return entry;
    }

    // ---- what the cluster says ----

    /**
     * An SDK commit of one key, acknowledged, verified, and read back. A commit whose outcome is unknown because the
     * leader changed meanwhile (an election: on a loaded machine one may come at any time) is tried again with
     * another key, up to five times: what is checked is that the shard takes commits, not that its leader never
     * changes.
     */
    private static void commitAndVerify(String key) throws Exception {
        for (int attempt = 1; ; attempt++) {
            String k = key + "-" + attempt + "-" + SEED;
            CommitPromise promise;
            try {
                promise = sdk.runTransaction(tx -> {
                    tx.put(k, "v");
                    return null;
                }).promise();
            } catch (GlassLedgerException e) {
                System.out.printf("RaftAttackIT: commit %s, attempt %d: %s%n", k, attempt, e.getMessage());
                assertThat(attempt).as("attempts to commit %s", key).isLessThan(5);
                shard.awaitLeader();
                continue;
            }
            assertThat(promise.verification().get(60, TimeUnit.SECONDS)).as("verification of %s", k).isNotNull();
            assertThat(sdk.get(k)).isEqualTo("v");
            return;
        }
    }

    /**
     * The group as it was: every replica lists r0..r2 and is ready, a leader leads, the admin key works at every
     * member (the route above) and the client key too, and the directory has its three members.
     */
    private static void assertGroupUntouched() throws Exception {
        shard.awaitLeader();
        for (int r = 0; r < LauncherShard.REPLICAS; r++) {
            List<String> ids = new ArrayList<>();
            replicas(r).get("replicas").forEach(p -> ids.add(p.get("id").asText()));
            assertThat(ids).as("the group at replica %d", r).containsExactlyInAnyOrder("r0", "r1", "r2");
            int replica = r;
            await().atMost(LauncherShard.PROGRESS).pollInterval(Duration.ofMillis(200)).until(() -> ready(replica));
            URI u = shard.urls.get(r);
            assertThat(shard.get(u, "/v1/info").statusCode()).as("the client key at replica %d", r).isEqualTo(200);
            JsonNode d = JSON.readTree(LauncherShard.body(shard.get(u, "/v1/cluster"))).get("directory");
            assertThat(d.get("members").asInt()).as("directory members at %d", r).isEqualTo(3);
            assertThat(d.get("leader").isNull()).as("a directory leader known at %d", r).isFalse();
        }
    }
}
