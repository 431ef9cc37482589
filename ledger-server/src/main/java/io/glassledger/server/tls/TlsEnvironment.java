package io.glassledger.server.tls;

import io.glassledger.api.SelfSignedCertificate;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Always HTTPS: unless a key store or SSL bundle is configured, points the server at the self-signed certificate in
 * {@code <glassledger.data-dir>/tls}, creating it on first start. Runs before the web server is built.
 */
public class TlsEnvironment implements EnvironmentPostProcessor {
    @Override
    public void postProcessEnvironment(ConfigurableEnvironment env, SpringApplication app) {
        if (env.containsProperty("server.ssl.key-store") || env.containsProperty("server.ssl.bundle")) {
            return;
        }
        Path dir = Path.of(env.getProperty("glassledger.data-dir", "data")).resolve("tls");
        SelfSignedCertificate.Keystore ks;
        try {
            ks = SelfSignedCertificate.loadOrCreate(dir);
        } catch (Exception e) {
            throw new IllegalStateException("cannot create or read the TLS key store in " + dir + ": " + e, e);
        }
        Map<String, Object> p = new HashMap<>(SelfSignedCertificate.serverSsl(ks));
        p.put("glassledger.tls.fingerprint", ks.fingerprint());
        p.put("glassledger.tls.created", Boolean.toString(ks.created()));
        env.getPropertySources().addFirst(new MapPropertySource("glassledgerTls", p));
    }
}
