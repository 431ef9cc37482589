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
import java.util.List;

/**
 * GETs (and read-only POSTs) from one shard over HTTPS pinned to the cluster's certificate, with the auditor's API key.
 * A replicated shard lists its replicas: the auditor reads from one of them and moves to the next when it does not
 * answer, is unavailable, or is not the leader for a route only the leader serves (what it reads, persisted blocks and
 * their signed heads, any replica serves, and verifies the same way: two replicas' different signed heads for one
 * block are a fork like any other). Every answer 200, from any replica, is reported to the shard's
 * {@link ShardContact}: it is what tells a live shard from a dead one.
 */
final class ShardHttp {
    /** The shard answered with an error status. */
    static final class Refused extends IOException {
        final int status;

        Refused(int status, String detail) {
            super(detail);
            this.status = status;
        }
    }

    private final List<URI> replicas;
    private volatile int current;
    private final String apiKey;
    private final HttpClient http;
    private final ObjectMapper json;
    private final Runnable answered;

    /** @param answered run on every answer 200 */
    ShardHttp(List<URI> replicas, String pin, String apiKey, ObjectMapper json, Runnable answered) {
        this.answered = answered;
        this.replicas = replicas.stream().map(u -> URI.create(u.toString().replaceAll("/+$", ""))).toList();
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
        return replicas.get(current);
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
        IOException last = null;
        for (int i = 0; i < replicas.size(); i++) {
            int at = current;
            try {
                return sendTo(replicas.get(at), path, body);
            } catch (Refused r) {
                if (replicas.size() == 1 || (r.status != 421 && r.status != 503)) {
                    throw r;
                }
                last = r;
            } catch (IOException e) {
                if (replicas.size() == 1) {
                    throw e;
                }
                last = e;
            }
            current = (at + 1) % replicas.size();
        }
        throw last;
    }

    private byte[] sendTo(URI base, String path, HttpRequest.BodyPublisher body) throws IOException,
            InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + apiKey).header("Accept", "application/json");
        HttpRequest req = body == null ? b.GET().build()
                : b.header("Content-Type", "application/json").POST(body).build();
        HttpResponse<byte[]> resp = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
        if (resp.statusCode() != 200) {
            throw new Refused(resp.statusCode(), req.method() + " " + path + " answered HTTP " + resp.statusCode()
                    + ": " + new String(resp.body(), StandardCharsets.UTF_8));
        }
        answered.run();
        return resp.body();
    }
}
