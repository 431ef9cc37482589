package io.glassledger.auditor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.Locale;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A kept-alive connection to the auditor keeps being read after a request that was queued behind a slower one and
 * then refused before its body was read (schemathesis's coverage phase once left a POST /v1/audit unanswered for
 * 120 s; {@link KeepAliveReads}). Both requests go in one write, so one TLS record: the second is decoded while the
 * first waits on another thread, every time.
 */
class KeepAliveReadTest {
    static final int BOUND_MILLIS = 10_000;

    @TempDir
    Path dir;

    @Test
    void nextRequest_isAnswered_afterARefusedBodyWasQueuedBehindASlowerRequest() throws Exception {
        try (ConfigurableApplicationContext ctx = SpringApplication.run(AuditorApplication.class, "--server.port=0",
                "--server.address=127.0.0.1", "--glassledger.auditor.data-dir=" + dir.resolve("auditor"),
                "--glassledger.auditor.shards=https://127.0.0.1:9", "--glassledger.auditor.pin=" + "00".repeat(32),
                "--glassledger.auditor.api-key=unused", "--glassledger.auditor.poll-interval=1h",
                "--logging.level.root=WARN", "--logging.file.name=" + dir.resolve("auditor.log"));
             SSLSocket s = tls(((WebServerApplicationContext) ctx).getWebServer().getPort())) {
            s.setSoTimeout(BOUND_MILLIS);
            InputStream in = new BufferedInputStream(s.getInputStream());
            OutputStream out = s.getOutputStream();
            String host = "Host: 127.0.0.1\r\n";
            String audit = "{\"shard\": 0, \"block\": 0, \"hash\": \"" + "0".repeat(64) + "\"}";
            // 1: answered on another thread (boundedElastic); 2: refused 415 by RouteFilter, its body still queued.
            String first = "POST /v1/audit HTTP/1.1\r\n" + host + "Content-Type: application/json\r\nContent-Length: "
                    + audit.length() + "\r\n\r\n" + audit;
            String refused = "POST /v1/audit HTTP/1.1\r\n" + host + "Content-Type: text/plain\r\nContent-Length: "
                    + audit.length() + "\r\n\r\n" + audit;
            for (int round = 0; round < 3; round++) {
                out.write((first + refused).getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
                assertThat(status(in)).as("round %d, first", round).isLessThan(500);
                assertThat(status(in)).as("round %d, refused", round).isEqualTo(415);
                out.write(("GET /v1/status HTTP/1.1\r\n" + host + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
                try {
                    assertThat(status(in)).as("round %d, next", round).isEqualTo(200);
                } catch (SocketTimeoutException e) {
                    throw new AssertionError("round " + round + ": the next request on the connection was not "
                            + "answered within " + BOUND_MILLIS + " ms", e);
                }
            }
        }
    }

    /** Reads one response (Content-Length or chunked body) and returns its status. */
    static int status(InputStream in) throws IOException {
        String status = line(in);
        if (status == null) {
            throw new IOException("connection closed before a response");
        }
        long length = 0;
        boolean chunked = false;
        for (String h = line(in); h != null && !h.isEmpty(); h = line(in)) {
            String name = h.substring(0, h.indexOf(':')).trim().toLowerCase(Locale.ROOT);
            String value = h.substring(h.indexOf(':') + 1).trim();
            if (name.equals("content-length")) {
                length = Long.parseLong(value);
            } else if (name.equals("transfer-encoding")) {
                chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
            }
        }
        if (chunked) {
            for (long n = Long.parseLong(line(in).split(";")[0].trim(), 16); n > 0;
                 n = Long.parseLong(line(in).split(";")[0].trim(), 16)) {
                in.readNBytes((int) n);
                line(in);
            }
            line(in);
        } else {
            in.readNBytes((int) length);
        }
        return Integer.parseInt(status.split(" ")[1]);
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
            }
            if (c != '\r') {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }

    /** TLS without checking the certificate: this test is about the connection, not trust. */
    static SSLSocket tls(int port) throws Exception {
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, new TrustManager[] {new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        }}, null);
        SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", port);
        s.setTcpNoDelay(true);
        s.startHandshake();
        return s;
    }
}
