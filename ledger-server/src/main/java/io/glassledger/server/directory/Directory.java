package io.glassledger.server.directory;

import io.glassledger.server.LedgerProperties;
import io.glassledger.server.auth.AuthStore;
import jakarta.annotation.PreDestroy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The cluster directory (docs/ARCHITECTURE.md "Cluster directory"): one Raft group on Apache Ratis over every member
 * of the cluster, whose log holds the cluster's identities (API keys and roles, client keys) and its shard map, so
 * that a key made or registered at any member works at every shard and replica. The first
 * {@code glassledger.directory.voters} members vote; the others are Ratis listeners, which receive and apply the log
 * but neither vote nor count toward a majority. Any member proposes a change (through a Ratis client that finds the
 * leader) and answers once the change is committed and applied here too, so the caller's next request to this member
 * sees it. With no {@code glassledger.directory.peers}, there is no directory, and a server's identities are its own.
 */
@Component
public class Directory implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Directory.class);
    /** Every member names the same group. */
    static final RaftGroupId GROUP_ID = RaftGroupId.valueOf(UUID.nameUUIDFromBytes(
            "glassledger-directory".getBytes(StandardCharsets.UTF_8)));
    private static final long APPLY_WAIT_MILLIS = 10_000;

    private final LedgerProperties.Directory cfg;
    private final LedgerProperties.Cluster cluster;
    private final AuthStore auth;
    private final RaftServer server;
    private final RaftClient client;
    private final DirectoryStateMachine sm;
    private final RaftGroup group;
    private final ExecutorService seeder;
    private final io.glassledger.server.raft.MemberGate gate;
    private final RaftPeerId self;

    public Directory(LedgerProperties props, AuthStore auth,
                     org.springframework.beans.factory.ObjectProvider<io.glassledger.server.raft.MemberTls> tlsProvider) {
        this.cfg = props.directory();
        this.cluster = props.cluster();
        this.auth = auth;
        if (!cfg.enabled()) {
            this.server = null;
            this.client = null;
            this.sm = null;
            this.group = null;
            this.seeder = null;
            this.gate = null;
            this.self = null;
            return;
        }
        if (cluster.peerKey().isBlank()) {
            throw new IllegalArgumentException("glassledger.directory needs glassledger.cluster.peer-key: the "
                    + "directory's entries are sealed with it");
        }
        List<RaftPeer> peers = new ArrayList<>();
        int voters = Math.min(cfg.voters(), cfg.peers().size());
        for (int i = 0; i < cfg.peers().size(); i++) {
            peers.add(RaftPeer.newBuilder().setId(peerId(i)).setAddress(cfg.peers().get(i))
                    .setStartupRole(i < voters ? RaftPeerRole.FOLLOWER : RaftPeerRole.LISTENER).build());
        }
        this.group = RaftGroup.valueOf(GROUP_ID, peers);
        Path dir = props.dataDir().resolve("directory");
        this.seeder = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "glassledger-directory-seed");
            t.setDaemon(true);
            return t;
        });
        try {
            Files.createDirectories(dir);
            this.sm = new DirectoryStateMachine(auth, cluster.peerKey(), dir, () -> seeder.execute(this::seed));
            auth.heldByDirectory();
            RaftProperties p = new RaftProperties();
            Path raftDir = dir.resolve("raft");
            RaftServerConfigKeys.setStorageDir(p, List.of(raftDir.toFile()));
            String addr = cfg.bindAddress();
            int colon = addr.lastIndexOf(':');
            GrpcConfigKeys.Server.setHost(p, addr.substring(0, colon));
            GrpcConfigKeys.Server.setPort(p, Integer.parseInt(addr.substring(colon + 1)));
            RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(1, TimeUnit.SECONDS));
            RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(2, TimeUnit.SECONDS));
            RaftServerConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(5, TimeUnit.SECONDS));
            boolean formatted = Files.isDirectory(raftDir.resolve(GROUP_ID.getUuid().toString()));
            this.self = RaftPeerId.valueOf(peerId(cfg.member()));
            io.glassledger.server.raft.MemberTls tls = tlsProvider.getObject();
            // Members only: mutual TLS, the admin service off, only members of the group heard, and every entry an
            // append carries sealed with the peer key before it reaches this member's log.
            this.gate = new io.glassledger.server.raft.MemberGate("directory", true, this::isMember, data -> {
                try {
                    DirectoryEntry.decode(data.toByteArray(), cluster.peerKey());
                    return null;
                } catch (io.glassledger.verify.codec.MalformedException e) {
                    return e.getMessage();
                }
            });
            this.server = RaftServer.newBuilder().setServerId(self).setGroup(group).setStateMachine(sm)
                    .setProperties(p).setParameters(tls.parameters(gate)).setOption(formatted ? RaftStorage.StartupOption.RECOVER
                            : RaftStorage.StartupOption.FORMAT).build();
            server.start();
            RaftProperties cp = new RaftProperties();
            this.client = RaftClient.newBuilder().setProperties(cp).setParameters(tls.parameters(null))
                    .setRaftGroup(group)
                    .setClientId(ClientId.randomId())
                    .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(20,
                            TimeDuration.valueOf(250, TimeUnit.MILLISECONDS))).build();
            LOG.info("cluster directory: member {} of {} ({}), listening for Raft on {}", self, peers.size(),
                    cfg.member() < voters ? "voter" : "listener", addr);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether {@code id} is a member of the directory's configuration (voter or listener), not this member. */
    private boolean isMember(RaftPeerId id) {
        RaftServer s = server;
        if (s == null || id.equals(self)) {
            return false;
        }
        try {
            return s.getDivision(GROUP_ID).getRaftConf().getPeer(id, RaftPeerRole.FOLLOWER, RaftPeerRole.LISTENER)
                    != null;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Why this member is cut off from the directory (readiness DOWN), or null: its Raft server or log is closed, it
     * is not in the directory's configuration, or it is out of touch with a majority; null without a directory.
     */
    public String notReady() {
        if (server == null) {
            return null;
        }
        return io.glassledger.server.raft.RaftReadiness.notReady(server, GROUP_ID, self, gate, 6_000);
    }

    /** Raft calls refused at this member's directory port since start (0 without a directory). */
    public long refusedCalls() {
        return gate == null ? 0 : gate.refused();
    }

    static String peerId(int member) {
        return "d" + member;
    }

    public boolean enabled() {
        return server != null;
    }

    /** What a change's entry answered: empty if applied, else the refusal (for example {@code last_admin_key}). */
    public record Outcome(String answer, long index) {
        public boolean applied() {
            return answer.isEmpty();
        }
    }

    /**
     * Proposes {@code changes} as one entry; completes once it is committed and applied at this member, with the
     * answer every member computed, or exceptionally with {@link Unavailable} if no majority of voters took it.
     */
    public CompletableFuture<Outcome> submit(List<DirectoryEntry.Change> changes) {
        return submit(DirectoryEntry.of(false, changes));
    }

    private CompletableFuture<Outcome> submit(DirectoryEntry entry) {
        byte[] bytes = entry.encode(cluster.peerKey());
        return client.async().send(Message.valueOf(ByteString.copyFrom(bytes)))
                .orTimeout(20, TimeUnit.SECONDS)
                .handle((reply, err) -> {
                    if (err != null || !reply.isSuccess()) {
                        Throwable c = err != null ? err : reply.getException();
                        throw new CompletionException(new Unavailable("the cluster directory did not take the "
                                + "change: " + (c instanceof CompletionException && c.getCause() != null
                                ? c.getCause() : c), c));
                    }
                    return reply;
                }).thenCompose(reply -> {
                    String answer = DirectoryStateMachine.text(reply.getMessage());
                    Outcome o = new Outcome(answer, reply.getLogIndex());
                    // Answer once this member applied it too, so that the caller's next request here sees it.
                    return sm.applied(reply.getLogIndex()).completeOnTimeout(null, APPLY_WAIT_MILLIS,
                            TimeUnit.MILLISECONDS).thenApply(v -> o);
                });
    }

    /** The directory did not take a change (no leader, or no majority of voters, within the time allowed). */
    public static final class Unavailable extends RuntimeException {
        Unavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * The first leader of an empty directory seeds it with what this member holds: its API keys and client keys
     * (the cluster's first-start keys) and the shard map of its configuration. Applies only to an empty directory,
     * so a later leader's seed changes nothing.
     */
    private void seed() {
        if (sm.seeded()) {
            return;
        }
        List<DirectoryEntry.Change> changes = new ArrayList<>();
        auth.keyEntries().forEach((h, e) -> changes.add(new DirectoryEntry.ApiKey(h, e.clientId(), e.role())));
        auth.clientEntries().forEach((id, hex) -> changes.add(new DirectoryEntry.ClientKey(id,
                io.glassledger.verify.hash.Bytes.fromHex(hex))));
        for (int n = 0; n < cluster.peers().size(); n++) {
            changes.add(new DirectoryEntry.ShardReplicas(n, cluster.peer(n).stream().map(URI::toString).toList()));
        }
        try {
            Outcome o = submit(DirectoryEntry.of(true, changes)).get(60, TimeUnit.SECONDS);
            LOG.info("cluster directory: seed entry {} answered '{}'", o.index(), o.answer());
        } catch (Exception e) {
            LOG.warn("cluster directory: could not seed it ({}); the next leader will", e.toString());
        }
    }

    /** Shard {@code n}'s replicas as the directory has them, if it has them. */
    public Optional<List<URI>> replicasOf(int n) {
        if (sm == null) {
            return Optional.empty();
        }
        List<String> urls = sm.shards().get(n);
        return urls == null || urls.isEmpty() ? Optional.empty()
                : Optional.of(urls.stream().map(URI::create).toList());
    }

    /** The shard map as the directory has it (empty without a directory or before it is seeded). */
    public Map<Integer, List<String>> shardMap() {
        return sm == null ? Map.of() : sm.shards();
    }

    /** This member's view of the directory, for the cluster route. */
    public Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        if (server == null) {
            return m;
        }
        m.put("member", peerId(cfg.member()));
        m.put("members", cfg.peers().size());
        m.put("voters", Math.min(cfg.voters(), cfg.peers().size()));
        m.put("appliedIndex", sm.appliedIndex());
        try {
            var d = server.getDivision(GROUP_ID);
            m.put("role", d.getInfo().getCurrentRole().name());
            RaftPeerId leader = d.getInfo().getLeaderId();
            m.put("leader", leader == null ? null : leader.toString());
        } catch (IOException | RuntimeException e) {
            m.put("role", "UNKNOWN");
        }
        return m;
    }

    @PreDestroy
    @Override
    public void close() {
        if (server == null) {
            return;
        }
        try {
            client.close();
        } catch (IOException e) {
            LOG.warn("closing the directory's client: {}", e.toString());
        }
        try {
            server.close();
        } catch (IOException e) {
            LOG.warn("closing the directory's Raft server: {}", e.toString());
        }
        seeder.shutdownNow();
    }
}
