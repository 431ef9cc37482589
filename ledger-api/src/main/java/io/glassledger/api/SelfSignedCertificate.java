package io.glassledger.api;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HexFormat;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The TLS identity of a server or an auditor when none is configured: an ECDSA P-256 key and a self-signed
 * certificate for {@code localhost} and {@code 127.0.0.1}, made at first start and kept in {@code <data>/tls/server.p12}
 * (password in {@code server.p12.password}, both created mode 600 and fsynced, {@link PrivateFiles}), so the
 * fingerprint clients pin stays the same across restarts. Needs Bouncy Castle's bcpkix, an optional dependency of ledger-api: the services declare it, the SDK
 * does not need it.
 */
public final class SelfSignedCertificate {
    public static final String ALIAS = "glassledger";

    /** Where the keystore is and the SHA-256 fingerprint of its certificate (hex, what clients pin). */
    public record Keystore(Path path, String password, String fingerprint) {
    }

    private SelfSignedCertificate() {
    }

    public static Keystore loadOrCreate(Path dir) throws IOException, GeneralSecurityException {
        Path ks = dir.resolve("server.p12");
        Path pw = dir.resolve("server.p12.password");
        if (!Files.exists(ks)) {
            Files.createDirectories(dir);
            String password = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
            KeyStore store = create(password);
            var bytes = new java.io.ByteArrayOutputStream();
            store.store(bytes, password.toCharArray());
            // The password first: a crash before the key store leaves no key store, and the next start makes both.
            PrivateFiles.write(pw, password);
            PrivateFiles.write(ks, bytes.toByteArray());
        }
        String password = Files.readString(pw, StandardCharsets.UTF_8).trim();
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(ks)) {
            store.load(in, password.toCharArray());
        }
        X509Certificate cert = (X509Certificate) store.getCertificate(ALIAS);
        return new Keystore(ks, password, fingerprint(cert));
    }

    /**
     * Spring Boot's {@code server.ssl.*} settings that serve HTTPS with the key store in {@code dir} (made if
     * absent), plus {@code fingerprintProperty} set to its certificate's fingerprint, for the startup report.
     *
     * @throws IllegalStateException when the key store cannot be made or read
     */
    public static java.util.Map<String, Object> serverSsl(Path dir, String fingerprintProperty) {
        Keystore ks;
        try {
            ks = loadOrCreate(dir);
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot create or read the TLS key store in " + dir + ": " + e, e);
        }
        return java.util.Map.of("server.ssl.enabled", "true",
                "server.ssl.key-store", ks.path().toAbsolutePath().toString(),
                "server.ssl.key-store-type", "PKCS12",
                "server.ssl.key-store-password", ks.password(),
                "server.ssl.key-alias", ALIAS,
                fingerprintProperty, ks.fingerprint());
    }

    /**
     * The pin of a configured PEM certificate ({@code server.ssl.certificate}: a file path, with or without
     * {@code file:}): the SHA-256 of its first certificate.
     */
    public static String pemFingerprint(String location) {
        if (location.startsWith("classpath:")) {
            throw new IllegalStateException("a certificate to pin must be a file (its SHA-256 is the pin clients "
                    + "and peers check), not " + location);
        }
        Path file = Path.of(location.startsWith("file:") ? location.substring("file:".length()) : location);
        try {
            return PinnedTrustManager.fingerprint(file);
        } catch (java.io.IOException | java.security.cert.CertificateException e) {
            throw new IllegalStateException("cannot read a PEM certificate from " + file + ": "
                    + e.getMessage(), e);
        }
    }

    public static String fingerprint(X509Certificate cert) throws GeneralSecurityException {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(cert.getEncoded()));
    }

    private static KeyStore create(String password) throws GeneralSecurityException, IOException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        KeyPair kp = g.generateKeyPair();
        X500Name name = new X500Name("CN=GlassLedger self-signed");
        Instant now = Instant.now();
        var builder = new JcaX509v3CertificateBuilder(name, new BigInteger(64, new SecureRandom()),
                Date.from(now.minus(Duration.ofDays(1))), Date.from(now.plus(Duration.ofDays(3650))), name,
                kp.getPublic());
        builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
            new GeneralName(GeneralName.dNSName, "localhost"),
            new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
        X509Certificate cert;
        try {
            cert = new JcaX509CertificateConverter().getCertificate(builder.build(
                    new JcaContentSignerBuilder("SHA256withECDSA").build(kp.getPrivate())));
        } catch (org.bouncycastle.operator.OperatorCreationException e) {
            throw new GeneralSecurityException(e);
        }
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry(ALIAS, kp.getPrivate(), password.toCharArray(), new X509Certificate[] {cert});
        return store;
    }

    /** Writes a secret file readable by its owner only ({@link PrivateFiles#write(Path, String)}). */
    public static void writePrivate(Path p, String content) throws IOException {
        PrivateFiles.write(p, content);
    }
}
