package io.glassledger.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile connections need no key (docs/ARCHITECTURE.md "Hostile connections and engine failure"): an idle
 * connection, a slowloris client and a client that never finishes its TLS handshake are closed; at the cap the
 * connection idle the longest gives way to a new one, never one with a request in progress, and only when every one
 * is busy is a new one closed at once; an address at its own cap is refused while another is served.
 */
class ConnectionLimitsTest {
    /** Every deadline below is 1 s; a server without it would leave the connection open for this long. */
    static final int BOUND_MILLIS = 8_000;

    @TempDir
    Path dir;

    TestServer server(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        for (String d : List.of("--glassledger.connections.handshake-timeout=1s",
                "--glassledger.connections.header-timeout=1s", "--glassledger.connections.idle-timeout=1s")) {
            String name = d.substring(0, d.indexOf('=') + 1);
            if (all.stream().noneMatch(a -> a.startsWith(name))) {  // a property given twice binds as a list
                all.add(d);
            }
        }
        return new TestServer(dir.resolve("data"), all.toArray(String[]::new));
    }

    /** A meter of the API port's connections. */
    static double meter(TestServer s, String name, String... tags) {
        var search = s.bean(MeterRegistry.class).get(name).tag("port", "api").tags(tags);
        return name.endsWith(".open") || name.endsWith(".idle") ? search.gauge().value() : search.counter().count();
    }

    @Test
    void idleTlsConnection_isClosedAfterTheIdleTimeout() throws Exception {
        try (TestServer s = server(); SSLSocket c = RawTls.tls(s.port())) {
            long took = RawTls.awaitClosedByServer(c, BOUND_MILLIS);
            assertTrue(took >= 500, "closed after " + took + " ms, before the idle timeout");
        }
    }

    @Test
    void tcpConnectionWithoutTlsHandshake_isClosed() throws Exception {
        try (TestServer s = server("--glassledger.connections.idle-timeout=60s"); Socket c = RawTls.tcp(s.port())) {
            RawTls.awaitClosedByServer(c, BOUND_MILLIS);
            await().atMost(Duration.ofSeconds(5)).until(() -> meter(s, "glassledger.connections.timeouts",
                    "kind", "handshake") == 1);
        }
    }

