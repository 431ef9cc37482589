package io.glassledger.server.replication;

import io.glassledger.api.PinnedTrustManager;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.proto.RaftProtos.AppendEntriesReplyProto;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftConfigurationProto;
import org.apache.ratis.proto.RaftProtos.RaftGroupIdProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.proto.RaftProtos.StateMachineLogEntryProto;
import org.apache.ratis.proto.RaftProtos.TermIndexProto;
import org.apache.ratis.proto.grpc.RaftServerProtocolServiceGrpc;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.CodedInputStream;
import org.apache.ratis.thirdparty.io.grpc.ManagedChannel;
import org.apache.ratis.thirdparty.io.grpc.Status;
import org.apache.ratis.thirdparty.io.grpc.StatusException;
import org.apache.ratis.thirdparty.io.grpc.StatusRuntimeException;
import org.apache.ratis.thirdparty.io.grpc.netty.GrpcSslContexts;
import org.apache.ratis.thirdparty.io.grpc.netty.NettyChannelBuilder;
import org.apache.ratis.thirdparty.io.grpc.stub.StreamObserver;
import org.apache.ratis.thirdparty.io.netty.handler.ssl.SslContextBuilder;
import org.apache.ratis.util.TimeDuration;

/**
 * What a process outside a cluster, or one holding its certificate but not a member's place in a group, can do to a
 * Raft port, for {@link RaftAttackIT}: Ratis's own client (its admin calls) and raw server-protocol calls
 * (appendEntries) over a connection that presents nothing (plaintext), no client certificate (TLS, the server
 * pinned), or the cluster's member certificate. Every call is bounded in time.
 */
final class RaftProbe {
    /** The shard's group id, as every replica derives it. */
    static final RaftGroupId SHARD_GROUP = ReplicaGroup.groupId(0);
    /** The directory's group id: {@code Directory.GROUP_ID}, derived the same way (package-private there). */
    static final RaftGroupId DIRECTORY_GROUP = RaftGroupId.valueOf(UUID.nameUUIDFromBytes(
            "glassledger-directory".getBytes(StandardCharsets.UTF_8)));
    /** The longest any one probe waits for an answer. */
    static final Duration CALL_LIMIT = Duration.ofSeconds(15);

