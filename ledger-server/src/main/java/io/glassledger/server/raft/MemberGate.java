package io.glassledger.server.raft;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.InstallSnapshotRequestProto;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.proto.RaftProtos.ReadIndexRequestProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteRequestProto;
import org.apache.ratis.proto.RaftProtos.StartLeaderElectionRequestProto;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.io.grpc.ForwardingServerCallListener;
import org.apache.ratis.thirdparty.io.grpc.Grpc;
import org.apache.ratis.thirdparty.io.grpc.Metadata;
import org.apache.ratis.thirdparty.io.grpc.ServerCall;
import org.apache.ratis.thirdparty.io.grpc.ServerCallHandler;
import org.apache.ratis.thirdparty.io.grpc.ServerInterceptor;
import org.apache.ratis.thirdparty.io.grpc.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gate on every call to one Raft port, behind mutual TLS ({@link MemberTls}):
 * <ul>
 *   <li>Ratis's admin service (group list and info, group add and remove, configuration changes, leadership
 *       transfer, pause, snapshots) is refused to everyone: membership changes only through GlassLedger's own admin
 *       API, which changes the group in-process at its leader.</li>
 *   <li>Ratis's client service is refused unless {@code clientService} (the directory's members propose entries
 *       through it; a shard's engine proposes in-process).</li>
 *   <li>A server-protocol request (append entries, votes, snapshots, elections, read index) is heard only if its
 *       sender is a member of the group's current configuration (a replica that is still joining has none yet, and
 *       hears whoever holds a member's certificate).</li>
 *   <li>Every state-machine entry an append carries must pass {@code entryCheck} (its seal) before the entry reaches
 *       this replica's log.</li>
 * </ul>
 * A refused call is closed with {@code PERMISSION_DENIED} and logged (one WARN line, at most one a second per gate,
 * with the count of those not logged). Thread-safe.
 */
public final class MemberGate implements ServerInterceptor {
    private static final Logger LOG = LoggerFactory.getLogger(MemberGate.class);
    static final String ADMIN_SERVICE = "ratis.grpc.AdminProtocolService";
    static final String CLIENT_SERVICE = "ratis.grpc.RaftClientProtocolService";
    static final String SERVER_SERVICE = "ratis.grpc.RaftServerProtocolService";

    /** Checks one state-machine entry's bytes; returns why it is refused, or null. */
    @FunctionalInterface
    public interface EntryCheck {
        String refusal(ByteString data);
    }

    private final String name;
    private final boolean clientService;
    private final Predicate<RaftPeerId> isMember;
    private final EntryCheck entryCheck;
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong unlogged = new AtomicLong();
    private volatile long lastLogNanos = System.nanoTime() - 2_000_000_000L;
    /** When an append from a member was last let through (at start: the start, a grace period). */
    private volatile long lastAppendNanos = System.nanoTime();

    /**
     * @param name          for log lines ("shard 0", "directory")
     * @param clientService whether Ratis's client service is open (to members)
     * @param isMember      whether a peer id is in the group's configuration now
     * @param entryCheck    the check every state-machine entry of an append must pass
     */
    public MemberGate(String name, boolean clientService, Predicate<RaftPeerId> isMember, EntryCheck entryCheck) {
        this.name = name;
        this.clientService = clientService;
        this.isMember = isMember;
        this.entryCheck = entryCheck;
    }

    /** Milliseconds since an append from a member (the leader's entries or heartbeat) was let through. */
    public long millisSinceAppend() {
        return (System.nanoTime() - lastAppendNanos) / 1_000_000;
    }

