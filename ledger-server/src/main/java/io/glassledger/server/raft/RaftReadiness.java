package io.glassledger.server.raft;

import java.io.IOException;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;

/**
 * Whether a member of a Raft group can do its part (readiness, docs/ARCHITECTURE.md "Trust boundary"): its Raft
 * server runs, it is in the group's configuration, and it is in touch with a majority: a leader has heard from a
 * majority of voters (itself included) within the bound, a follower or listener has had an append from its leader
 * within the bound (as its {@link MemberGate} saw it), a candidate has not been one for longer than the bound.
 */
public final class RaftReadiness {
    private RaftReadiness() {
    }

    /** Why the member is not ready, or null if it is. */
    public static String notReady(RaftServer server, RaftGroupId group, RaftPeerId self, MemberGate gate,
                                  long boundMillis) {
        if (server == null) {
            return "its Raft server is not running";
        }
        if (server.getLifeCycleState().isClosingOrClosed()) {
            return "its Raft server is closed";
        }
        RaftServer.Division d;
        try {
            d = server.getDivision(group);
        } catch (IOException | RuntimeException e) {
            return "it is not in its Raft group: " + e.getMessage();
        }
        if (!d.getInfo().isAlive()) {
            return "its Raft log is closed (" + d.getInfo().getLifeCycleState() + ")";
        }
        RaftConfiguration conf = d.getRaftConf();
        if (conf.getPeer(self, RaftPeerRole.FOLLOWER, RaftPeerRole.LISTENER) == null) {
            return "it is not a member of its group's configuration (removed from it, or not added yet)";
        }
        RoleInfoProto role = d.getInfo().getRoleInfoProto();
        switch (role.getRole()) {
            case LEADER -> {
                Set<RaftPeerId> voters = conf.getCurrentPeers(RaftPeerRole.FOLLOWER).stream().map(RaftPeer::getId)
                        .collect(Collectors.toSet());
                int fresh = voters.contains(self) ? 1 : 0;
                for (ServerRpcProto f : role.getLeaderInfo().getFollowerInfoList()) {
                    RaftPeerId id = RaftPeerId.valueOf(f.getId().getId());
                    if (voters.contains(id) && f.getLastRpcElapsedTimeMs() <= boundMillis) {
                        fresh++;
                    }
                }
                return fresh > voters.size() / 2 ? null : "it leads, but only " + fresh + " of its group's "
                        + voters.size() + " voters answered within " + boundMillis + " ms: no majority";
            }
            case CANDIDATE -> {
                return role.getRoleElapsedTimeMs() <= boundMillis ? null : "no leader elected for "
                        + role.getRoleElapsedTimeMs() + " ms";
            }
            default -> {
                long since = gate.millisSinceAppend();
                return since <= boundMillis ? null : "it has had nothing from its group's leader for " + since
                        + " ms (cut off from a majority?)";
            }
        }
    }
}
