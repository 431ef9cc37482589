package io.glassledger.server.replication;

import io.glassledger.core.txn.EngineConfig;
import io.glassledger.core.txn.ReplicatedLog;
import io.glassledger.core.txn.TxnEngine;
import io.glassledger.server.LedgerProperties;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This process's replica of its shard's Raft group (docs/ARCHITECTURE.md "Replication"): a Ratis server over gRPC
 * whose state machine is the shard's engine, and the {@link ReplicatedLog} that engine writes through when it leads.
 * Replica {@code i} of {@code glassledger.replication.peers} is Raft peer {@code r<i>}; the group id is derived from
 * the shard number, so every replica of a shard names the same group.
 */
public final class ReplicaGroup implements ReplicatedLog, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaGroup.class);

    private final LedgerProperties.Replication cfg;
    private final EngineConfig engineCfg;
    private final RaftGroup group;
    private final RaftPeerId self;
    private final Path raftDir;
    private final ClientId clientId = ClientId.randomId();
    /** The client id of leadership confirmations: not the writer's, whose pending entries a read would wait for. */
    private final ClientId readerId = ClientId.randomId();
    private final AtomicLong callIds = new AtomicLong();
    private final Consumer<TxnEngine> onEngine;
    private final io.glassledger.server.auth.AuthStore auth;
    private final ExecutorService restarter = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "glassledger-replica-restart");
        t.setDaemon(true);
        return t;
    });
    private final org.apache.ratis.grpc.GrpcTlsConfig tls;
    private final LogSeal seal;
    private final Quarantine quarantine;
    private final io.glassledger.server.raft.MemberGate gate;
    private volatile RaftServer server;
    private volatile ShardStateMachine sm;
    private volatile boolean closed;

    /**
     * @param onEngine called with each engine this replica opens: at start, after a snapshot is installed, and after
     *                 the replica reopened itself when it lost its leadership mid-entry
     */
    public ReplicaGroup(LedgerProperties.Replication cfg, EngineConfig engineCfg, Path raftDir,
                        io.glassledger.server.auth.AuthStore auth, Consumer<TxnEngine> onEngine,
                        org.apache.ratis.grpc.GrpcTlsConfig tls, LogSeal seal) {
        this.cfg = cfg;
        this.tls = tls;
        this.seal = seal;
        this.quarantine = new Quarantine(raftDir.resolveSibling("quarantine"));
        this.gate = new io.glassledger.server.raft.MemberGate("shard " + engineCfg.shard(), false, this::isMember,
                data -> {
                    try {
                        seal.open(data.toByteArray());
                        return null;
                    } catch (io.glassledger.verify.codec.MalformedException e) {
                        return e.getMessage();
                    }
                });
        this.auth = auth;
        this.engineCfg = engineCfg;
        this.raftDir = raftDir;
        this.onEngine = onEngine;
        List<RaftPeer> peers = new ArrayList<>();
        for (int i = 0; i < cfg.peers().size(); i++) {
            peers.add(RaftPeer.newBuilder().setId(peerId(i)).setAddress(cfg.peers().get(i))
                    .setClientAddress(cfg.urls().get(i).toString()).setPriority(0).build());
        }
        this.group = RaftGroup.valueOf(groupId(engineCfg.shard()), peers);
        this.self = RaftPeerId.valueOf(peerId(cfg.replica()));
    }

    static String peerId(int replica) {
        return "r" + replica;
    }

    /** Every replica of shard {@code shard} derives the same group id. */
    public static RaftGroupId groupId(int shard) {
        return RaftGroupId.valueOf(UUID.nameUUIDFromBytes(("glassledger-shard-" + shard)
                .getBytes(StandardCharsets.UTF_8)));
    }

    /** Starts the Ratis server; the engine opens in its state machine's initialisation. */
    public synchronized void start() {
        try {
            Files.createDirectories(raftDir);
            RaftProperties p = new RaftProperties();
            RaftServerConfigKeys.setStorageDir(p, List.of(raftDir.toFile()));
            String addr = cfg.bindAddress();
            int colon = addr.lastIndexOf(':');
            GrpcConfigKeys.Server.setHost(p, addr.substring(0, colon));
            GrpcConfigKeys.Server.setPort(p, Integer.parseInt(addr.substring(colon + 1)));
            long min = cfg.electionTimeout().toMillis();
            RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(min, TimeUnit.MILLISECONDS));
            RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(2 * min, TimeUnit.MILLISECONDS));
            RaftServerConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(Math.max(3 * min, 3000),
                    TimeUnit.MILLISECONDS));
            // Latest reads are linearizable (Raft's ReadIndex, section 6.4 of the dissertation): before serving one,
            // the leader confirms it still leads, from its lease (a majority answered within the last 90 % of the
            // minimum election timeout, so no other leader can have been elected) or else a heartbeat round.
            RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
            RaftServerConfigKeys.Read.setLeaderLeaseEnabled(p, true);
            RaftServerConfigKeys.Read.setTimeout(p, TimeDuration.valueOf(Math.max(3 * min, 1500),
                    TimeUnit.MILLISECONDS));
            RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
            RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, cfg.snapshotEvery());
            // The log is purged behind each snapshot, but never past an entry a replica has yet to acknowledge
            // (Ratis's default): purging those too raced with the leader reading them for a lagging follower, and
            // killed its log appender for that follower for good (measured: a restarted leader never caught up).
            // A replica that is down keeps the log from being purged past where it stopped, until it returns.
            RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, false);
            // Ratis purges only once the purgeable index has moved 1,024 entries (its default gap) past the last
            // purge; with snapshots closer than that, a snapshot purged nothing, and how soon the log shrank
            // depended on load (ReplicationIT's wait for a purged log timed out under CI's). Half the snapshot
            // interval: each snapshot purges behind it, as the configuration says.
            RaftServerConfigKeys.Log.setPurgeGap(p, (int) Math.max(1, Math.min(1024, cfg.snapshotEvery() / 2)));
            RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(cfg.logSegmentSize().toBytes()));
            ShardStateMachine m = new ShardStateMachine(engineCfg, this, cfg.snapshotMinInterval(), auth, seal);
            this.sm = m;
            // A replica formats its storage once; every later start recovers it (the log, its term and vote).
            boolean formatted = Files.isDirectory(raftDir.resolve(group.getGroupId().getUuid().toString()));
            // A replica joining a running group starts with no configuration of its own: it neither campaigns nor
            // votes until the leader's configuration change reaches it (after that, its log holds the group).
            RaftGroup initial = cfg.join() && !formatted ? RaftGroup.valueOf(group.getGroupId()) : group;
            RaftServer s = RaftServer.newBuilder().setServerId(self).setGroup(initial).setStateMachine(m)
                    .setProperties(p).setParameters(io.glassledger.server.raft.MemberTls.parameters(tls, gate)).setOption(formatted ? RaftStorage.StartupOption.RECOVER
                            : RaftStorage.StartupOption.FORMAT).build();
            // Known before it starts: its gate asks it who the members are as soon as peers call.
            this.server = s;
            s.start();
            LOG.info("shard {}: replica {} of {} listening for Raft on {}", engineCfg.shard(), self,
                    cfg.peers().size(), addr);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Whether {@code id} may be heard on this replica's Raft port: a member of the group's configuration, or anyone
     * holding a member's certificate while this replica has no configuration yet (it is joining: the leader's first
     * append brings it).
     */
    private boolean isMember(RaftPeerId id) {
        RaftServer s = server;
        if (s == null) {
            return false;
        }
        try {
            var conf = s.getDivision(group.getGroupId()).getRaftConf();
            if (conf.getAllPeers(org.apache.ratis.proto.RaftProtos.RaftPeerRole.FOLLOWER).isEmpty()) {
                return true;
            }
            return !id.equals(self) && conf.getPeer(id, org.apache.ratis.proto.RaftProtos.RaftPeerRole.FOLLOWER,
                    org.apache.ratis.proto.RaftProtos.RaftPeerRole.LISTENER) != null;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** The quarantined entry, or null. */
    Quarantine.Entry quarantined() {
        return quarantine.entry();
    }

    /**
     * A committed entry cannot be applied (ShardStateMachine): keeps it as evidence, and takes this replica out of its
     * group (its Raft server closes, in the background: this is the apply thread) so that it neither votes nor
     * acknowledges entries it will not apply. Not restarted: it stays out until an operator rebuilds it.
     */
    void quarantine(long term, long index, byte[] entry, String reason) {
        if (!quarantine.put(engineCfg.shard(), term, index, entry, reason) || closed) {
            return;
        }
        restarter.execute(() -> {
            synchronized (this) {
                closeServer();
            }
        });
    }

    /**
     * Why this replica is not ready (readiness DOWN), or null: it is quarantined, its Raft server or log is closed,
     * it is not in its group's configuration, or it is out of touch with a majority (docs/ARCHITECTURE.md "Trust
     * boundary").
     */
    public String notReady() {
        Quarantine.Entry q = quarantine.entry();
        if (q != null) {
            return "quarantined log entry " + q.index() + " (term " + q.term() + "): " + q.reason() + "; evidence in "
                    + q.evidence();
        }
        long bound = Math.max(3000, 6 * cfg.electionTimeout().toMillis());
        return io.glassledger.server.raft.RaftReadiness.notReady(server, group.getGroupId(), self, gate, bound);
    }

    /** Raft calls refused at this replica's port since start. */
    public long refusedCalls() {
        return gate.refused();
    }

    String selfId() {
        return self.toString();
    }

    boolean isOwnClient(ClientId id) {
        return clientId.equals(id);
    }

    void engineOpened(TxnEngine e) {
        onEngine.accept(e);
    }

    /** The current engine (it changes when the replica reopens). */
    public TxnEngine engine() {
        ShardStateMachine m = sm;
        return m == null ? null : m.engine();
    }

    /** The HTTPS URL of a peer of the group, or null. */
    String urlOf(RaftPeerId id) {
        if (id == null) {
            return null;
        }
        try {
            RaftServer s = server;
            if (s != null) {
                RaftPeer p = s.getDivision(group.getGroupId()).getRaftConf().getPeer(id);
                if (p != null && p.getClientAddress() != null) {
                    return p.getClientAddress();
                }
            }
        } catch (IOException | RuntimeException e) {
            // fall back to the configuration
        }
        for (int i = 0; i < cfg.peers().size(); i++) {
            if (peerId(i).equals(id.toString())) {
                return cfg.urls().get(i).toString();
            }
        }
        return null;
    }

    /** Who leads the group as this replica knows it: its HTTPS URL, or null. */
    public String leaderUrl() {
        try {
            RaftServer s = server;
            return s == null ? null : urlOf(s.getDivision(group.getGroupId()).getInfo().getLeaderId());
        } catch (IOException e) {
            return null;
        }
    }

    /** A short description of this replica's Raft state, for the info route and health details. */
    public java.util.Map<String, Object> describe() {
        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("replica", self.toString());
        m.put("replicas", cfg.peers().size());
        String notReady = notReady();
        m.put("ready", notReady == null);
        if (notReady != null) {
            m.put("notReady", notReady);
        }
        try {
            RaftServer s = server;
            if (s != null) {
                var d = s.getDivision(group.getGroupId());
                m.put("role", d.getInfo().getCurrentRole().name());
                m.put("term", d.getInfo().getCurrentTerm());
                m.put("leader", urlOf(d.getInfo().getLeaderId()));
                m.put("appliedIndex", d.getInfo().getLastAppliedIndex());
                m.put("commitIndex", d.getRaftLog().getLastCommittedIndex());
            }
        } catch (IOException | RuntimeException e) {
            m.put("role", "UNKNOWN");
        }
        return m;
    }

    /** The group's replicas as the current Raft configuration has them. */
    public java.util.Collection<RaftPeer> members() throws IOException {
        RaftServer s = server;
        if (s == null) {
            throw new IOException("the replica is restarting");
        }
        return s.getDivision(group.getGroupId()).getRaftConf().getCurrentPeers();
    }

    /** This replica's peer id. */
    public String self() {
        return self.toString();
    }

    /**
     * Changes the group's membership to {@code peers} (Raft's configuration change, through the log): a new replica
     * is caught up first, from a snapshot and the log. Only the leader takes it; fails with the group's refusal.
     */
    public CompletableFuture<Void> reconfigure(List<RaftPeer> peers) {
        RaftServer s = server;
        if (s == null) {
            return CompletableFuture.failedFuture(new IOException("the replica is restarting"));
        }
        org.apache.ratis.protocol.SetConfigurationRequest req = new org.apache.ratis.protocol.SetConfigurationRequest(
                clientId, self, group.getGroupId(), callIds.incrementAndGet(), peers);
        try {
            return s.setConfigurationAsync(req).thenApply(reply -> {
                if (!reply.isSuccess()) {
                    throw new java.util.concurrent.CompletionException(new IOException("the group refused the new "
                            + "membership: " + reply.getException(), reply.getException()));
                }
                return null;
            });
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** A peer of the group: {@code id} ({@code r<n>}), its Raft address and its HTTPS URL. */
    public static RaftPeer peer(String id, String raftAddress, String url) {
        return RaftPeer.newBuilder().setId(id).setAddress(raftAddress).setClientAddress(url).setPriority(0).build();
    }

    @Override
    public CompletableFuture<Position> replicate(byte[] entry) {
        RaftServer s = server;
        if (s == null) {
            return CompletableFuture.failedFuture(new NotCommittedException("the replica is not running", null, null));
        }
        RaftClientRequest req = RaftClientRequest.newBuilder().setClientId(clientId).setServerId(self)
                .setGroupId(group.getGroupId()).setCallId(callIds.incrementAndGet())
                .setMessage(Message.valueOf(UnsafeByteOperations.unsafeWrap(seal.seal(entry))))
                .setType(RaftClientRequest.writeRequestType()).build();
        CompletableFuture<RaftClientReply> sent;
        try {
            sent = s.submitClientRequestAsync(req);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(new NotCommittedException("cannot submit the entry: " + e,
                    leaderUrl(), e));
        }
        return sent.orTimeout(cfg.commitTimeout().toMillis(), TimeUnit.MILLISECONDS).handle((reply, err) -> {
            if (err != null) {
                Throwable c = err instanceof java.util.concurrent.CompletionException && err.getCause() != null
                        ? err.getCause() : err;
                throw new java.util.concurrent.CompletionException(new NotCommittedException("the group did not "
                        + "confirm the entry within " + cfg.commitTimeout() + ": " + c, leaderUrl(), c));
            }
            if (!reply.isSuccess()) {
                NotLeaderException nle = reply.getNotLeaderException();
                String hint = nle != null && nle.getSuggestedLeader() != null
                        ? urlOf(nle.getSuggestedLeader().getId()) : leaderUrl();
                throw new java.util.concurrent.CompletionException(new NotCommittedException("the group refused the "
                        + "entry: " + reply.getException(), hint, reply.getException()));
            }
            long index = reply.getLogIndex();
            long term;
            try {
                TermIndex ti = s.getDivision(group.getGroupId()).getRaftLog().getTermIndex(index);
                term = ti != null ? ti.getTerm() : s.getDivision(group.getGroupId()).getInfo().getCurrentTerm();
            } catch (IOException e) {
                throw new java.util.concurrent.CompletionException(new NotCommittedException("cannot read the log: "
                        + e, null, e));
            }
            return new Position(term, index);
        });
    }

    /**
     * Completes once this replica has confirmed that it leads the group now (its lease, or a heartbeat round to a
     * majority) and has applied every entry committed before: a latest read served after it is linearizable, even at a
     * leader cut off from its group that has not noticed yet. Fails with {@link NotCommittedException} (carrying the
     * leader's URL when known) if it does not lead.
     */
    public CompletableFuture<Void> confirmLeadership() {
        RaftServer s = server;
        if (s == null) {
            return CompletableFuture.failedFuture(new NotCommittedException("the replica is restarting", null, null));
        }
        RaftClientRequest req = RaftClientRequest.newBuilder().setClientId(readerId).setServerId(self)
                .setGroupId(group.getGroupId()).setCallId(callIds.incrementAndGet()).setMessage(Message.EMPTY)
                .setType(RaftClientRequest.readRequestType()).build();
        try {
            return s.submitClientRequestAsync(req).handle((reply, err) -> {
                if (err == null && reply.isSuccess()) {
                    return null;
                }
                Throwable c = err != null ? err : reply.getException();
                NotLeaderException nle = reply == null ? null : reply.getNotLeaderException();
                String hint = nle != null && nle.getSuggestedLeader() != null ? urlOf(nle.getSuggestedLeader().getId())
                        : leaderUrl();
                throw new java.util.concurrent.CompletionException(new NotCommittedException("this replica could not "
                        + "confirm that it leads: " + c, hint, c));
            });
        } catch (IOException e) {
            return CompletableFuture.failedFuture(new NotCommittedException("cannot ask the group: " + e,
                    leaderUrl(), e));
        }
    }

    /**
     * The engine lost its leadership mid-entry and failed: closes and restarts this replica in the background (the
     * engine reopens from its journal, and the group's log brings it up to date as a follower).
     */
    void restartAsync() {
        if (closed) {
            return;
        }
        restarter.execute(() -> {
            synchronized (this) {
                if (closed || quarantine.entry() != null) {
                    return;
                }
                LOG.warn("shard {}: replica {} lost its leadership with an entry in flight; reopening it as a "
                        + "follower", engineCfg.shard(), self);
                closeServer();
                start();
            }
        });
    }

    private void closeServer() {
        RaftServer s = server;
        server = null;
        if (s != null) {
            try {
                s.close();
            } catch (IOException e) {
                LOG.warn("closing the Raft server: {}", e.toString());
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        restarter.shutdown();
        synchronized (this) {
            closeServer();
        }
    }
}
