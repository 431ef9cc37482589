package io.glassledger.api;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Accepts exactly one server certificate: the one whose DER encoding has the pinned SHA-256. The server's certificate
 * is self-signed, so there is no chain to check and the host name does not matter (the pin names the certificate
 * exactly); being an {@link X509ExtendedTrustManager}, JSSE leaves endpoint identification to it, and it does none.
 * The certificate's validity dates are checked, so an expired pinned certificate fails. Accepts no client certificates.
 */
public final class PinnedTrustManager extends X509ExtendedTrustManager {
    private final byte[] pin;

    public PinnedTrustManager(String sha256Hex) {
        this.pin = HexFormat.of().parseHex(normalizeFingerprint(sha256Hex));
    }

    /** Lowercase hex without colons; refuses anything but 64 hex digits. */
    public static String normalizeFingerprint(String fp) {
        String hex = fp.replace(":", "").trim().toLowerCase(java.util.Locale.ROOT);
        if (hex.length() != 64) {
            throw new IllegalArgumentException("a SHA-256 fingerprint is 64 hex digits, got " + hex.length());
        }
        HexFormat.of().parseHex(hex);
        return hex;
    }

    public static SSLContext sslContext(String sha256Hex) {
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, new TrustManager[] {new PinnedTrustManager(sha256Hex)}, null);
            return ctx;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot set up TLS", e);
        }
    }

    /** The lowercase hex SHA-256 of a certificate's DER encoding: what the server prints and the client pins. */
    public static String fingerprint(X509Certificate cert) throws CertificateException {
        return HexFormat.of().formatHex(sha256(cert.getEncoded()));
    }

    /**
     * The fingerprint of the first certificate in a PEM file (a server's certificate, e.g. a Kubernetes TLS secret's
     * {@code tls.crt}, whose first certificate is the server's own and any after it its issuers').
     *
     * @throws CertificateException the file holds no certificate
     */
    public static String fingerprint(java.nio.file.Path pemFile) throws CertificateException, java.io.IOException {
        try (java.io.InputStream in = new java.io.BufferedInputStream(java.nio.file.Files.newInputStream(pemFile))) {
            java.security.cert.Certificate c = java.security.cert.CertificateFactory.getInstance("X.509")
                    .generateCertificate(in);
            if (!(c instanceof X509Certificate x)) {
                throw new CertificateException(pemFile + " holds no X.509 certificate");
            }
            return fingerprint(x);
        }
    }

    private void check(X509Certificate[] chain) throws CertificateException {
        if (chain == null || chain.length == 0) {
            throw new CertificateException("the server sent no certificate");
        }
        byte[] actual = sha256(chain[0].getEncoded());
        if (!MessageDigest.isEqual(actual, pin)) {
            throw new CertificateException("server certificate SHA-256 " + HexFormat.of().formatHex(actual)
                    + " is not the pinned " + HexFormat.of().formatHex(pin));
        }
        chain[0].checkValidity();
    }

    private static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        check(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        check(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        check(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("client certificates are not accepted");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        throw new CertificateException("client certificates are not accepted");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        throw new CertificateException("client certificates are not accepted");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
    }
}
