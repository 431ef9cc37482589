package io.glassledger.server.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Admission without sockets: the caps, and which connection gives way at the cap. */
class AdmissionTest {
    static final InetAddress A = address(1);
    static final InetAddress B = address(2);

    /** Which connections were closed to make room, in order. */
    final List<String> closed = new ArrayList<>();

    Admission.Ticket admit(Admission a, InetAddress from, String name) {
        Admission.Verdict v = a.admit(from, () -> closed.add(name));
        assertNull(v.refusal(), name + " refused: " + v);
        return v.ticket();
    }

    @Test
    void atTheCap_theLongestIdleGivesWay_inOrder() {
        Admission a = new Admission(3, 10);
        admit(a, A, "first");
        admit(a, A, "second");
        admit(a, B, "third");
        assertTrue(a.admit(B, () -> closed.add("fourth")).evicted());
        assertEquals(List.of("first"), closed);
        admit(a, B, "fifth");
        assertEquals(List.of("first", "second"), closed);
        assertEquals(3, a.open());
    }

    @Test
    void aConnectionWithARequestInProgress_neverGivesWay_andIsLastInLineWhenIdleAgain() {
        Admission a = new Admission(2, 10);
        Admission.Ticket busy = admit(a, A, "busy");
        admit(a, A, "idle");
        busy.busy();
        admit(a, B, "new");
        assertEquals(List.of("idle"), closed);
        busy.idle();  // now the newest idle one: "new" has waited longer
        admit(a, B, "newer");
        assertEquals(List.of("idle", "new"), closed);
    }

    @Test
    void atTheCapWithEveryConnectionBusy_aNewOneIsRefused() {
        Admission a = new Admission(1, 10);
        admit(a, A, "busy").busy();
        Admission.Verdict v = a.admit(B, () -> closed.add("new"));
        assertEquals(Admission.Refusal.FULL, v.refusal());
        assertNull(v.ticket());
        assertTrue(closed.isEmpty());
    }

    @Test
    void anAddressAtItsCap_isRefused_whateverIsIdle_andOthersAreNot() {
        Admission a = new Admission(10, 2);
        Admission.Ticket one = admit(a, A, "a1");
        admit(a, A, "a2");
        assertEquals(Admission.Refusal.ADDRESS, a.admit(A, () -> { }).refusal());
        assertNotNull(admit(a, B, "b1"));
        one.release();
        assertEquals(1, a.openFrom(A));
        assertNotNull(admit(a, A, "a3"));
        assertTrue(closed.isEmpty());
    }

    @Test
    void releasedAndEvictedTickets_ignoreLaterCalls() {
        Admission a = new Admission(1, 10);
        Admission.Ticket first = admit(a, A, "first");
        admit(a, B, "second");  // evicts first
        first.busy();
        first.idle();
        first.release();
        assertEquals(1, a.open());
        assertEquals(0, a.openFrom(A));
        assertEquals(1, a.idle());
        assertFalse(closed.isEmpty());
    }

    private static InetAddress address(int last) {
        try {
            return InetAddress.getByAddress(new byte[] {10, 0, 0, (byte) last});
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
