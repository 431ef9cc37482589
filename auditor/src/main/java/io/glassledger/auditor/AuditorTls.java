package io.glassledger.auditor;

import io.glassledger.api.SelfSignedCertificate;
import java.nio.file.Path;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Always HTTPS, like the servers: a client's or a peer's conversation with an auditor decides whether a fork is
 * reported, so whoever runs the network (possibly the ledger's operator) must not be able to answer in the auditor's
 * name. With a PEM certificate ({@code server.ssl.certificate}, e.g. a mounted Kubernetes TLS secret) serves it and
 * sets {@code glassledger.auditor.tls-fingerprint} to its SHA-256; unless that, a key store or an SSL bundle is
 * configured, serves the self-signed certificate in
 * {@code <glassledger.auditor.data-dir>/tls}, made at first start; clients and peers pin its fingerprint.
 */
public class AuditorTls implements EnvironmentPostProcessor {
    @Override
    public void postProcessEnvironment(ConfigurableEnvironment env, SpringApplication app) {
        String pem = env.getProperty("server.ssl.certificate", "");
        if (!pem.isBlank()) {
            env.getPropertySources().addFirst(new MapPropertySource("glassledgerAuditorTls", java.util.Map.of(
                    "glassledger.auditor.tls-fingerprint", SelfSignedCertificate.pemFingerprint(pem.trim()))));
            return;
        }
        if (env.containsProperty("server.ssl.key-store") || env.containsProperty("server.ssl.bundle")) {
            return;
        }
        Path dir = Path.of(env.getProperty("glassledger.auditor.data-dir", "auditor-data")).resolve("tls");
        env.getPropertySources().addFirst(new MapPropertySource("glassledgerAuditorTls",
                SelfSignedCertificate.serverSsl(dir, "glassledger.auditor.tls-fingerprint")));
    }
}