    private static final ExecutorService CALLS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "raft-probe");
        t.setDaemon(true);
        return t;
    });

    private RaftProbe() {
    }

    /**
     * What a connection presents.
     *
     * @param tls  Ratis's TLS configuration for its client, or null for plaintext
     * @param keys the client certificate's key manager, or null for none
     */
    record Wire(String name, GrpcTlsConfig tls, KeyManager keys, javax.net.ssl.TrustManager trust) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Wire plaintext() {
        return new Wire("plaintext", null, null, null);
    }

    /** TLS that trusts the cluster's server certificate (pinned) but presents no certificate of its own. */
    static Wire tlsWithoutCertificate(String pin) {
        PinnedTrustManager trust = new PinnedTrustManager(pin);
        return new Wire("TLS without a client certificate", new GrpcTlsConfig((KeyManager) null, trust, false), null,
                trust);
    }

    /**
     * TLS with the cluster's member certificate and key, read from a member's key store
     * ({@code <member dir>/tls/server.p12}, as {@code SelfSignedCertificate} writes it).
     */
    static Wire memberCertificate(Path memberDir, String pin) throws Exception {
        Path dir = memberDir.resolve("tls");
        char[] password = Files.readString(dir.resolve("server.p12.password"), StandardCharsets.UTF_8).trim()
                .toCharArray();
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(dir.resolve("server.p12"))) {
            ks.load(in, password);
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, password);
        KeyManager km = kmf.getKeyManagers()[0];
        PinnedTrustManager trust = new PinnedTrustManager(pin);
        return new Wire("TLS with the member certificate", new GrpcTlsConfig(km, trust, true), km, trust);
    }

    /**
     * TLS with the shard's own Raft identity, which its replicas derive from the shard's signing key
     * ({@code <cluster dir>/shard-0.key}, the seed in hex): what a replica of the shard presents on its Raft port.
     */
    static Wire shardMember(Path clusterDir) throws Exception {
        byte[] seed = java.util.HexFormat.of().parseHex(Files.readString(clusterDir.resolve("shard-0.key"),
                StandardCharsets.UTF_8).trim());
        GrpcTlsConfig t = io.glassledger.server.raft.GroupIdentity.tls(seed, "shard 0");
        return new Wire("TLS with the shard's key", t, t.getKeyManager().getKeyManager(),
                t.getTrustManager().getTrustManager());
    }

    /** A peer of a group at {@code address}. */
    static RaftPeer peer(String id, String address) {
        return RaftPeer.newBuilder().setId(id).setAddress(address).build();
    }

    /** A Ratis client of {@code group} that first addresses {@code leader}; calls time out after 3 s. */
    static RaftClient client(RaftGroup group, RaftPeerId leader, Wire wire, RetryPolicy retry) {
        RaftProperties p = new RaftProperties();
        RaftClientConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(3, TimeUnit.SECONDS));
        Parameters params = new Parameters();
        if (wire.tls() != null) {
            GrpcConfigKeys.TLS.setConf(params, wire.tls());
        }
        return RaftClient.newBuilder().setProperties(p).setParameters(params).setRaftGroup(group)
                .setLeaderId(leader).setClientId(ClientId.randomId()).setRetryPolicy(retry).build();
    }

    /** A raw gRPC channel to a Raft port. */
    static ManagedChannel channel(String address, Wire wire) throws Exception {
        NettyChannelBuilder b = NettyChannelBuilder.forTarget(address).proxyDetector(a -> null);
        if (wire.trust() == null) {
            b.usePlaintext();
        } else {
            SslContextBuilder ssl = GrpcSslContexts.forClient().trustManager(wire.trust());
            if (wire.keys() != null) {
                ssl.keyManager(wire.keys());
            }
            b.useTransportSecurity().sslContext(ssl.build());
        }
        return b.build();
    }

    /**
     * One attempt and how it ended.
     *
     * @param heard  whether the server took the call: a Ratis reply that is a success, or any answer to a raw
     *               server-protocol call (even a refusal by Raft itself means the message reached Raft)
     * @param code   the gRPC status it failed with, if one is in its causes
     * @param detail what came back
     */
    record Outcome(String what, boolean heard, Status.Code code, String detail) {
        @Override
        public String toString() {
            return what + ": " + (heard ? "HEARD" : "refused") + " (" + code + ") " + detail;
        }
    }

    /** Runs {@code call} (true: the server took it) within {@link #CALL_LIMIT}. */
    static Outcome attempt(String what, Callable<Boolean> call) {
        Future<Boolean> f = CALLS.submit(call);
        try {
            boolean ok = f.get(CALL_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
            return new Outcome(what, ok, ok ? Status.Code.OK : null,
                    ok ? "a successful reply" : "an unsuccessful reply");
        } catch (ExecutionException e) {
            return new Outcome(what, false, code(e.getCause()), oneLine(e.getCause()));
        } catch (TimeoutException e) {
            f.cancel(true);
            return new Outcome(what, false, Status.Code.DEADLINE_EXCEEDED, "no answer within " + CALL_LIMIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The gRPC status code in {@code t}'s causes, or null. */
    static Status.Code code(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof StatusRuntimeException s) {
                return s.getStatus().getCode();
            }
            if (c instanceof StatusException s) {
                return s.getStatus().getCode();
            }
        }
        return null;
    }

    /** {@code t} and its causes on one line. */
    static String oneLine(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null && b.length() < 600; c = c.getCause()) {
            b.append(b.length() == 0 ? "" : " <- ").append(c.getClass().getSimpleName()).append(": ")
                    .append(c.getMessage());
        }
        return b.toString().replace('\n', ' ');
    }

    /**
     * An AppendEntries request from {@code from} to {@code to} of {@code group}: in {@code term}, after
     * {@code previous}, carrying one state-machine entry {@code data} at ({@code term}, {@code index}), with the
     * leader's commit index {@code leaderCommit}. The entry names a client and a call, as every entry a real leader
     * appends for a client request does (Ratis reads them when it applies the entry).
     */
    static AppendEntriesRequestProto appendEntries(RaftGroupId group, String from, String to, long term,
                                                   TermIndexProto previous, long index, byte[] data,
                                                   long leaderCommit) {
        return append(group, from, to, term, previous, leaderCommit, LogEntryProto.newBuilder().setTerm(term)
                .setIndex(index).setStateMachineLogEntry(StateMachineLogEntryProto.newBuilder()
                        .setLogData(ByteString.copyFrom(data)).setClientId(ClientId.randomId().toByteString())
                        .setCallId(1)).build());
    }

    /** The same, carrying a configuration entry: the group is {@code peers}. */
    static AppendEntriesRequestProto appendConfiguration(RaftGroupId group, String from, String to, long term,
                                                         TermIndexProto previous, long index, List<RaftPeer> peers,
                                                         long leaderCommit) {
        RaftConfigurationProto.Builder conf = RaftConfigurationProto.newBuilder();
        peers.forEach(p -> conf.addPeers(p.getRaftPeerProto()));
        return append(group, from, to, term, previous, leaderCommit, LogEntryProto.newBuilder().setTerm(term)
                .setIndex(index).setConfigurationEntry(conf).build());
    }

    private static AppendEntriesRequestProto append(RaftGroupId group, String from, String to, long term,
                                                    TermIndexProto previous, long leaderCommit, LogEntryProto entry) {
        return AppendEntriesRequestProto.newBuilder()
                .setServerRequest(RaftRpcRequestProto.newBuilder()
                        .setRequestorId(RaftPeerId.valueOf(from).toByteString())
                        .setReplyId(RaftPeerId.valueOf(to).toByteString())
                        .setRaftGroupId(RaftGroupIdProto.newBuilder().setId(group.toByteString()))
                        .setCallId(System.nanoTime() & Long.MAX_VALUE))
                .setLeaderTerm(term).setPreviousLog(previous).setLeaderCommit(leaderCommit).addEntries(entry)
                .build();
    }

    static TermIndexProto termIndex(long term, long index) {
        return TermIndexProto.newBuilder().setTerm(term).setIndex(index).build();
    }

    /** What an AppendEntries stream answered: a reply, or an error (or neither within the limit). */
    record Sent(AppendEntriesReplyProto reply, Throwable error) {
        boolean heard() {
            return reply != null;
        }

        Status.Code code() {
            return error == null ? null : RaftProbe.code(error);
        }

        @Override
        public String toString() {
            return reply != null ? "reply " + reply.getResult() + " (term " + reply.getTerm() + ", next index "
                    + reply.getNextIndex() + ", match index " + reply.getMatchIndex() + ", follower commit "
                    + reply.getFollowerCommit() + ")" : error != null ? "error " + oneLine(error) : "no answer";
        }
    }

    /**
     * Sends {@code request} on a fresh appendEntries stream (the bidirectional stream a leader's log appender uses)
     * and waits, at most {@link #CALL_LIMIT}, for its reply or the stream's error.
     */
    static Sent send(ManagedChannel channel, AppendEntriesRequestProto request) {
        CompletableFuture<Sent> done = new CompletableFuture<>();
        StreamObserver<AppendEntriesRequestProto> out = RaftServerProtocolServiceGrpc.newStub(channel)
                .withDeadlineAfter(CALL_LIMIT.toMillis(), TimeUnit.MILLISECONDS)
                .appendEntries(new StreamObserver<>() {
                    @Override
                    public void onNext(AppendEntriesReplyProto reply) {
                        done.complete(new Sent(reply, null));
                    }

                    @Override
                    public void onError(Throwable t) {
                        done.complete(new Sent(null, t));
                    }

                    @Override
                    public void onCompleted() {
                        done.complete(new Sent(null, new IllegalStateException("the stream ended without a reply")));
                    }
                });
        try {
            out.onNext(request);
            return done.get(CALL_LIMIT.toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            return new Sent(null, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            try {
                out.onCompleted();
            } catch (RuntimeException e) {
                // the stream is already closed (refused)
            }
        }
    }

    /** Sends one AppendEntries on a fresh channel to {@code address}, closing it after. */
    static Sent sendOnce(String address, Wire wire, AppendEntriesRequestProto request) throws Exception {
        ManagedChannel ch = channel(address, wire);
        try {
            return send(ch, request);
        } finally {
            ch.shutdownNow();
            ch.awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    /**
     * The entries of a Raft log as a member's storage holds them ({@code <storage>/<group uuid>/current/}): its
     * segments in order ({@code log_<first>-<last>}, then {@code log_inprogress_<first>}), each an 8-byte header
     * then, per entry, a varint length, the entry's protobuf and a 4-byte checksum. Reading stops at a segment's
     * preallocated zeros, or at an entry still being written.
     */
    static List<LogEntryProto> readLog(Path current) throws IOException {
        List<Path> segments;
        try (var files = Files.list(current)) {
            segments = files.filter(f -> f.getFileName().toString().startsWith("log_"))
                    .sorted(java.util.Comparator.comparingLong(RaftProbe::firstIndex)).toList();
        }
        List<LogEntryProto> out = new java.util.ArrayList<>();
        for (Path f : segments) {
            CodedInputStream in = CodedInputStream.newInstance(Files.readAllBytes(f));
            in.readRawBytes(8);
            try {
                while (!in.isAtEnd()) {
                    int n = in.readRawVarint32();
                    if (n == 0) {
                        break;
                    }
                    out.add(LogEntryProto.parseFrom(in.readRawBytes(n)));
                    in.readRawBytes(4);
                }
            } catch (IOException e) {
                // the end of what is written so far
            }
        }
        return out;
    }

    private static long firstIndex(Path segment) {
        String name = segment.getFileName().toString();
        String first = name.startsWith("log_inprogress_") ? name.substring("log_inprogress_".length())
                : name.substring("log_".length(), name.indexOf('-'));
        return Long.parseLong(first);
    }

    /** Ratis and gRPC log at WARN in this JVM (the test process; logback's default would be DEBUG). */
    static void quietLogs() {
        for (String name : List.of("org.apache.ratis", "io.netty")) {
            ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(name))
                    .setLevel(ch.qos.logback.classic.Level.WARN);
        }
    }
}
