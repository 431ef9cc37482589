package io.glassledger.client;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.IdentityCipherSuiteFilter;
import io.netty.handler.ssl.JdkSslContext;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;

/**
 * JSON over HTTPS to one server: bearer authentication, a timeout per request, and the one place that turns an HTTP
 * failure into a {@link GlassLedgerException} (an RFC 9457 problem's {@code code}, status, {@code retryable} and
 * {@code Retry-After}; no answer at all is the retryable {@code transport}).
 *
 * <p>Transport: Reactor Netty's HTTP/1.1 client with pooled keep-alive connections on the SDK's own event loop (two
 * daemon threads shared by every client of the JVM). A response is read on the event loop, capped, and handed to
 * this server's executor, where it is decoded and where everything the caller chains on it runs (verification may
 * block on the trust store's fsync or on a further request, which an event loop must never do). Chosen over the
 * JDK's {@code HttpClient}, whose selector thread, executor hand-offs and per-response thread (its
 * {@code sendAsync}, where the common pool has one thread) cost the client more CPU per request than the
 * verification itself (benchmark/run peers, RESULTS.md).
 */
final class Api {
    /** An RFC 9457 problem body with GlassLedger's extension members. */
    record Problem(String type, String title, Integer status, String detail, String code, Boolean retryable,
                   String leader) {
    }

    /** The code of a response refused for its size (the code the server gives a proof answer it will not build). */
    static final String RESPONSE_TOO_LARGE = "response_too_large";

    /** A body longer than the cap. */
    static final class TooLarge extends IOException {
        TooLarge(String message) {
            super(message);
        }
    }

    /** A response read whole: status, {@code Retry-After} (or null) and body. */
    private record Answer(int status, String retryAfter, byte[] body) {
    }

    /** The event loop: two daemon threads shared by every Api of the JVM, made with the first Api. */
    private static final class Loop {
        static final LoopResources SHARED = LoopResources.create("glassledger-http", 2, true);
    }

    /** Whether an Api was made (and so {@link Loop}), so that {@link #stopEventLoop} never starts what it stops. */
    private static volatile boolean loopMade;

