package io.glassledger.auditor;

import io.glassledger.api.SelfSignedCertificate;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Always HTTPS, like the servers: a client's or a peer's conversation with an auditor decides whether a fork is
 * reported, so whoever runs the network (possibly the ledger's operator) must not be able to answer in the auditor's
 * name. Unless a key store or SSL bundle is configured, serves the self-signed certificate in
 * {@code <glassledger.auditor.data-dir>/tls}, made at first start; clients and peers pin its fingerprint.
 */
public class AuditorTls implements EnvironmentPostProcessor {
    @Override
    public void postProcessEnvironment(ConfigurableEnvironment env, SpringApplication app) {
        if (env.containsProperty("server.ssl.key-store") || env.containsProperty("server.ssl.bundle")) {
            return;
        }
        Path dir = Path.of(env.getProperty("glassledger.auditor.data-dir", "auditor-data")).resolve("tls");
        SelfSignedCertificate.Keystore ks;
        try {
            ks = SelfSignedCertificate.loadOrCreate(dir);
        } catch (Exception e) {
            throw new IllegalStateException("cannot create or read the TLS key store in " + dir + ": " + e, e);
        }
        Map<String, Object> p = new HashMap<>(SelfSignedCertificate.serverSsl(ks));
        p.put("glassledger.auditor.tls-fingerprint", ks.fingerprint());
        env.getPropertySources().addFirst(new MapPropertySource("glassledgerAuditorTls", p));
    }
}
