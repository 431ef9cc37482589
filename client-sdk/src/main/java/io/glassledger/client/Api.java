package io.glassledger.client;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;

/**
 * JSON over HTTPS to one server: bearer authentication, a timeout per request, and the one place that turns an HTTP
 * failure into a {@link GlassLedgerException} (an RFC 9457 problem's {@code code}, status, {@code retryable} and
 * {@code Retry-After}; no answer at all is the retryable {@code transport}).
 */
final class Api {
    /** An RFC 9457 problem body with GlassLedger's extension members. */
    record Problem(String type, String title, Integer status, String detail, String code, Boolean retryable) {
    }

    /** The code of a response refused for its size (the same code the server gives a proof answer it will not build). */
    static final String RESPONSE_TOO_LARGE = "response_too_large";

    private final HttpClient http;
    private final ExecutorService executor;
    private final String base;
    private final String authorization;
    private final Duration timeout;
    private final long maxResponseBytes;
    private volatile String mapVersion;

    /**
     * @param apiKey null: no Authorization header (auditors get no API key of ours)
     * @param ssl              null: the JDK's default trust
     * @param maxResponseBytes the largest response body read; a longer one fails with {@code response_too_large}
     */
    Api(URI base, String apiKey, SSLContext ssl, Duration timeout, long maxResponseBytes) {
        AtomicInteger n = new AtomicInteger();
        this.executor = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "glassledger-http-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        // HTTP/1.1 with pooled keep-alive connections: measured about 10% less CPU per transaction than HTTP/2 with
        // the JDK client against Reactor Netty (benchmark/run service, 2026-11-23).
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(timeout).executor(executor)
                .version(HttpClient.Version.HTTP_1_1);
        if (ssl != null) {
            b.sslContext(ssl);
        }
        this.http = b.build();
        this.base = base.toString().replaceAll("/+$", "");
        this.authorization = apiKey == null ? null : "Bearer " + apiKey;
        this.timeout = timeout;
        this.maxResponseBytes = maxResponseBytes;
    }

    String base() {
        return base;
    }

    /** Names this shard map version in every later request, so a server with another map refuses them. */
    void routeWith(long version) {
        mapVersion = Long.toString(version);
    }

    <T> CompletableFuture<T> get(String path, Class<T> type) {
        return send(request(path, timeout).GET().build(), type);
    }

    <T> CompletableFuture<T> post(String path, Object body, Class<T> type) {
        return post(path, body, type, timeout);
    }

    <T> CompletableFuture<T> post(String path, Object body, Class<T> type, Duration requestTimeout) {
        HttpRequest r = request(path, requestTimeout).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(Json.write(body))).build();
        return send(r, type);
    }

    private HttpRequest.Builder request(String path, Duration requestTimeout) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(requestTimeout)
                .header("Accept", "application/json, application/problem+json");
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        String v = mapVersion;
        if (v != null) {
            b.header(io.glassledger.api.Wire.SHARD_MAP_HEADER, v);
        }
        return b;
    }

    /**
     * Sends {@code r} with the blocking {@code HttpClient.send} on this client's executor, not with {@code sendAsync}:
     * the JDK's {@code sendAsync} completes every response through {@code CompletableFuture}'s default executor,
     * which on a machine whose common pool has fewer than 2 threads (2 cores, or a container limited to 2 CPUs)
     * starts a new thread per response; measured on the verified-write path (benchmark/run peers) as 13% of the
     * client's CPU in {@code Thread.start} and the context switches it causes.
     */
    private <T> CompletableFuture<T> send(HttpRequest r, Class<T> type) {
        CompletableFuture<T> out = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                HttpResponse<byte[]> resp;
                try {
                    resp = http.send(r, info -> new CappedBody(maxResponseBytes,
                            info.headers().firstValueAsLong("Content-Length").orElse(-1)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    out.completeExceptionally(GlassLedgerException.transport(r.method() + " " + r.uri()
                            + ": interrupted", e));
                    return;
                } catch (IOException | RuntimeException e) {
                    out.completeExceptionally(failure(r, e));
                    return;
                }
                try {
                    out.complete(decode(r, resp, type));
                } catch (RuntimeException e) {
                    out.completeExceptionally(e);
                }
            });
        } catch (RuntimeException e) {
            out.completeExceptionally(GlassLedgerException.transport(r.uri() + ": " + e, e));
        }
        return out;
    }

    /** A failed exchange: a body over the cap is {@code response_too_large}, anything else {@code transport}. */
    private static GlassLedgerException failure(HttpRequest r, Throwable c) {
        for (Throwable t = c; t != null; t = t.getCause()) {
            if (t instanceof CappedBody.TooLarge) {
                return new GlassLedgerException(RESPONSE_TOO_LARGE, 0, false, r.method() + " "
                        + r.uri().getPath() + ": " + t.getMessage());
            }
        }
        // The whole URI: a refusal to connect must name the server it tried.
        return GlassLedgerException.transport(r.method() + " " + r.uri() + ": " + c, c);
    }

    private static <T> T decode(HttpRequest r, HttpResponse<byte[]> resp, Class<T> type) {
        int status = resp.statusCode();
        if (status / 100 != 2) {
            throw problem(r, resp);
        }
        if (resp.body().length == 0 && (type == Object.class || type == Void.class)) {
            return null;
        }
        try {
            return Json.MAPPER.readValue(resp.body(), type);
        } catch (IOException e) {
            throw GlassLedgerException.badResponse(r.method() + " " + r.uri().getPath()
                    + " answered a body that is not a " + type.getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    private static GlassLedgerException problem(HttpRequest r, HttpResponse<byte[]> resp) {
        int status = resp.statusCode();
        Problem p = null;
        try {
            p = Json.MAPPER.readValue(resp.body(), Problem.class);
        } catch (IOException | RuntimeException e) {
            // not a problem body (a proxy, or a server bug): fall back to the status alone
        }
        Duration retryAfter = resp.headers().firstValue("Retry-After").map(Api::seconds).orElse(null);
        String code = p != null && p.code() != null ? p.code() : "http_" + status;
        boolean retryable = p != null && p.retryable() != null ? p.retryable()
                : status == 429 || status == 502 || status == 503 || status == 504;
        String detail = p != null && p.detail() != null ? p.detail()
                : r.method() + " " + r.uri().getPath() + " answered HTTP " + status;
        return new GlassLedgerException(code, status, retryable, detail, retryAfter, null);
    }

    private static Duration seconds(String v) {
        try {
            return Duration.ofSeconds(Long.parseLong(v.trim()));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    void close() {
        executor.shutdownNow();
    }
}
