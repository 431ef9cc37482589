package io.glassledger.auditor;

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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.function.BiFunction;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * A shard operator who lies to auditors: an HTTPS man in the middle holding the shard's TLS key, forwarding to the
 * real shard and rewriting chosen responses ({@link #rewrite}: path and body in, new body or null out).
 */
final class TamperingProxy implements AutoCloseable {
    private final HttpsServer server;
    private final HttpClient http;
    volatile String upstream;
    volatile BiFunction<String, String, String> rewrite = (path, body) -> null;

    TamperingProxy(Path tlsDir, String upstream) throws Exception {
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
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.createContext("/", this::forward);
        SSLContext clientSsl = SSLContext.getInstance("TLS");
        clientSsl.init(null, new TrustManager[] {new X509TrustManager() {
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
        }}, null);
        http = HttpClient.newBuilder().sslContext(clientSsl).version(HttpClient.Version.HTTP_1_1).build();
        server.start();
    }

    String url() {
        return "https://127.0.0.1:" + server.getAddress().getPort();
    }

    private void forward(HttpExchange ex) throws IOException {
        try (ex) {
            byte[] body = ex.getRequestBody().readAllBytes();
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(upstream + ex.getRequestURI()))
                    .method(ex.getRequestMethod(), body.length == 0 ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofByteArray(body));
            for (String h : List.of("Authorization", "Content-Type", "Accept")) {
                String v = ex.getRequestHeaders().getFirst(h);
                if (v != null) {
                    b.header(h, v);
                }
            }
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            String out = r.body();
            String changed = r.statusCode() == 200 ? rewrite.apply(ex.getRequestURI().getPath(), out) : null;
            byte[] bytes = (changed != null ? changed : out).getBytes(StandardCharsets.UTF_8);
            r.headers().firstValue("Content-Type").ifPresent(v -> ex.getResponseHeaders().set("Content-Type", v));
            ex.sendResponseHeaders(r.statusCode(), bytes.length == 0 ? -1 : bytes.length);
            if (bytes.length > 0) {
                ex.getResponseBody().write(bytes);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
