package io.glassledger.server.raft;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteRequestProto;
import org.apache.ratis.proto.RaftProtos.StateMachineLogEntryProto;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;

/** Which server-protocol messages MemberGate lets through to Ratis (the refusals of whole services: RaftAttackIT). */
class MemberGateTest {
    private final MemberGate gate = new MemberGate("test", false, id -> Set.of("r0", "r1").contains(id.toString()),
            data -> data.byteAt(0) == 2 ? null : "not sealed");

    private static RaftRpcRequestProto from(String id) {
        return RaftRpcRequestProto.newBuilder().setRequestorId(RaftPeerId.valueOf(id).toByteString())
                .setReplyId(RaftPeerId.valueOf("r2").toByteString()).build();
    }

    private static AppendEntriesRequestProto append(String id, byte[]... entries) {
        AppendEntriesRequestProto.Builder b = AppendEntriesRequestProto.newBuilder().setServerRequest(from(id))
                .setLeaderTerm(99);
        long index = 1;
        for (byte[] e : entries) {
            b.addEntries(LogEntryProto.newBuilder().setTerm(99).setIndex(index++).setStateMachineLogEntry(
                    StateMachineLogEntryProto.newBuilder().setLogData(ByteString.copyFrom(e))
                            .setClientId(ByteString.copyFrom(new byte[16]))));
        }
        return b.build();
    }

    @Test
    void refusal_appendFromANonMember_isRefused() {
        String why = gate.refusal(append("x9"));
        assertNotNull(why);
        assertTrue(why.contains("not a member"), why);
        assertNotNull(gate.refusal(RequestVoteRequestProto.newBuilder().setServerRequest(from("x9")).build()));
    }

    @Test
    void refusal_appendFromAMember_withAnUnsealedEntry_isRefused() {
        String why = gate.refusal(append("r0", new byte[] {2, 9}, new byte[] {(byte) 222, 0, 0, 0, 0, 0, 0, 0}));
        assertNotNull(why);
        assertTrue(why.contains("entry 2") && why.contains("not sealed"), why);
    }

    @Test
    void refusal_anEntryWithoutA16ByteClientId_isRefused() {
        AppendEntriesRequestProto a = AppendEntriesRequestProto.newBuilder().setServerRequest(from("r0"))
                .addEntries(LogEntryProto.newBuilder().setTerm(1).setIndex(1).setStateMachineLogEntry(
                        StateMachineLogEntryProto.newBuilder().setLogData(ByteString.copyFrom(new byte[] {2, 1}))))
                .build();
        String why = gate.refusal(a);
        assertNotNull(why);
        assertTrue(why.contains("client id"), why);
    }

    @Test
    void refusal_heartbeatsAndSealedEntriesFromAMember_passThrough() {
        assertNull(gate.refusal(append("r1")));
        assertNull(gate.refusal(append("r1", new byte[] {2, 1, 2, 3})));
        assertNull(gate.refusal(RequestVoteRequestProto.newBuilder().setServerRequest(from("r0")).build()));
    }

    @Test
    void refusal_anUnexpectedMessage_isRefused() {
        assertNotNull(gate.refusal("not a Raft message"));
        assertNotNull(gate.refusal(null));
    }
}
