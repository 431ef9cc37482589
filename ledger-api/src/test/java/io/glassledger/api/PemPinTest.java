package io.glassledger.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pin of a PEM certificate file (a mounted Kubernetes TLS secret's {@code tls.crt}): the SHA-256 of its first
 * certificate, the server's own, whatever issuers follow it.
 */
class PemPinTest {
    @TempDir
    Path dir;

    private X509Certificate certificate(String name) throws Exception {
        SelfSignedCertificate.Keystore ks = SelfSignedCertificate.loadOrCreate(dir.resolve(name));
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(ks.path())) {
            store.load(in, ks.password().toCharArray());
        }
        return (X509Certificate) store.getCertificate(SelfSignedCertificate.ALIAS);
    }

    private static String pem(X509Certificate c) throws Exception {
        return "-----BEGIN CERTIFICATE-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(c.getEncoded())
                + "\n-----END CERTIFICATE-----\n";
    }

    @Test
    void pemFingerprint_isTheFirstCertificates_withOrWithoutFileScheme() throws Exception {
        X509Certificate leaf = certificate("leaf");
        X509Certificate issuer = certificate("issuer");
        Path file = dir.resolve("tls.crt");
        Files.writeString(file, pem(leaf) + pem(issuer));
        String expected = PinnedTrustManager.fingerprint(leaf);
        assertEquals(expected, SelfSignedCertificate.pemFingerprint(file.toString()));
        assertEquals(expected, SelfSignedCertificate.pemFingerprint("file:" + file));
        assertTrue(!expected.equals(PinnedTrustManager.fingerprint(issuer)));
    }

    @Test
    void pemFingerprint_refusesNoCertificate_aMissingFile_andTheClasspath() throws Exception {
        Path junk = dir.resolve("junk.crt");
        Files.writeString(junk, "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> SelfSignedCertificate.pemFingerprint(junk.toString()));
        assertTrue(e.getMessage().contains(junk.toString()), e.getMessage());
        assertThrows(IllegalStateException.class,
                () -> SelfSignedCertificate.pemFingerprint(dir.resolve("absent.crt").toString()));
        assertThrows(IllegalStateException.class, () -> SelfSignedCertificate.pemFingerprint("classpath:tls.crt"));
    }
}
