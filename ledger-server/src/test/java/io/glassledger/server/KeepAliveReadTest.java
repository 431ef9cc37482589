package io.glassledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A kept-alive HTTP/1.1 connection keeps being read after a request that arrived while the one before it was still
 * being served, and was then refused before its body was read (schemathesis's coverage phase left such a next
 * request unanswered for 120 s: Reactor Netty 1.2's pipelining queue drained the refused request's body and armed
 * no read; see {@code ReadAfterDrain} in ledger-api, installed by ConnectionGuard). Both requests go in one write,
 * so one TLS record: the second is decoded while the first waits on the read executor, every time.
 */
class KeepAliveReadTest {
    /** A request the server answers in milliseconds; past this, it is not reading the connection any more. */
    static final int BOUND_MILLIS = 10_000;

    @TempDir
    Path dir;

    @Test
    void nextRequest_isAnswered_afterARefusedBodyWasQueuedBehindASlowerRequest() throws Exception {
        try (TestServer s = new TestServer(dir.resolve("data"));
             RawHttps http = new RawHttps(s.port(), s.fingerprint())) {
            String key = s.apiKey("admin");
            String host = "Host: 127.0.0.1:" + s.port() + "\r\nAuthorization: Bearer " + key + "\r\n";
            String body = "{\"key\": \"0000\", \"limit\": 1}";
            // 1: answered on the read executor; 2: refused (415) as it is dispatched, its body still queued.
            String first = "GET /v1/proofs/append-only?from=0 HTTP/1.1\r\n" + host + "\r\n";
            String refused = "POST /v1/history HTTP/1.1\r\n" + host + "Content-Type: text/plain\r\nContent-Length: "
                    + body.length() + "\r\n\r\n" + body;
            for (int round = 0; round < 3; round++) {
                List<RawHttps.Response> two = http.sendRaw(first + refused, 2, BOUND_MILLIS);
                assertEquals(200, two.get(0).status(), two.get(0).text());
                assertEquals(415, two.get(1).status(), two.get(1).text());
                RawHttps.Response next;
                try {
                    next = http.sendRaw("GET /v1/head HTTP/1.1\r\n" + host + "\r\n", 1, BOUND_MILLIS).get(0);
                } catch (SocketTimeoutException e) {
                    throw new AssertionError("round " + round + ": the next request on the connection was not "
                            + "answered within " + BOUND_MILLIS + " ms", e);
                }
                assertEquals(200, next.status(), next.text());
            }
            assertEquals(1, http.connections, "all on one kept-alive connection");
        }
    }
}
