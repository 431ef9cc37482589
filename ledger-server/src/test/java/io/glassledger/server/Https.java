package io.glassledger.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.HexFormat;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/** Raw HTTPS for tests that must send what no SDK would: the server's certificate is pinned by its fingerprint. */
final class Https {
    record Response(int status, JsonNode body, String contentType, String text, String retryAfter) {
    }

    private final HttpClient http;
    private final String base;
    private final ObjectMapper json = new ObjectMapper();

    Https(String base, String fingerprint) throws Exception {
        this.base = base;
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, new TrustManager[] {new Pinned(fingerprint)}, null);
        this.http = HttpClient.newBuilder().sslContext(ssl).connectTimeout(Duration.ofSeconds(10)).build();
    }

    Response get(String path, String apiKey) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET(), apiKey);
    }

    /** A GET with one extra request header. */
    Response get(String path, String apiKey, String header, String value) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(base + path)).header(header, value).GET(), apiKey);
    }

    Response post(String path, String apiKey, String body) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)), apiKey);
    }

    /** A POST with the given Content-Type. */
    Response post(String path, String apiKey, String contentType, String body) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body)), apiKey);
    }

    Response post(String path, String apiKey, Object body) throws Exception {
        return post(path, apiKey, json.writeValueAsString(body));
    }

    private Response send(HttpRequest.Builder b, String apiKey) throws Exception {
        if (apiKey != null) {
            b.header("Authorization", "Bearer " + apiKey);
        }
        HttpResponse<String> r = http.send(b.timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
        String type = r.headers().firstValue("Content-Type").orElse("");
        JsonNode body = r.body().isEmpty() || !type.contains("json") ? null : json.readTree(r.body());
        return new Response(r.statusCode(), body, type, r.body(), r.headers().firstValue("Retry-After").orElse(null));
    }

    private record Pinned(String fingerprint) implements X509TrustManager {
        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType)
                throws java.security.cert.CertificateException {
            try {
                String fp = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(chain[0].getEncoded()));
                if (!fp.equals(fingerprint)) {
                    throw new java.security.cert.CertificateException("certificate " + fp + " is not the pinned one");
                }
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new java.security.cert.CertificateException(e);
            }
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
            throw new UnsupportedOperationException();
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
