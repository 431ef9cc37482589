package io.glassledger.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 16, item 8: the SDK caps every response it reads. A plain HTTP server on loopback stands in for a server that
 * answers without end; {@link Api} is the one place responses are read, so it is tested directly.
 */
class ApiResponseCapTest {
    static final long CAP = 64 * 1024;
    static final long ENDLESS = 256L << 20;

    HttpServer server;
    ExecutorService pool;
    final AtomicLong written = new AtomicLong();
    final CountDownLatch endlessDone = new CountDownLatch(1);
    Api api;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        pool = Executors.newFixedThreadPool(4);
        server.setExecutor(pool);
        byte[] small = "{\"status\":\"ok\"}".getBytes(StandardCharsets.UTF_8);
        server.createContext("/small", ex -> {
            try (ex) {
                ex.getResponseHeaders().set("Content-Type", "application/json");
                ex.sendResponseHeaders(200, small.length);
                ex.getResponseBody().write(small);
            }
        });
        // Declares a length over the cap.
        server.createContext("/declared", ex -> {
            try (ex) {
                ex.getResponseHeaders().set("Content-Type", "application/json");
                ex.sendResponseHeaders(200, CAP + 1);
                ex.getResponseBody().write(jsonOfLength(CAP + 1));
            } catch (IOException e) {
                // the client hung up, as it should
            }
        });
        // Chunked, no length, 256 MiB of a JSON string: the client must stop reading long before the end.
        server.createContext("/endless", ex -> {
            try (ex) {
                ex.getResponseHeaders().set("Content-Type", "application/json");
                ex.sendResponseHeaders(200, 0);
                OutputStream out = ex.getResponseBody();
                byte[] chunk = new byte[16 * 1024];
                Arrays.fill(chunk, (byte) 'a');
                out.write('"');
                for (long n = 0; n < ENDLESS; n += chunk.length) {
                    out.write(chunk);
                    written.addAndGet(chunk.length);
                }
                out.write('"');
            } catch (IOException e) {
                // the client hung up, as it should
            } finally {
                endlessDone.countDown();
            }
        });
        server.start();
        api = new Api(URI.create("http://127.0.0.1:" + server.getAddress().getPort()), "key", null,
                Duration.ofSeconds(30), CAP);
    }

    @AfterEach
    void stop() {
        api.close();
        server.stop(0);
        pool.shutdownNow();
    }

    private static byte[] jsonOfLength(long n) {
        byte[] b = new byte[(int) n];
        Arrays.fill(b, (byte) 'a');
        b[0] = '"';
        b[b.length - 1] = '"';
        return b;
    }

    @Test
    void aResponseUnderTheCap_isRead() {
        Map<?, ?> m = Violations.join(api.get("/small", Map.class));
        assertEquals("ok", m.get("status"));
    }

    @Test
    void aDeclaredLengthOverTheCap_isRefused() {
        GlassLedgerException e = assertThrows(GlassLedgerException.class,
                () -> Violations.join(api.get("/declared", String.class)));
        assertEquals(Api.RESPONSE_TOO_LARGE, e.code());
        assertTrue(e.detail().contains("declares"), e.detail());
    }

    @Test
    void anEndlessChunkedResponse_isCutOffWithoutReadingItAll() throws Exception {
        GlassLedgerException e = assertThrows(GlassLedgerException.class,
                () -> Violations.join(api.get("/endless", String.class)));
        assertEquals(Api.RESPONSE_TOO_LARGE, e.code());
        assertTrue(!e.retryable(), "asking again gets the same answer");
        // The client hung up: the server's writes fail long before it wrote everything.
        assertTrue(endlessDone.await(30, TimeUnit.SECONDS), "the server is still writing");
        assertTrue(written.get() < ENDLESS, "the client read the whole " + written.get() + " bytes");
    }
}
