package io.glassledger.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import java.io.OutputStream;
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
 * connection, a slowloris client and a client that never finishes its TLS handshake are closed, and connections
 * beyond the cap are closed at once while an authorised client goes on working.
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

    static double meter(TestServer s, String name, String... tags) {
        var search = s.bean(MeterRegistry.class).get(name).tags(tags);
        return name.endsWith(".open") ? search.gauge().value() : search.counter().count();
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
            byte[] request = ("GET /actuator/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + "a".repeat(200))
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
    void connectionsBeyondTheCap_areClosedAtOnce_whileAnAuthorisedClientWorks() throws Exception {
        try (TestServer s = server("--glassledger.connections.max-open=3",
                "--glassledger.connections.idle-timeout=60s", "--glassledger.connections.handshake-timeout=60s")) {
            Https https = new Https(s.url(), s.fingerprint());
            String key = s.apiKey("default");
            assertEquals(200, https.get("/v1/info", key).status());  // one connection, kept open (HTTP/2)
            await().atMost(Duration.ofSeconds(5)).until(() -> meter(s, "glassledger.connections.open") == 1);
            try (Socket a = RawTls.tcp(s.port()); Socket b = RawTls.tcp(s.port())) {
                await().atMost(Duration.ofSeconds(5)).until(() -> meter(s, "glassledger.connections.open") == 3);
                try (Socket over = RawTls.tcp(s.port())) {
                    long took = RawTls.awaitClosedByServer(over, BOUND_MILLIS);  // the handshake timeout is 60 s
                    assertTrue(took < BOUND_MILLIS);
                }
                assertEquals(1.0, meter(s, "glassledger.connections.refused"));
                assertEquals(200, https.get("/v1/info", key).status(), "the authorised client still works");
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> meter(s, "glassledger.connections.open") == 1);
        }
    }
}