    @Test
    void slowlorisSendingOneHeaderByteAtATime_isClosed() throws Exception {
        // The idle timeout is long, and each byte would reset it anyway: only the header deadline can act.
        try (TestServer s = server("--glassledger.connections.idle-timeout=60s"); SSLSocket c = RawTls.tls(s.port())) {
            CompletableFuture<Long> closed = CompletableFuture.supplyAsync(() -> {
                try {
                    return RawTls.awaitClosedByServer(c, BOUND_MILLIS);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            byte[] request = ("GET /v1/info HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + "a".repeat(200))
                    .getBytes(StandardCharsets.US_ASCII);
            OutputStream out = c.getOutputStream();
            long t0 = System.nanoTime();
            for (int i = 0; i < request.length && !closed.isDone(); i++) {  // a byte each 200 ms: at most 45 s
                try {
                    out.write(request[i]);
                    out.flush();
                } catch (java.io.IOException e) {
                    break;  // the server closed it
                }
                try {
                    closed.get(200, TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.TimeoutException stillOpen) {
                    // send the next byte
                }
            }
            closed.get(BOUND_MILLIS, TimeUnit.MILLISECONDS);
            long took = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(took < BOUND_MILLIS, "the slow client was served for " + took + " ms");
            await().atMost(Duration.ofSeconds(5)).until(() -> meter(s, "glassledger.connections.timeouts",
                    "kind", "header") == 1);
        }
    }

    @Test
    void atTheCap_theLongestIdleConnectionGivesWay_neverOneWithARequestInProgress() throws Exception {
        try (TestServer s = server("--glassledger.connections.max-open=3",
                "--glassledger.connections.idle-timeout=60s", "--glassledger.connections.handshake-timeout=60s");
             SSLSocket busy = RawTls.tls(s.port())) {
            OutputStream body = startRequest(s, busy);
            try (SSLSocket idleTls = RawTls.tls(s.port()); Socket idleTcp = RawTls.tcp(s.port())) {
                await().atMost(Duration.ofSeconds(5)).until(() -> meter(s, "glassledger.connections.open") == 3);
                try (SSLSocket first = RawTls.tls(s.port())) {  // admitted: the oldest idle one gives way
                    RawTls.awaitClosedByServer(idleTls, BOUND_MILLIS);
                    try (SSLSocket second = RawTls.tls(s.port())) {  // then the next
                        RawTls.awaitClosedByServer(idleTcp, BOUND_MILLIS);
                        assertEquals(2.0, meter(s, "glassledger.connections.evicted"));
                        assertEquals(0.0, meter(s, "glassledger.connections.refused", "reason", "full"));
                        assertEquals(3.0, meter(s, "glassledger.connections.open"));
                    }
                }
            }
            // The request in progress all along is answered.
            body.write("]}".getBytes(StandardCharsets.US_ASCII));
            body.flush();
            String status = new String(busy.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
            assertTrue(status.startsWith("HTTP/1.1 200"), status);
        }
    }

    @Test
    void atTheCapWithEveryConnectionBusy_aNewOneIsClosedAtOnce() throws Exception {
        try (TestServer s = server("--glassledger.connections.max-open=1",
                "--glassledger.connections.idle-timeout=60s", "--glassledger.connections.handshake-timeout=60s");
             SSLSocket busy = RawTls.tls(s.port())) {
            startRequest(s, busy);
            try (Socket over = RawTls.tcp(s.port())) {
                long took = RawTls.awaitClosedByServer(over, BOUND_MILLIS);  // the handshake timeout is 60 s
                assertTrue(took < BOUND_MILLIS);
            }
            assertEquals(1.0, meter(s, "glassledger.connections.refused", "reason", "full"));
            assertEquals(0.0, meter(s, "glassledger.connections.evicted"));
        }
    }

    @Test
    void anAddressAtItsCap_isRefused_anotherAddressIsServed() throws Exception {
        try (TestServer s = server("--glassledger.connections.max-per-address=2",
                "--glassledger.connections.idle-timeout=60s", "--glassledger.connections.handshake-timeout=60s");
             Socket a = RawTls.tcp(s.port()); Socket b = RawTls.tcp(s.port())) {
            await().atMost(Duration.ofSeconds(5)).until(() -> meter(s, "glassledger.connections.open") == 2);
            try (Socket over = RawTls.tcp(s.port())) {
                RawTls.awaitClosedByServer(over, BOUND_MILLIS);
            }
            assertEquals(1.0, meter(s, "glassledger.connections.refused", "reason", "per-address"));
            try (RawHttps other = new RawHttps(s.port(), s.fingerprint(), InetAddress.getByName("127.0.0.2"))) {
                assertEquals(200, other.send("GET", "/v1/info", s.apiKey("default"), null).status());
            }
        }
    }

    @Test
    void anHttp2ConnectionWithAnOpenStream_isBusy_andIdleWhenItCloses() throws Exception {
        try (TestServer s = server("--glassledger.connections.idle-timeout=60s");
             RawH2 h2 = new RawH2(s.port())) {
            h2.serverSettings();
            await().atMost(Duration.ofSeconds(10)).until(() -> meter(s, "glassledger.connections.idle") == 1);
            h2.postHeaders(1, "/v1/get", s.apiKey("default"));
            h2.flush();
            await().atMost(Duration.ofSeconds(10)).until(() -> meter(s, "glassledger.connections.idle") == 0);
            h2.data(1, "{\"keys\": [\"AA==\"]}".getBytes(StandardCharsets.US_ASCII), true);
            h2.flush();
            assertEquals(200, h2.status(1, 100));
            await().atMost(Duration.ofSeconds(10)).until(() -> meter(s, "glassledger.connections.idle") == 1);
        }
    }

    /**
     * Starts {@code POST /v1/get} on {@code c} with its headers and the first bytes of its body: a request in
     * progress until the rest ({@code "]}"}) is sent. Returns once the server has its headers: no connection is idle.
     */
    static OutputStream startRequest(TestServer s, SSLSocket c) throws Exception {
        String body = "{\"keys\": [\"AA==\"]}";
        String head = "POST /v1/get HTTP/1.1\r\nHost: 127.0.0.1:" + s.port() + "\r\nAuthorization: Bearer "
                + s.apiKey("default") + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length()
                + "\r\n\r\n";
        OutputStream out = c.getOutputStream();
        out.write((head + body.substring(0, body.length() - 2)).getBytes(StandardCharsets.US_ASCII));
        out.flush();
        await().atMost(Duration.ofSeconds(10)).until(() -> meter(s, "glassledger.connections.idle") == 0);
        return out;
    }
}
