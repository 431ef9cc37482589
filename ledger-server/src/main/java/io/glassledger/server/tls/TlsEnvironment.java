package io.glassledger.server.tls;

import io.glassledger.api.SelfSignedCertificate;
import java.nio.file.Path;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Always HTTPS: unless a key store, an SSL bundle or a PEM certificate ({@code server.ssl.certificate} and
 * {@code server.ssl.certificate-private-key}, e.g. a mounted Kubernetes TLS secret) is configured, points the server
 * at the self-signed certificate in {@code <glassledger.data-dir>/tls}, creating it on first start. With a PEM
 * certificate file, sets {@code glassledger.tls.fingerprint} to its first certificate's SHA-256 (what clients and
 * peers pin; a cluster's members share one certificate). Runs before the web server is built.
 */
public class TlsEnvironment implements EnvironmentPostProcessor {
    static final String FINGERPRINT = "glassledger.tls.fingerprint";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment env, SpringApplication app) {
        String pem = env.getProperty("server.ssl.certificate", "");
        if (!pem.isBlank()) {
            env.getPropertySources().addFirst(new MapPropertySource("glassledgerTls",
                    java.util.Map.of(FINGERPRINT, SelfSignedCertificate.pemFingerprint(pem.trim()))));
            return;
        }
        if (env.containsProperty("server.ssl.key-store") || env.containsProperty("server.ssl.bundle")) {
            return;
        }
        Path dir = Path.of(env.getProperty("glassledger.data-dir", "data")).resolve("tls");
        env.getPropertySources().addFirst(new MapPropertySource("glassledgerTls",
                SelfSignedCertificate.serverSsl(dir, FINGERPRINT)));
    }
}
