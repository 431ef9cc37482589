package io.glassledger.server;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/** Sockets that behave as hostile clients do: idle, slow, or never finishing the TLS handshake. */
final class RawTls {
    private RawTls() {
    }

    /** A TCP connection to the server that sends nothing. */
    static Socket tcp(int port) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        return s;
    }

    /**
     * A TLS connection with the handshake done (HTTP/1.1: no ALPN offered). These tests are about connections, not
     * trust, so the certificate is not checked.
     */
    static SSLSocket tls(int port) throws Exception {
        SSLSocket s = (SSLSocket) trustAll().getSocketFactory().createSocket(tcp(port), "127.0.0.1", port, true);
        s.startHandshake();
        return s;
    }

    private static SSLContext trustAll;

    /** A TLS context that checks no certificate (one for all: making one takes milliseconds). */
    static synchronized SSLContext trustAll() throws Exception {
        if (trustAll != null) {
            return trustAll;
        }
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
        trustAll = ctx;
        return ctx;
    }

    /**
     * Blocks until the server closes the connection and returns how long that took in milliseconds; fails if it is
     * still open after {@code boundMillis}.
     */
    static long awaitClosedByServer(Socket s, int boundMillis) throws IOException {
        long t0 = System.nanoTime();
        s.setSoTimeout(boundMillis);
        InputStream in = s.getInputStream();
        try {
            while (in.read() != -1) {
                // the server may answer (400, 408) before it closes
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the server left the connection open for " + boundMillis + " ms", e);
        } catch (IOException e) {
            // a reset, or TLS noticing the closed socket: closed as well
        }
        return (System.nanoTime() - t0) / 1_000_000;
    }
}
