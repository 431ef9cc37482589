package io.glassledger.auditor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.glassledger.api.PinnedTrustManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Issue 30, item 6: an auditor once reported {@code ok}, lag 0 and health UP for 14 minutes while a shard it audits
 * was dead. A shard that no replica has answered for longer than {@code glassledger.auditor.max-silence} makes the
 * auditor's readiness DOWN and its status not {@code ok}, naming how long and the last error; liveness stays UP. An
 * auditor in this JVM on a clock the test moves (no waiting on real time), over a stub shard that answers, then is
 * stopped; the test runs the poll rounds itself.
 */
class ShardSilenceTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

    @TempDir
    Path dir;

    /** A clock that stands still until the test moves it. */
    static final class TestClock extends Clock {
        private final AtomicReference<Instant> now;

        TestClock(Instant start) {
            now = new AtomicReference<>(start);
        }

        void advance(Duration d) {
            now.updateAndGet(t -> t.plus(d));
        }

        @Override
        public Instant instant() {
            return now.get();
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    @Test
    void shardSilentLongerThanMaxSilence_readinessDownAndNotOk_livenessUp() throws Exception {
        TestClock clock = new TestClock(T0);
        GossipAuthTest.StubShard shard = new GossipAuthTest.StubShard(dir.resolve("shard-tls"));
        shard.status = 200;  // answered, so heard, though the answer is no signed head (a round's error)
        try (shard; ConfigurableApplicationContext ctx = new SpringApplicationBuilder(AuditorApplication.class)
                .initializers(c -> c.getBeanFactory().registerSingleton("testClock", clock))
                .run("--server.port=0", "--server.address=127.0.0.1",
                        "--glassledger.auditor.data-dir=" + dir.resolve("auditor"),
                        "--glassledger.auditor.shards=" + shard.url(), "--glassledger.auditor.pin=" + shard.pin,
                        "--glassledger.auditor.api-key=gl_test", "--glassledger.auditor.poll-interval=1h",
                        "--logging.level.root=WARN", "--logging.file.name=" + dir.resolve("auditor.log"))) {
            Auditor auditor = new Auditor(ctx);
            ShardAuditor audit = ctx.getBean(AuditService.class).shards().get(0);
            // The one scheduled round (the next is an hour away) has begun; a round of the test's runs after it.
            await().atMost(Duration.ofSeconds(30)).until(() -> shard.heads.get() >= 1);
            audit.poll();
            assertThat(auditor.status().get("shards").get(0).get("lastHeardAtMillis").asLong())
                    .isEqualTo(T0.toEpochMilli());

            shard.close();  // the shard dies
            clock.advance(Duration.ofSeconds(30));
            audit.poll();
            clock.advance(Duration.ofSeconds(29));  // t0 + 59 s: within max-silence (default 60 s)
            assertThat(auditor.get("/actuator/health/readiness").statusCode()).isEqualTo(200);
            JsonNode status = auditor.status();
            assertThat(status.get("ok").asBoolean()).as(status.toString()).isTrue();
            assertThat(status.get("maxSilenceMillis").asLong()).isEqualTo(60_000);
            JsonNode s0 = status.get("shards").get(0);
            assertThat(s0.get("silent").asBoolean()).isFalse();
            assertThat(s0.get("silentForMillis").asLong()).isEqualTo(59_000);

            clock.advance(Duration.ofSeconds(2));  // t0 + 61 s
            HttpResponse<String> readiness = auditor.get("/actuator/health/readiness");
            assertThat(readiness.statusCode()).as(readiness.body()).isEqualTo(503);
            JsonNode health = JSON.readTree(readiness.body());
            assertThat(health.get("status").asText()).isEqualTo("DOWN");
            JsonNode h0 = health.at("/components/shards/details/shards/0");
            assertThat(h0.get("silent").asBoolean()).as(readiness.body()).isTrue();
            assertThat(h0.get("silentForMillis").asLong()).isEqualTo(61_000);
            assertThat(h0.get("lastError").asText()).isNotBlank();
            assertThat(auditor.get("/actuator/health/liveness").statusCode()).as("a restart would not help")
                    .isEqualTo(200);
            status = auditor.status();
            assertThat(status.get("ok").asBoolean()).as(status.toString()).isFalse();
            s0 = status.get("shards").get(0);
            assertThat(s0.get("silent").asBoolean()).isTrue();
            assertThat(s0.get("silentForMillis").asLong()).isEqualTo(61_000);
            assertThat(s0.get("lastHeardAtMillis").asLong()).isEqualTo(T0.toEpochMilli());
            assertThat(s0.get("lastError").asText()).as("the failed round's error").isNotBlank()
                    .doesNotContain("unavailable");  // not the answer of the shard while it was up
            assertThat(s0.get("lastErrorAtMillis").asLong()).isEqualTo(T0.plusSeconds(30).toEpochMilli());
            assertThat(s0.get("halted").isNull()).isTrue();
        }
    }

    /** The auditor's HTTPS routes, trusting exactly its certificate. */
    private record Auditor(String base, HttpClient http) {
        Auditor(ConfigurableApplicationContext ctx) {
            this("https://127.0.0.1:" + ((WebServerApplicationContext) ctx).getWebServer().getPort(),
                    HttpClient.newBuilder().sslContext(PinnedTrustManager.sslContext(ctx.getEnvironment()
                            .getProperty("glassledger.auditor.tls-fingerprint"))).build());
        }

        HttpResponse<String> get(String path) throws Exception {
            return http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
        }

        JsonNode status() throws Exception {
            HttpResponse<String> r = get("/v1/status");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            return JSON.readTree(r.body());
        }
    }
}
