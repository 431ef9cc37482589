package io.glassledger.auditor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.glassledger.api.PinnedTrustManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Only the auditor's declared routes answer, and only in their canonical spelling (docs/API.md, "Auditor" and
 * "Errors"). The auditor audits a shard that does not exist: routing needs none.
 */
class AuditorRoutesTest {
    @TempDir
    static Path dir;
    static ConfigurableApplicationContext ctx;
    static HttpClient http;
    static String base;
    static final ObjectMapper JSON = new ObjectMapper();

    record Route(String method, String path) {
    }

    static final List<Route> ROUTES = List.of(new Route("GET", "/v1/status"), new Route("POST", "/v1/audit"),
            new Route("POST", "/v1/gossip"), new Route("GET", "/actuator/prometheus"),
            new Route("GET", "/actuator/health/liveness"), new Route("GET", "/"));

    @BeforeAll
    static void start() {
        ctx = SpringApplication.run(AuditorApplication.class, "--server.port=0", "--server.address=127.0.0.1",
                "--glassledger.auditor.data-dir=" + dir.resolve("auditor"),
                "--glassledger.auditor.shards=https://127.0.0.1:9", "--glassledger.auditor.pin=" + "00".repeat(32),
                "--glassledger.auditor.api-key=unused", "--glassledger.auditor.poll-interval=1h",
                "--logging.level.root=WARN", "--logging.file.name=" + dir.resolve("auditor.log"));
        int port = ((WebServerApplicationContext) ctx).getWebServer().getPort();
        base = "https://127.0.0.1:" + port;
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .sslContext(PinnedTrustManager.sslContext(ctx.getEnvironment()
                        .getProperty("glassledger.auditor.tls-fingerprint")))
                .connectTimeout(Duration.ofSeconds(10)).build();
    }

    @AfterAll
    static void stop() {
        if (ctx != null) {
            ctx.close();
        }
    }

    static HttpResponse<String> send(String method, String rawPath) throws Exception {
        // URI keeps the raw path as given (escapes, ';', '//', dot segments); the JDK client sends getRawPath().
        HttpRequest.Builder b = HttpRequest.newBuilder(new URI(base + rawPath)).timeout(Duration.ofSeconds(30));
        b = method.equals("POST") ? b.header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{}")) : b.GET();
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * Found by schemathesis: a JSON body sent as {@code multipart/form-data} (no boundary) left {@code POST
     * /v1/audit} unanswered for 120 s. Any body that is not JSON is refused 415 at once, before it is read.
     */
    @Test
    void aBodyThatIsNotJson_isRefused415AtOnce() throws Exception {
        for (String type : List.of("multipart/form-data", "multipart/form-data; boundary=x", "text/plain",
                "application/x-www-form-urlencoded", "not a media type")) {
            for (String path : List.of("/v1/audit", "/v1/gossip")) {
                HttpRequest req = HttpRequest.newBuilder(new URI(base + path)).timeout(Duration.ofSeconds(10))
                        .header("Content-Type", type).POST(HttpRequest.BodyPublishers.ofString("{\"shard\": 0, "
                                + "\"block\": 0, \"hash\": \"" + "0".repeat(64) + "\", \"signedHead\": null}"))
                        .build();
                HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).as(type + " " + path + ": " + r.body()).isEqualTo(415);
                assertThat(code(r)).as(type + " " + path).isEqualTo("unsupported_media_type");
            }
        }
    }

    static String code(HttpResponse<String> r) throws Exception {
        return r.headers().firstValue("Content-Type").orElse("").contains("json") && !r.body().isEmpty()
                && JSON.readTree(r.body()).has("code") ? JSON.readTree(r.body()).get("code").asText() : null;
    }

    @Test
    void declaredRoutes_answerInTheirCanonicalSpelling() throws Exception {
        assertThat(send("GET", "/v1/status").statusCode()).isEqualTo(200);
        HttpResponse<String> page = send("GET", "/");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
        assertThat(send("GET", "/actuator/health/liveness").statusCode()).isEqualTo(200);
        assertThat(send("GET", "/actuator/prometheus").body()).contains("# HELP");
        HttpResponse<String> audit = send("POST", "/v1/audit");
        assertThat(audit.statusCode()).as(audit.body()).isEqualTo(400);
        assertThat(code(audit)).isEqualTo("malformed");
        HttpResponse<String> gossip = send("POST", "/v1/gossip");
        assertThat(gossip.statusCode()).as(gossip.body()).isNotEqualTo(404);
        assertThat(code(gossip)).isNotEqualTo("non_canonical_path");
    }

    @Test
    void otherSpellingsOfEveryRoute_areRefusedBeforeRouting() throws Exception {
        List<String> failures = new ArrayList<>();
        int requests = 0;
        for (Route route : ROUTES) {
            for (String[] s : spellings(route.path())) {
                HttpResponse<String> r = send(route.method(), s[1]);
                requests++;
                boolean refused = s[0].equals("case") ? r.statusCode() == 404 || r.statusCode() == 405
                        : r.statusCode() == 400 && "non_canonical_path".equals(code(r));
                if (!refused || r.body().contains("# HELP") || r.body().contains("<html")) {
                    failures.add(route.method() + " " + s[1] + " (" + s[0] + "): " + r.statusCode() + " " + code(r));
                }
            }
        }
        System.out.println("AuditorRoutesTest: " + requests + " spellings tried");
        assertThat(failures).isEmpty();
    }

    @Test
    void undeclaredRoutes_are404() throws Exception {
        for (String p : List.of("/actuator", "/actuator/env", "/actuator/beans", "/index.html", "/v1/nothing",
                "/v3/nothing")) {
            HttpResponse<String> r = send("GET", p);
            assertThat(r.statusCode()).as(p + ": " + r.body()).isEqualTo(404);
            assertThat(code(r)).as(p).isEqualTo("not_found");
        }
        assertThat(send("GET", "/v1/audit").statusCode()).isEqualTo(405);
        assertThat(send("GET", "/v3/api-docs").statusCode()).as("the OpenAPI document is public").isEqualTo(200);
    }

    /** {kind, path}: an escaped letter and {@code ;x=1} on each segment, case changes, {@code //}, dot segments. */
    static List<String[]> spellings(String path) {
        List<String[]> out = new ArrayList<>();
        if (path.equals("/")) {
            for (String s : List.of("//", "/./", "/%2F", "/;x=1", "/%2e/")) {
                out.add(new String[] {"other", s});
            }
            return out;
        }
        String[] seg = path.substring(1).split("/");
        for (int i = 0; i < seg.length; i++) {
            String s = seg[i];
            int letter = 0;
            while (!Character.isLetter(s.charAt(letter))) {
                letter++;
            }
            String escaped = s.substring(0, letter) + String.format("%%%02x", (int) s.charAt(letter))
                    + s.substring(letter + 1);
            out.add(new String[] {"percent", with(seg, i, escaped)});
            out.add(new String[] {"matrix", with(seg, i, s + ";x=1")});
            out.add(new String[] {"case", with(seg, i, s.toUpperCase(Locale.ROOT))});
            out.add(new String[] {"slash", with(seg, i, "/" + s)});
            out.add(new String[] {"dot", with(seg, i, "./" + s)});
            out.add(new String[] {"dot", with(seg, i, "x/../" + s)});
        }
        out.add(new String[] {"trailing", path + "/"});
        return out;
    }

    private static String with(String[] seg, int i, String replacement) {
        StringBuilder b = new StringBuilder();
        for (int k = 0; k < seg.length; k++) {
            b.append('/').append(k == i ? replacement : seg[k]);
        }
        return b.toString();
    }
}
