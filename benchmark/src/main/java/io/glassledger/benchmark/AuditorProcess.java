package io.glassledger.benchmark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.glassledger.api.PinnedTrustManager;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real auditor process (the auditor's exec jar) following the benchmark's shards; its status read over HTTPS,
 * pinned to the certificate the auditor reports at start.
 */
final class AuditorProcess implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern PIN = Pattern.compile("auditor TLS certificate SHA-256 \\(pin it\\): ([0-9a-f]{64})");
    private final Process process;
    private final String url;
    private HttpClient http;

    AuditorProcess(Path jar, Path dataDir, List<String> shardUrls, String pin, String apiKey, int port)
            throws IOException, InterruptedException {
        Files.createDirectories(dataDir);
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx1g", "-jar", jar.toString(), "--server.port=" + port, "--glassledger.auditor.data-dir=" + dataDir,
                "--glassledger.auditor.shards=" + String.join(",", shardUrls), "--glassledger.auditor.pin=" + pin,
                "--glassledger.auditor.poll-interval=200ms", "--logging.level.root=WARN",
                "--logging.level.io.glassledger.auditor.AuditorStartupReport=INFO"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(dataDir.resolve("auditor-console.log").toFile());
        pb.environment().put("GLASSLEDGER_AUDITOR_APIKEY", apiKey);
        process = pb.start();
        url = "https://127.0.0.1:" + port;
        Path log = dataDir.resolve("auditor-console.log");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (true) {
            try {
                if (http == null) {
                    Matcher m = PIN.matcher(Files.readString(log));
                    if (!m.find()) {
                        throw new IOException("no pin yet");
                    }
                    http = HttpClient.newBuilder().sslContext(PinnedTrustManager.sslContext(m.group(1))).build();
                }
                status();
                return;
            } catch (IOException e) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    close();
                    throw new IOException("the auditor did not start; see " + dataDir.resolve("auditor-console.log"));
                }
                Thread.sleep(200);
            }
        }
    }

    JsonNode status() throws IOException, InterruptedException {
        HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create(url + "/v1/status")).GET().build(),
                HttpResponse.BodyHandlers.ofByteArray());
        if (r.statusCode() != 200) {
            throw new IOException("status " + r.statusCode());
        }
        return JSON.readTree(r.body());
    }

    /** The largest lag over the shards, in blocks. */
    long maxLag() throws IOException, InterruptedException {
        long m = 0;
        for (JsonNode s : status().get("shards")) {
            m = Math.max(m, s.get("lag").asLong());
        }
        return m;
    }

    long writesVerified() throws IOException, InterruptedException {
        long n = 0;
        for (JsonNode s : status().get("shards")) {
            n += s.get("writesVerified").asLong();
        }
        return n;
    }

    boolean ok() throws IOException, InterruptedException {
        return status().get("ok").asBoolean();
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }
}