    /** Calls refused since start. */
    public long refused() {
        return refused.get();
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                       ServerCallHandler<Q, R> next) {
        String service = call.getMethodDescriptor().getServiceName();
        String method = call.getMethodDescriptor().getBareMethodName();
        if (ADMIN_SERVICE.equals(service)) {
            return refuse(call, method + ": Ratis's admin service is off (membership changes go through "
                    + "/v1/admin/replicas)");
        }
        if (CLIENT_SERVICE.equals(service) && !clientService) {
            return refuse(call, method + ": this group takes no Ratis client requests (its engine proposes its entries)");
        }
        if (!SERVER_SERVICE.equals(service) && !CLIENT_SERVICE.equals(service)) {
            return refuse(call, "unknown service " + service);
        }
        ServerCall.Listener<Q> delegate = next.startCall(call, headers);
        if (!SERVER_SERVICE.equals(service)) {
            return delegate;
        }
        return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(delegate) {
            private volatile boolean closed;

            @Override
            public void onMessage(Q message) {
                if (closed) {
                    return;
                }
                String why = refusal(message);
                if (why != null) {
                    closed = true;
                    noteRefusal(call, method + ": " + why);
                    // Thrown, not call.close(): Ratis may be answering on this stream from another thread. The
                    // TransmitStatusRuntimeExceptionInterceptor MemberTls puts outside the gate closes the call with
                    // this status, serialized against those answers.
                    throw Status.PERMISSION_DENIED.withDescription(why).asRuntimeException();
                }
                if (message instanceof AppendEntriesRequestProto) {
                    lastAppendNanos = System.nanoTime();
                }
                super.onMessage(message);
            }
        };
    }

    private <Q, R> ServerCall.Listener<Q> refuse(ServerCall<Q, R> call, String why) {
        noteRefusal(call, why);
        call.close(Status.PERMISSION_DENIED.withDescription(why), new Metadata());
        return new ServerCall.Listener<>() { };
    }

    /** Why a server-protocol message is refused, or null. */
    String refusal(Object m) {
        RaftRpcRequestProto rpc;
        if (m instanceof AppendEntriesRequestProto a) {
            rpc = a.getServerRequest();
        } else if (m instanceof RequestVoteRequestProto v) {
            rpc = v.getServerRequest();
        } else if (m instanceof InstallSnapshotRequestProto s) {
            rpc = s.getServerRequest();
        } else if (m instanceof StartLeaderElectionRequestProto s) {
            rpc = s.getServerRequest();
        } else if (m instanceof ReadIndexRequestProto r) {
            rpc = r.getServerRequest();
        } else {
            return "unexpected message " + (m == null ? "null" : m.getClass().getSimpleName());
        }
        RaftPeerId from = RaftPeerId.valueOf(rpc.getRequestorId());
        if (!isMember.test(from)) {
            return "sender '" + printable(from.toString()) + "' is not a member of the group";
        }
        if (m instanceof AppendEntriesRequestProto a) {
            for (LogEntryProto e : a.getEntriesList()) {
                if (e.hasStateMachineLogEntry()) {
                    // Ratis's apply loop fails on an entry whose client id is not 16 bytes, before the state machine
                    // could quarantine it.
                    String why = e.getStateMachineLogEntry().getClientId().size() != 16 ? "a client id of "
                            + e.getStateMachineLogEntry().getClientId().size() + " bytes, not 16"
                            : entryCheck.refusal(e.getStateMachineLogEntry().getLogData());
                    if (why != null) {
                        return "entry " + e.getIndex() + " (term " + e.getTerm() + ") from '"
                                + printable(from.toString()) + "' refused: " + why;
                    }
                }
            }
        }
        return null;
    }

    private void noteRefusal(ServerCall<?, ?> call, String why) {
        refused.incrementAndGet();
        long now = System.nanoTime();
        if (now - lastLogNanos < 1_000_000_000L) {
            unlogged.incrementAndGet();
            return;
        }
        lastLogNanos = now;
        long more = unlogged.getAndSet(0);
        LOG.warn("{}: refused a Raft call from {}: {}{}", name, call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR),
                why, more > 0 ? " (" + more + " more refused in the last second, not logged)" : "");
    }

    /** A peer-chosen string, safe to log: printable ASCII, at most 64 characters. */
    private static String printable(String s) {
        String t = s.length() > 64 ? s.substring(0, 64) + "..." : s;
        return t.replaceAll("[^\\x20-\\x7e]", "?");
    }
}
