package io.glassledger.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.function.UnaryOperator;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * A server that lies: an HTTPS man in the middle holding the real server's TLS key (as a compromised operator
 * would), forwarding every request to an upstream shard and rewriting chosen responses. Tests point the SDK at it
 * and check that every lie is caught. {@link #upstream} can be switched to another server (a fork).
 */
final class LyingProxy implements AutoCloseable {
    /** Rewrites the response body of a request path; null leaves it alone. */
    interface Lie {
        String rewrite(String path, String requestBody, String responseBody);
    }

    /**
     * Sees a request before it is forwarded: answers it itself (a JSON body for a 200, not forwarded), or returns
     * null to forward it. May block, to hold a request until a test lets it go.
     */
    interface Intercept {
        String answer(String path, String requestBody) throws Exception;
    }

    /** Rewrites a request body before it is forwarded; null leaves it alone. */
    interface RequestLie {
        String rewrite(String path, String requestBody);
    }

    /**
     * Sees a request after the upstream answered it: returns an HTTP status to answer instead (with a plain-text
     * body, as a failing proxy would), or 0 to pass the upstream's answer on.
     */
    interface FailAfter {
        int status(String path);
    }

    private final HttpsServer server;
    private final HttpClient http;
    volatile String upstream;
    volatile Lie lie = (p, req, resp) -> null;
    volatile Intercept intercept = (p, req) -> null;
    volatile RequestLie requestLie = (p, req) -> null;
    volatile FailAfter failAfter = p -> 0;
    /** As {@link #failAfter}, but the request is not forwarded: the upstream never sees it. */
    volatile FailAfter failBefore = p -> 0;

    LyingProxy(Path tlsDir, String upstream) throws Exception {
        this.upstream = upstream;
        KeyStore ks = KeyStore.getInstance("PKCS12");
        char[] pw = Files.readString(tlsDir.resolve("server.p12.password")).trim().toCharArray();
        try (InputStream in = Files.newInputStream(tlsDir.resolve("server.p12"))) {
            ks.load(in, pw);
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, pw);
        SSLContext serverSsl = SSLContext.getInstance("TLS");
        serverSsl.init(kmf.getKeyManagers(), null, null);
        server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        server.setHttpsConfigurator(new HttpsConfigurator(serverSsl));
        server.setExecutor(Executors.newFixedThreadPool(8));
        server.createContext("/", this::forward);
        SSLContext clientSsl = SSLContext.getInstance("TLS");
        clientSsl.init(null, new TrustManager[] {new TrustAll()}, null);
        http = HttpClient.newBuilder().sslContext(clientSsl).version(HttpClient.Version.HTTP_1_1).build();
        server.start();
    }

    String url() {
        return "https://127.0.0.1:" + server.getAddress().getPort();
    }

    void lie(Lie l) {
        this.lie = l;
    }

    void tellTheTruth() {
        this.lie = (p, req, resp) -> null;
        this.intercept = (p, req) -> null;
        this.requestLie = (p, req) -> null;
        this.failAfter = p -> 0;
        this.failBefore = p -> 0;
    }

    /** GET {@code path} from the upstream server with {@code apiKey}, as the operator can. */
    String upstreamGet(String path, String apiKey) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(upstream + path)).header("Authorization", "Bearer "
                + apiKey).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private void forward(HttpExchange ex) throws IOException {
        try (ex) {
            String path = ex.getRequestURI().toString();
            byte[] body = ex.getRequestBody().readAllBytes();
            String reqText = new String(body, java.nio.charset.StandardCharsets.UTF_8);
            String own;
            try {
                own = intercept.answer(ex.getRequestURI().getPath(), reqText);
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException(e);
            }
            if (own != null) {
                byte[] bytes = own.getBytes(java.nio.charset.StandardCharsets.UTF_8);
                ex.getResponseHeaders().set("Content-Type", "application/json");
                ex.sendResponseHeaders(200, bytes.length);
                ex.getResponseBody().write(bytes);
                return;
            }
            if (fail(ex, failBefore.status(ex.getRequestURI().getPath()))) {
                return;
            }
            String rewritten = requestLie.rewrite(ex.getRequestURI().getPath(), reqText);
            if (rewritten != null) {
                body = rewritten.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            }
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(upstream + path))
                    .method(ex.getRequestMethod(), body.length == 0 ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofByteArray(body));
            for (String h : List.of("Authorization", "Content-Type", "Accept")) {
                String v = ex.getRequestHeaders().getFirst(h);
                if (v != null) {
                    b.header(h, v);
                }
            }
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            if (fail(ex, failAfter.status(ex.getRequestURI().getPath()))) {
                return;
            }
            String out = r.body();
            String changed = r.statusCode() == 200 ? lie.rewrite(ex.getRequestURI().getPath(),
                    new String(body, java.nio.charset.StandardCharsets.UTF_8), out) : null;
            if (changed != null) {
                out = changed;
            }
            byte[] bytes = out.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            r.headers().firstValue("Content-Type").ifPresent(v -> ex.getResponseHeaders().set("Content-Type", v));
            ex.sendResponseHeaders(r.statusCode(), bytes.length == 0 ? -1 : bytes.length);
            if (bytes.length > 0) {
                ex.getResponseBody().write(bytes);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean fail(HttpExchange ex, int status) throws IOException {
        if (status == 0) {
            return false;
        }
        byte[] bytes = "proxy error".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "text/plain");
        ex.sendResponseHeaders(status, bytes.length);
        ex.getResponseBody().write(bytes);
        return true;
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }

    private static final class TrustAll implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] c, String a) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] c, String a) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
