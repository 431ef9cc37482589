package io.glassledger.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * What clients get wrong at the connection level is logged in one line each, without stack traces, and the start
 * has no springdoc warning (docs/ARCHITECTURE.md "Hostile connections and engine failure").
 */
@ExtendWith(OutputCaptureExtension.class)
class ConnectionNoiseTest {
    @TempDir
    Path tmp;

    @Test
    void failedHandshakes_oversizedBody_logOneLineEach_noTraces(CapturedOutput out) throws Exception {
        try (TestServer s = new TestServer(tmp.resolve("data"), "--logging.level.root=INFO")) {
            assertFalse(out.getAll().contains("SpringDoc"), "springdoc warned at start: " + out.getAll());
            int before = out.getAll().length();

            // plain HTTP on the HTTPS port
            try (Socket plain = RawTls.tcp(s.port())) {
                OutputStream o = plain.getOutputStream();
                o.write("GET /v1/info HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                o.flush();
                RawTls.awaitClosedByServer(plain, 10_000);
            }
            // a client that does not trust the certificate (the JDK's default trust store)
            HttpClient untrusting = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
            assertThrows(SSLHandshakeException.class, () -> untrusting.send(HttpRequest.newBuilder(
                    URI.create(s.url() + "/v1/info")).build(), HttpResponse.BodyHandlers.discarding()));
            await().atMost(Duration.ofSeconds(30)).until(() -> count(out.getAll().substring(before),
                    "TLS handshake from /127.0.0.1:") == 2);

            // a 10 MB body over HTTP/2 is refused 413 too_large, and the stream cut short is not an ERROR trace
            byte[] big = new byte[10 << 20];
            Arrays.fill(big, (byte) 'a');
            Https https = new Https(s.url(), s.fingerprint());
            for (int i = 0; i < 2; i++) {
                Https.Response r = https.post("/v1/get", s.apiKey("default"), new String(big, StandardCharsets.US_ASCII));
                assertEquals(413, r.status(), r.text());
                assertEquals("too_large", r.body().get("code").asText(), r.text());
                assertTrue(r.body().get("detail").asText().contains("spring.codec.max-in-memory-size"), r.text());
            }
            // and the server still answers on a new connection, after whatever the cut streams logged
            assertEquals(401, new Https(s.url(), s.fingerprint()).get("/v1/info", null).status());
            String log = out.getAll().substring(before);
            assertEquals(2, count(log, "TLS handshake from /127.0.0.1:"), log);
            assertTrue(log.contains("not TLS (plain HTTP on the HTTPS port?)"), log);
            assertFalse(log.contains("\tat "), "a stack trace was logged: " + log);
            assertFalse(log.contains("Http2Exception"), log);
            assertFalse(log.contains("ERROR"), log);
        }
    }

    @Test
    void zeroWindowUpdatesOn500Streams_logAFewInfoLines_noTraces_andTheServerAnswers(CapturedOutput out)
            throws Exception {
        try (TestServer s = new TestServer(tmp.resolve("data"), "--logging.level.root=INFO")) {
            Path json = tmp.resolve("data").resolve("logs").resolve("server.json");
            long jsonBefore = java.nio.file.Files.size(json);
            int before = out.getAll().length();
            String key = s.apiKey("default");
            long t0 = System.nanoTime();
            try (RawH2 h2 = new RawH2(s.port())) {
                h2.serverSettings();
                // Half answered at once (401 without a key), half still waiting for their bodies, when each
                // stream's WINDOW_UPDATE of 0 arrives: a PROTOCOL_ERROR of the stream (RFC 9113 §6.9).
                for (int i = 0; i < 500; i++) {
                    int stream = 2 * i + 1;
                    if (i % 2 == 0) {
                        h2.get(stream, "/v1/info", null);
                    } else {
                        h2.postHeaders(stream, "/v1/get", null);
                    }
                    h2.windowUpdate(stream, 0);
                }
                h2.flush();
                // Netty closes a connection whose peer makes it reset too many streams; or it answers this.
                h2.get(1001, "/v1/info", key);
                h2.flush();
                h2.status(1001, 100_000);
            }
            try (RawH2 h2 = new RawH2(s.port())) {
                h2.serverSettings();
                h2.get(1, "/v1/info", key);
                h2.flush();
                assertEquals(200, h2.status(1, 10_000));
                h2.windowUpdate(1, 0);  // a stream the server has closed
                h2.get(3, "/v1/info", key);
                h2.flush();
                assertEquals(200, h2.status(3, 10_000), "the connection still serves");
            }
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0);
            assertEquals(401, new Https(s.url(), s.fingerprint()).get("/v1/info", null).status());
            String log = out.getAll().substring(before);
            assertFalse(log.contains("\tat "), "a stack trace was logged: " + log);
            assertFalse(log.contains("ERROR"), log);
            assertFalse(log.contains("WARN"), log);
            // At most a line a second (a handful on an idle machine; a loaded one takes longer over 500 streams).
            int lines = count(log, "HTTP/2 protocol error from /127.0.0.1:");
            assertTrue(lines >= 1 && lines <= 2 + seconds, lines + " lines in " + seconds + " s: " + log);
            long grew = java.nio.file.Files.size(json) - jsonBefore;
            assertTrue(grew < 16_384, "the JSON log grew by " + grew + " bytes");
        }
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }
}