    private final HttpClient http;
    private final ConnectionProvider pool;
    private final ExecutorService executor;
    /** The shard's replicas' base URLs (one for a single server); requests go to {@link #current}. */
    private final List<String> bases;
    private volatile int current;
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
        this(List.of(base), apiKey, ssl, timeout, maxResponseBytes);
    }

    /**
     * One shard served by several replicas: requests go to the one that last answered as the leader. A
     * {@code not_leader} answer moves them to the leader it names (or, when none is known yet, to the next replica
     * after a pause), and so does an {@code unavailable} or {@code replica_behind} one; a request that got no answer at all moves on only if
     * sending it twice cannot do anything twice (not a commit or prepare, not an admin change), since the first may
     * have arrived. Bounded by the request timeout and {@link #MAX_FAILOVER_TRIES} attempts.
     */
    Api(List<URI> replicas, String apiKey, SSLContext ssl, Duration timeout, long maxResponseBytes) {
        URI base = replicas.get(0);
        loopMade = true;
        AtomicInteger n = new AtomicInteger();
        this.executor = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "glassledger-http-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.bases = replicas.stream().map(u -> u.toString().replaceAll("/+$", "")).toList();
        // Idle connections are dropped after 50 s, before the server's 60 s idle timeout closes them under a request;
        // no automatic retry: a request that fails is reported (retryable transport), never sent twice by Netty.
        this.pool = ConnectionProvider.builder("glassledger-" + base.getHost() + "-" + base.getPort())
                .maxConnections(256).pendingAcquireMaxCount(-1).maxIdleTime(Duration.ofSeconds(50)).build();
        HttpClient c = HttpClient.create(pool).runOn(Loop.SHARED).keepAlive(true).compress(false)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()))
                .disableRetry(true);
        if ("https".equalsIgnoreCase(base.getScheme())) {
            SSLContext ctx;
            try {
                ctx = ssl != null ? ssl : SSLContext.getDefault();
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("no default TLS context", e);
            }
            JdkSslContext netty = new JdkSslContext(ctx, true, null, IdentityCipherSuiteFilter.INSTANCE,
                    ApplicationProtocolConfig.DISABLED, ClientAuth.NONE, null, false);
            c = c.secure(spec -> spec.sslContext(netty));
        }
        this.http = c;
        this.authorization = apiKey == null ? null : "Bearer " + apiKey;
        this.timeout = timeout;
        this.maxResponseBytes = maxResponseBytes;
    }

    String base() {
        return bases.get(current);
    }

    /** How many replicas serve this shard. */
    int replicas() {
        return bases.size();
    }

    Duration timeout() {
        return timeout;
    }

    /** Attempts of one request across a shard's replicas at most. */
    static final int MAX_FAILOVER_TRIES = 24;

    /** Names this shard map version in every later request, so a server with another map refuses them. */
    void routeWith(long version) {
        mapVersion = Long.toString(version);
    }

    <T> CompletableFuture<T> get(String path, Class<T> type) {
        return send(HttpMethod.GET, path, null, type, timeout);
    }

    <T> CompletableFuture<T> post(String path, Object body, Class<T> type) {
        return post(path, body, type, timeout);
    }

    <T> CompletableFuture<T> post(String path, Object body, Class<T> type, Duration requestTimeout) {
        return send(HttpMethod.POST, path, Json.write(body), type, requestTimeout);
    }

    private <T> CompletableFuture<T> send(HttpMethod method, String path, byte[] body, Class<T> type,
                                          Duration requestTimeout) {
        CompletableFuture<T> out = new CompletableFuture<>();
        attempt(out, method, path, body, type, requestTimeout, System.nanoTime() + requestTimeout.toNanos(), 0);
        return out;
    }

    private <T> void attempt(CompletableFuture<T> out, HttpMethod method, String path, byte[] body, Class<T> type,
                             Duration requestTimeout, long deadline, int tries) {
        int at = current;
        String uri = bases.get(at) + path;
        Mono<Answer> answer;
        try {
            answer = exchange(method, uri, body, requestTimeout);
        } catch (RuntimeException e) {
            out.completeExceptionally(GlassLedgerException.transport(uri + ": " + e, e));
            return;
        }
        boolean mayRetry = bases.size() > 1 && tries + 1 < MAX_FAILOVER_TRIES;
        // One signal reaches the executor: the answer or the failure (a completion after the answer is not one).
        answer.subscribe(a -> handOff(out, () -> {
            long pause = mayRetry ? redirect(a, at) : -1;
            if (pause >= 0 && System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pause) < deadline) {
                retry(out, method, path, body, type, requestTimeout, deadline, tries, pause);
                return;
            }
            out.complete(decode(method, path, a, type));
        }), e -> handOff(out, () -> {
            if (mayRetry && resendable(method, path) && !(e instanceof TooLarge) && System.nanoTime() < deadline) {
                if (current == at) {
                    current = (at + 1) % bases.size();
                }
                retry(out, method, path, body, type, requestTimeout, deadline, tries, tries + 1 >= bases.size()
                        ? backoff(tries) : 0);
                return;
            }
            out.completeExceptionally(failure(method, uri, path, e));
        }));
    }

    private <T> void retry(CompletableFuture<T> out, HttpMethod method, String path, byte[] body, Class<T> type,
                           Duration requestTimeout, long deadline, int tries, long pauseMillis) {
        Runnable again = () -> attempt(out, method, path, body, type, requestTimeout, deadline, tries + 1);
        try {
            if (pauseMillis <= 0) {
                executor.execute(again);
            } else {
                CompletableFuture.delayedExecutor(pauseMillis, TimeUnit.MILLISECONDS, executor).execute(again);
            }
        } catch (RejectedExecutionException e) {
            out.completeExceptionally(GlassLedgerException.transport("the client is closed", e));
        }
    }

    private static long backoff(int tries) {
        return Math.min(1_000, 50L << Math.min(tries, 5));
    }

    /**
     * For an answer from replica {@code at}: the pause before sending the request again at {@link #current} (which
     * this moves), or -1 to take the answer as it is. {@code not_leader} names the leader (go there at once) or no
     * one yet (an election: try the next replica after a pause); {@code unavailable} means this replica does nothing
     * now (it is restarting), and nothing was done; {@code replica_behind}, that this replica has not persisted what
     * the request names yet (another may have).
     */
    private long redirect(Answer a, int at) {
        if (a.status() != 421 && a.status() != 503) {
            return -1;
        }
        Problem p;
        try {
            p = Json.MAPPER.readValue(a.body(), Problem.class);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        if ("not_leader".equals(p.code())) {
            int to = p.leader() == null ? -1 : bases.indexOf(p.leader().replaceAll("/+$", ""));
            if (to >= 0 && to != at) {
                current = to;
                return 0;
            }
        } else if (!"unavailable".equals(p.code()) && !"replica_behind".equals(p.code())) {
            return -1;
        }
        if (current == at) {
            current = (at + 1) % bases.size();
        }
        return backoff(0);
    }

    /**
     * Whether a request that got no answer may be sent again elsewhere: everything but a commit, a prepare and an
     * admin change, which may have taken effect (a commit's outcome is then asked for by its transaction id).
     */
    private static boolean resendable(HttpMethod method, String path) {
        if (method == HttpMethod.GET) {
            return true;
        }
        return !path.startsWith("/v1/tx/commit") && !path.startsWith("/v1/tx/prepare")
                && !path.startsWith("/v1/admin/");
    }

    private Mono<Answer> exchange(HttpMethod method, String uri, byte[] body, Duration requestTimeout) {
        // A java.net.URI, not the string: Reactor Netty 1.2.18 parses "https://127.0.0.1:9/..." (a one-digit
        // port) as the host "127.0.0.1:9" and fails to resolve it.
        String v = mapVersion;
        return http.headers(h -> {
            h.set(HttpHeaderNames.ACCEPT, "application/json, application/problem+json");
            if (authorization != null) {
                h.set(HttpHeaderNames.AUTHORIZATION, authorization);
            }
            if (v != null) {
                h.set(io.glassledger.api.Wire.SHARD_MAP_HEADER, v);
            }
            if (body != null) {
                h.set(HttpHeaderNames.CONTENT_TYPE, "application/json");
                h.setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
            }
        }).responseTimeout(requestTimeout).request(method).uri(URI.create(uri))
                .send((req, outbound) -> body == null ? outbound : outbound.sendByteArray(Mono.just(body)))
                .responseConnection((resp, conn) -> {
                    long declared = resp.responseHeaders().getInt(HttpHeaderNames.CONTENT_LENGTH, -1);
                    if (declared > maxResponseBytes) {
                        return Mono.error(new TooLarge("the response declares " + declared
                                + " bytes, more than the " + maxResponseBytes + " this client reads"));
                    }
                    String retryAfter = resp.responseHeaders().get(HttpHeaderNames.RETRY_AFTER);
                    int status = resp.status().code();
                    return capped(conn.inbound().receive()).map(b -> new Answer(status, retryAfter, b));
                // responseTimeout bounds the wait for the headers; this bounds the whole exchange, body included
                }).next().timeout(requestTimeout.plus(requestTimeout))
                .switchIfEmpty(Mono.error(() -> new IOException("no response")));
    }

    /** Runs {@code task} on this server's executor (never on the event loop); {@code out} fails if it cannot. */
    private void handOff(CompletableFuture<?> out, Runnable task) {
        try {
            executor.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    out.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            out.completeExceptionally(GlassLedgerException.transport("the client is closed", e));
        }
    }

    /** The body's bytes, failing with {@link TooLarge} as soon as they pass the cap. */
    private Mono<byte[]> capped(ByteBufFlux in) {
        return in.reduceWith(ByteArrayOutputStream::new, (buf, bb) -> {
            if ((long) buf.size() + bb.readableBytes() > maxResponseBytes) {
                throw new TooLargeUnchecked(new TooLarge("the response is longer than the " + maxResponseBytes
                        + " bytes this client reads"));
            }
            copy(bb, buf);
            return buf;
        }).map(ByteArrayOutputStream::toByteArray).onErrorMap(TooLargeUnchecked.class, TooLargeUnchecked::getCause)
                .defaultIfEmpty(new byte[0]);
    }

    private static final class TooLargeUnchecked extends RuntimeException {
        TooLargeUnchecked(TooLarge cause) {
            super(cause);
        }
    }

    private static void copy(ByteBuf bb, ByteArrayOutputStream buf) {
        int n = bb.readableBytes();
        if (bb.hasArray()) {
            buf.write(bb.array(), bb.arrayOffset() + bb.readerIndex(), n);
        } else {
            byte[] chunk = new byte[n];
            bb.getBytes(bb.readerIndex(), chunk);
            buf.write(chunk, 0, n);
        }
    }

    /** A failed exchange: a body over the cap is {@code response_too_large}, anything else {@code transport}. */
    private static GlassLedgerException failure(HttpMethod method, String uri, String path, Throwable c) {
        for (Throwable t = c; t != null; t = t.getCause()) {
            if (t instanceof TooLarge) {
                return new GlassLedgerException(RESPONSE_TOO_LARGE, 0, false, method + " " + pathOf(path) + ": "
                        + t.getMessage());
            }
        }
        // The whole URI: a refusal to connect must name the server it tried.
        return GlassLedgerException.transport(method + " " + uri + ": " + c, c);
    }

    private static String pathOf(String path) {
        int q = path.indexOf('?');
        return q < 0 ? path : path.substring(0, q);
    }

    private static <T> T decode(HttpMethod method, String path, Answer a, Class<T> type) {
        if (a.status() / 100 != 2) {
            throw problem(method, path, a);
        }
        if (a.body().length == 0 && (type == Object.class || type == Void.class)) {
            return null;
        }
        try {
            return Json.MAPPER.readValue(a.body(), type);
        } catch (IOException e) {
            throw GlassLedgerException.badResponse(method + " " + pathOf(path) + " answered a body that is not a "
                    + type.getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    private static GlassLedgerException problem(HttpMethod method, String path, Answer a) {
        int status = a.status();
        Problem p = null;
        try {
            p = Json.MAPPER.readValue(a.body(), Problem.class);
        } catch (IOException | RuntimeException e) {
            // not a problem body (a proxy, or a server bug): fall back to the status alone
        }
        Duration retryAfter = a.retryAfter() == null ? null : seconds(a.retryAfter());
        String code = p != null && p.code() != null ? p.code() : "http_" + status;
        boolean retryable = p != null && p.retryable() != null ? p.retryable()
                : status == 429 || status == 502 || status == 503 || status == 504;
        String detail = p != null && p.detail() != null ? p.detail()
                : method + " " + pathOf(path) + " answered HTTP " + status;
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
        pool.dispose();
    }

    /** {@link Transport#shutdown}: stops the shared event loop, waiting up to {@code timeout} for its threads. */
    static void stopEventLoop(Duration timeout) {
        if (!loopMade) {
            return;
        }
        try {
            Loop.SHARED.disposeLater(Duration.ZERO, timeout).block(timeout);
        } catch (RuntimeException e) {
            // not stopped in time: the JVM's exit waits for the threads as it would have
        }
    }
}
