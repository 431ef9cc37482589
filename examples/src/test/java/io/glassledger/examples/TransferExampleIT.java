package io.glassledger.examples;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.glassledger.api.PinnedTrustManager;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs {@link TransferExample} as a user would: a real server process on a fresh data directory, an identity of
 * the example's own made with the admin key ({@code POST /v1/admin/api-keys}, what {@code ledger-cli admin
 * create-key} sends), then the example's main in its own JVM with the README's environment variables.
 */
class TransferExampleIT {
    private static final Pattern LISTENING = Pattern.compile("listening on (https://[0-9.]+:\\d+)");
    private static final Pattern PIN = Pattern.compile("TLS certificate SHA-256 \\(pin it\\): ([0-9a-f]{64})");
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;
    private static Process server;
    private static String url;
    private static String pin;

    @BeforeAll
    static void startServer() throws Exception {
        Path jar = Path.of(System.getProperty("glassledger.server.jar",
                "../ledger-server/target/ledger-server-0.1.0-SNAPSHOT-exec.jar")).toAbsolutePath().normalize();
        assertTrue(Files.isRegularFile(jar), "the server's exec jar " + jar + " is built by the reactor first");
        Path log = dir.resolve("server.log");
        server = new ProcessBuilder(java(), "-Xmx384m", "-XX:TieredStopAtLevel=1", "-jar", jar.toString(),
                "--server.port=0", "--glassledger.data-dir=" + dir.resolve("data"), "--glassledger.ledger-cache=64MB")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        await().atMost(Duration.ofSeconds(120)).until(() -> {
            if (!server.isAlive()) {
                throw new IllegalStateException("server exited: " + Files.readString(log));
            }
            String text = Files.readString(log);
            Matcher u = LISTENING.matcher(text);
            Matcher p = PIN.matcher(text);
            if (u.find() && p.find()) {
                url = u.group(1);
                pin = p.group(1);
                return true;
            }
            return false;
        });
    }

    @AfterAll
    static void stopServer() throws InterruptedException {
        if (server != null) {
            server.destroy();
            if (!server.waitFor(30, TimeUnit.SECONDS)) {
                server.destroyForcibly().waitFor();
            }
        }
    }

    @Test
    void example_onAFreshLedger_seedsThenTransfers_withItsOwnIdentity() throws Exception {
        String apiKey = createClientKey("example");
        Path work = Files.createDirectories(dir.resolve("work"));

        Run first = runExample(work, apiKey);
        assertEquals(0, first.exit, first.output);
        assertTrue(first.output.contains("alice=90 bob=10 (verified, block "), first.output);
        assertTrue(Files.isRegularFile(work.resolve("example.key")), "the identity's key file is made on first use");
        assertTrue(Files.isRegularFile(work.resolve("example-state.json")), "the trusted state is kept");

        // again: the same identity and key, the trusted state carried over, the balances read and moved on
        Run second = runExample(work, apiKey);
        assertEquals(0, second.exit, second.output);
        assertTrue(second.output.contains("alice=80 bob=20 (verified, block "), second.output);

        // the example registered its key for `example`, and left `default` (the CLI's identity) free
        JsonNode clients = JSON.readTree(get("/v1/clients", adminKey()));
        List<String> ids = new ArrayList<>();
        clients.forEach(c -> ids.add(c.get("clientId").asText()));
        assertTrue(ids.contains("example"), clients.toString());
        assertTrue(!ids.contains("default"), clients.toString());
    }

    private record Run(int exit, String output) {
    }

    private static Run runExample(Path work, String apiKey) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(java(), "-cp", System.getProperty("java.class.path"),
                TransferExample.class.getName()).directory(work.toFile()).redirectErrorStream(true);
        pb.environment().put("GLASSLEDGER_URL", url);
        pb.environment().put("GLASSLEDGER_PIN", pin);
        pb.environment().put("EXAMPLE_API_KEY", apiKey);
        Path out = Files.createTempFile(dir, "example", ".log");
        pb.redirectOutput(out.toFile());
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError("the example did not end within 120 s: " + Files.readString(out));
        }
        return new Run(p.exitValue(), Files.readString(out));
    }

    /** What an operator does for a new identity: asks for a client key with the admin key. */
    private static String createClientKey(String clientId) throws Exception {
        HttpResponse<String> r = http().send(HttpRequest.newBuilder(URI.create(url + "/v1/admin/api-keys"))
                .header("Authorization", "Bearer " + adminKey()).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"clientId\":\"" + clientId + "\",\"role\":\"client\"}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(201, r.statusCode(), r.body());
        return JSON.readTree(r.body()).get("apiKey").asText();
    }

    private static String get(String path, String key) throws Exception {
        HttpResponse<String> r = http().send(HttpRequest.newBuilder(URI.create(url + path))
                .header("Authorization", "Bearer " + key).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return r.body();
    }

    private static String adminKey() throws IOException {
        for (String line : Files.readAllLines(dir.resolve("data").resolve("credentials.txt"), StandardCharsets.UTF_8)) {
            String[] f = line.split("\t");
            if (f.length == 3 && f[0].equals("admin")) {
                return f[2];
            }
        }
        throw new IllegalStateException("no admin key in credentials.txt");
    }

    private static HttpClient http() {
        return HttpClient.newBuilder().sslContext(PinnedTrustManager.sslContext(pin)).build();
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
