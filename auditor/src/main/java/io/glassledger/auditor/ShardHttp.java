package io.glassledger.auditor;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.glassledger.api.PinnedTrustManager;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** GETs (and read-only POSTs) from one shard over HTTPS pinned to the cluster's certificate, with the auditor's API key. */
final class ShardHttp {
    /** The shard answered with an error status. */
    static final class Refused extends IOException {
        final int status;

        Refused(int status, String detail) {
            super(detail);
            this.status = status;
        }
    }

    private final URI base;
    private final String apiKey;
    private final HttpClient http;
    private final ObjectMapper json;

    ShardHttp(URI base, String pin, String apiKey, ObjectMapper json) {
        this.base = URI.create(base.toString().replaceAll("/+$", ""));
        this.apiKey = apiKey;
        this.json = json;
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
                .version(HttpClient.Version.HTTP_1_1);
        if (pin != null && !pin.isBlank()) {
            b.sslContext(PinnedTrustManager.sslContext(pin));
        }
        this.http = b.build();
    }

    URI base() {
        return base;
    }

    <T> T get(String path, Class<T> type) throws IOException, InterruptedException {
        return json.readValue(fetch(path), type);
    }

    <T> T get(String path, com.fasterxml.jackson.core.type.TypeReference<T> type) throws IOException,
            InterruptedException {
        return json.readValue(fetch(path), type);
    }

    /** A POST of a route that only reads (a proof), as the auditor role may. */
    <T> T post(String path, Object body, Class<T> type) throws IOException, InterruptedException {
        return json.readValue(send(path, HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(body))), type);
    }

    private byte[] fetch(String path) throws IOException, InterruptedException {
        return send(path, null);
    }

    private byte[] send(String path, HttpRequest.BodyPublisher body) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + apiKey).header("Accept", "application/json");
        HttpRequest req = body == null ? b.GET().build()
                : b.header("Content-Type", "application/json").POST(body).build();
        HttpResponse<byte[]> resp = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
        if (resp.statusCode() != 200) {
            throw new Refused(resp.statusCode(), req.method() + " " + path + " answered HTTP " + resp.statusCode()
                    + ": " + new String(resp.body(), StandardCharsets.UTF_8));
        }
        return resp.body();
    }
}
