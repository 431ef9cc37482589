package io.glassledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/**
 * A member that knows its own name but not its number (a Kubernetes pod, {@code $(POD_NAME).<headless>:<port>}) finds
 * its position in the replication and directory peer lists from {@code self}.
 */
class MemberSelfTest {
    private static final String PEERS = "gl-s1-0.gl-s1.ns.svc.cluster.local:9600,gl-s1-1.gl-s1.ns.svc.cluster.local:9600,"
            + "gl-s1-2.gl-s1.ns.svc.cluster.local:9600";
    private static final String URLS = "https://gl-s1-0.gl-s1.ns.svc.cluster.local:8443,"
            + "https://gl-s1-1.gl-s1.ns.svc.cluster.local:8443,https://gl-s1-2.gl-s1.ns.svc.cluster.local:8443";

    private static LedgerProperties bind(Map<String, String> given) {
        Map<String, String> all = new HashMap<>(given);
        return new Binder(new MapConfigurationPropertySource(all)).bind("glassledger", LedgerProperties.class).get();
    }

    @Test
    void replicationSelf_givesThePosition_whateverReplicaSays() {
        LedgerProperties p = bind(Map.of("glassledger.replication.peers", PEERS, "glassledger.replication.urls", URLS,
                "glassledger.replication.self", "GL-S1-2.gl-s1.ns.svc.cluster.local:9600",
                "glassledger.replication.replica", "0"));
        assertEquals(2, p.replication().replica());
        assertEquals("gl-s1-2.gl-s1.ns.svc.cluster.local:9600", p.replication().bindAddress());
    }

    @Test
    void directorySelf_givesThePosition() {
        String dir = PEERS.replace(":9600", ":9700");
        LedgerProperties p = bind(Map.of("glassledger.directory.peers", dir,
                "glassledger.directory.self", "gl-s1-1.gl-s1.ns.svc.cluster.local:9700",
                "glassledger.directory.listen", "0.0.0.0:9700"));
        assertEquals(1, p.directory().member());
        assertEquals("0.0.0.0:9700", p.directory().bindAddress());
    }

    @Test
    void selfNotAmongThePeers_isRefused_namingBoth() {
        Exception e = assertThrows(Exception.class, () -> bind(Map.of("glassledger.replication.peers", PEERS,
                "glassledger.replication.urls", URLS, "glassledger.replication.self", "gl-s0-0.gl-s0:9600")));
        String text = causes(e);
        assertTrue(text.contains("glassledger.replication.self (gl-s0-0.gl-s0:9600) is not an entry"), text);
        Exception d = assertThrows(Exception.class, () -> bind(Map.of("glassledger.directory.peers", PEERS,
                "glassledger.directory.self", "gl-s1-1.gl-s1.ns.svc.cluster.local:9700")));
        assertTrue(causes(d).contains("glassledger.directory.self"), causes(d));
    }

    private static String causes(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            b.append(c).append('\n');
        }
        return b.toString();
    }
}
