package io.glassledger.auditor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.glassledger.api.PinnedTrustManager;
import io.glassledger.api.SelfSignedCertificate;
import io.glassledger.api.SignedGossip;
import io.glassledger.verify.crypto.SigningKey;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Issue 15.6, the auditor: gossip is accepted only when signed by a configured peer's key, recently, and the state
 * kept per sender is bounded by the configured peers; a client's audits cannot make an auditor do more than one
 * catch-up per shard per interval, nor tie up more than {@code max-concurrent-audits} threads. Real auditors over
 * HTTPS in this JVM; the shard they follow is a stub that only counts and answers 503 (no ledger is needed here).
 */
class GossipAuthTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    static Path dir;
    private static final List<ConfigurableApplicationContext> contexts = new ArrayList<>();
    private static final List<AutoCloseable> closeables = new ArrayList<>();
    private static StubShard shard;
    private static Auditor a;
    private static Auditor b;

    /** An auditor in this JVM: its URL, TLS pin and gossip key, known before it starts. */
    record Auditor(String url, String pin, SigningKey key, Path data) {
        static Auditor prepare(Path data) throws Exception {
            int port = io.glassledger.server.testing.TestPorts.port();
            return new Auditor("https://127.0.0.1:" + port,
                    SelfSignedCertificate.loadOrCreate(data.resolve("tls")).fingerprint(),
                    AuditorKey.loadOrCreate(data), data);
        }

        void start(StubShard shard, String... extra) {
            List<String> args = new ArrayList<>(List.of("--server.port=" + URI.create(url).getPort(),
                    "--glassledger.auditor.data-dir=" + data, "--glassledger.auditor.shards=" + shard.url(),
                    "--glassledger.auditor.pin=" + shard.pin, "--glassledger.auditor.api-key=gl_test",
                    "--logging.level.root=WARN", "--logging.file.name=" + data.resolve("auditor.log")));
            args.addAll(List.of(extra));
            contexts.add(new SpringApplicationBuilder(AuditorApplication.class).run(args.toArray(String[]::new)));
        }
    }

    /**
     * A shard that answers every request 503 (or {@link #status}, always with a body that is no signed head), counting
     * {@code GET /v1/head}, and can hold them until released.
     */
    static final class StubShard implements AutoCloseable {
        final HttpsServer server;
        final String pin;
        final AtomicInteger heads = new AtomicInteger();
        volatile CountDownLatch hold = new CountDownLatch(0);
        volatile int status = 503;

        StubShard(Path tls) throws Exception {
            var ks = SelfSignedCertificate.loadOrCreate(tls);
            pin = ks.fingerprint();
            KeyStore store = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(ks.path())) {
                store.load(in, ks.password().toCharArray());
            }
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(store, ks.password().toCharArray());
            SSLContext ssl = SSLContext.getInstance("TLS");
            ssl.init(kmf.getKeyManagers(), null, null);
            server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
            server.setHttpsConfigurator(new HttpsConfigurator(ssl));
            server.setExecutor(Executors.newFixedThreadPool(8));
            server.createContext("/", ex -> {
                if (ex.getRequestURI().getPath().equals("/v1/head")) {
                    heads.incrementAndGet();
                    try {
                        hold.await(60, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                byte[] body = "{\"code\":\"unavailable\"}".getBytes();
                ex.sendResponseHeaders(status, body.length);
                ex.getResponseBody().write(body);
                ex.close();
            });
            server.start();
        }

        String url() {
            return "https://127.0.0.1:" + server.getAddress().getPort();
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }

    @BeforeAll
    static void start() throws Exception {
        shard = new StubShard(dir.resolve("shard-tls"));
        closeables.add(shard);
        a = Auditor.prepare(dir.resolve("a"));
        b = Auditor.prepare(dir.resolve("b"));
        a.start(shard, "--glassledger.auditor.peers=" + b.url(), "--glassledger.auditor.peer-pins=" + b.pin(),
                "--glassledger.auditor.peer-keys=" + b.key().publicKey().hex(),
                "--glassledger.auditor.gossip-interval=200ms");
        b.start(shard, "--glassledger.auditor.peers=" + a.url(), "--glassledger.auditor.peer-pins=" + a.pin(),
                "--glassledger.auditor.peer-keys=" + a.key().publicKey().hex(),
                "--glassledger.auditor.gossip-interval=200ms");
    }

    @AfterAll
    static void stop() throws Exception {
        contexts.forEach(ConfigurableApplicationContext::close);
        for (AutoCloseable c : closeables) {
            c.close();
        }
    }

    @Test
    void gossip_betweenConfiguredPeers_isSignedAndHeard() throws Exception {
        await().atMost(Duration.ofSeconds(30)).until(() -> !status(a).get("peersLastHeard").get(b.url()).isNull()
                && !status(b).get("peersLastHeard").get(a.url()).isNull());
        assertThat(status(a).get("auditorKey").asText()).isEqualTo(a.key().publicKey().hex());
        assertThat(Files.getPosixFilePermissions(a.data().resolve(AuditorKey.FILE)))
                .isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        // The answer to a peer's gossip is signed by the answering auditor's own key.
        var r = post(a, "/v1/gossip", SignedGossip.sign(b.key(), "b", System.currentTimeMillis(), List.of()));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        SignedGossip.Message answer = JSON.readValue(r.body(), SignedGossip.Message.class);
        assertThat(answer.key()).isEqualTo(a.key().publicKey().hex());
        SignedGossip.verify(answer);
    }

    @Test
    void gossip_unsignedUnknownForgedOrStale_isRefusedAndLeavesNoTrace() throws Exception {
        int before = status(a).get("peersLastHeard").size();
        // The old, unsigned shape: an attacker-chosen name that used to be stored and echoed forever.
        assertProblem(post(a, "/v1/gossip", "{\"from\": \"evil-0\", \"heads\": []}"), 401, "unauthenticated");
        // Signed, by a key that is no peer's.
        for (int i = 0; i < 5; i++) {
            assertProblem(post(a, "/v1/gossip", SignedGossip.sign(SigningKey.generate(), "evil-" + i,
                    System.currentTimeMillis(), List.of())), 403, "unknown_peer");
        }
        // A peer's message with its sender name changed after signing.
        SignedGossip.Message real = SignedGossip.sign(b.key(), "b", System.currentTimeMillis(), List.of());
        assertProblem(post(a, "/v1/gossip", new SignedGossip.Message("evil", real.key(), real.sentAt(), real.heads(),
                real.signature())), 401, "bad_gossip_signature");
        // A peer's message signed long ago (a replay).
        assertProblem(post(a, "/v1/gossip", SignedGossip.sign(b.key(), "b", System.currentTimeMillis()
                - Duration.ofMinutes(10).toMillis(), List.of())), 401, "stale_gossip");
        JsonNode heard = status(a).get("peersLastHeard");
        assertThat(heard.size()).isEqualTo(before).isEqualTo(1);
        assertThat(heard.toString()).doesNotContain("evil");
    }

    @Test
    void audits_aheadOfTheAudit_startOneCatchUpPerInterval() throws Exception {
        StubShard own = new StubShard(dir.resolve("c-shard-tls"));
        closeables.add(own);
        Auditor c = Auditor.prepare(dir.resolve("c"));
        c.start(own, "--glassledger.auditor.poll-interval=1h", "--glassledger.auditor.audit-catch-up-interval=1h");
        await().atMost(Duration.ofSeconds(30)).until(() -> own.heads.get() >= 1);  // the first scheduled poll
        List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
        HttpClient http = client(c);
        for (int i = 0; i < 50; i++) {
            all.add(http.sendAsync(auditRequest(c, 1_000_000 + i), HttpResponse.BodyHandlers.ofString()));
        }
        for (var f : all) {
            HttpResponse<String> r = f.get(60, TimeUnit.SECONDS);
            assertThat(r.statusCode()).as(r.body()).isIn(202, 503);
        }
        assertThat(own.heads.get()).as("GET /v1/head made by 1 poll and 50 audits").isLessThanOrEqualTo(2);
    }

    @Test
    void audits_overTheLimit_areRefusedAtOnceWithRetryAfter() throws Exception {
        StubShard slow = new StubShard(dir.resolve("d-shard-tls"));
        closeables.add(slow);
        slow.hold = new CountDownLatch(1);  // the shard hangs: the audit's catch-up cannot finish
        Auditor d = Auditor.prepare(dir.resolve("d"));
        d.start(slow, "--glassledger.auditor.poll-interval=1h", "--glassledger.auditor.max-concurrent-audits=2");
        HttpClient http = client(d);
        var first = http.sendAsync(auditRequest(d, 5), HttpResponse.BodyHandlers.ofString());
        var second = http.sendAsync(auditRequest(d, 6), HttpResponse.BodyHandlers.ofString());
        await().atMost(Duration.ofSeconds(30)).until(() -> status(d).get("auditsInFlight").asInt() == 2);
        HttpResponse<String> third = http.send(auditRequest(d, 7), HttpResponse.BodyHandlers.ofString());
        assertProblem(third, 503, "overloaded");
        assertThat(third.headers().firstValue("Retry-After")).contains("1");
        slow.hold.countDown();
        assertThat(first.get(60, TimeUnit.SECONDS).statusCode()).isIn(202, 503);
        assertThat(second.get(60, TimeUnit.SECONDS).statusCode()).isIn(202, 503);
        await().atMost(Duration.ofSeconds(30)).until(() -> status(d).get("auditsInFlight").asInt() == 0);
    }

    private static HttpRequest auditRequest(Auditor x, long block) {
        return HttpRequest.newBuilder(URI.create(x.url() + "/v1/audit")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"shard\": 0, \"block\": " + block + ", \"hash\": \""
                        + "ab".repeat(32) + "\"}")).build();
    }

    private static final java.util.Map<String, HttpClient> CLIENTS = new java.util.concurrent.ConcurrentHashMap<>();

    private static HttpClient client(Auditor x) {
        return CLIENTS.computeIfAbsent(x.pin(), p -> HttpClient.newBuilder()
                .sslContext(PinnedTrustManager.sslContext(p)).build());
    }

    private static JsonNode status(Auditor x) throws Exception {
        HttpResponse<String> r = client(x).send(HttpRequest.newBuilder(URI.create(x.url() + "/v1/status")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private static HttpResponse<String> post(Auditor x, String path, Object body) throws Exception {
        String text = body instanceof String s ? s : JSON.writeValueAsString(body);
        return client(x).send(HttpRequest.newBuilder(URI.create(x.url() + path))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(text)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static void assertProblem(HttpResponse<String> r, int status, String code) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).contains("application/problem+json");
        assertThat(JSON.readTree(r.body()).get("code").asText()).isEqualTo(code);
    }
}
