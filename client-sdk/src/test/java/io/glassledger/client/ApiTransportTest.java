package io.glassledger.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How the transport reports a server it cannot reach: retryable {@code transport}, the cause kept for the CLI. */
class ApiTransportTest {
    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static GlassLedgerException refused(String url) {
        Api api = new Api(URI.create(url), "key", null, Duration.ofSeconds(10), 1 << 20);
        try {
            return assertThrows(GlassLedgerException.class, () -> Violations.join(api.get("/v1/info", Map.class)));
        } finally {
            api.close();
        }
    }

    private static boolean causedBy(Throwable e, Class<?> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    @Test
    void aClosedPort_isARetryableTransportFailure_namingTheUrl() throws IOException {
        String url = "https://127.0.0.1:" + closedPort();
        GlassLedgerException e = refused(url);
        assertEquals(GlassLedgerException.TRANSPORT, e.code());
        assertTrue(e.retryable());
        assertTrue(e.detail().contains(url), e.detail());
        assertTrue(causedBy(e, ConnectException.class), e.toString());
    }

    /** Reactor Netty parses a URL string with a one-digit port as the host "127.0.0.1:9"; the Api passes a URI. */
    @Test
    void aOneDigitPort_isAPortNotPartOfTheHost() {
        GlassLedgerException e = refused("http://127.0.0.1:9");
        assertEquals(GlassLedgerException.TRANSPORT, e.code());
        assertTrue(!causedBy(e, java.net.UnknownHostException.class), e.toString());
    }
}
