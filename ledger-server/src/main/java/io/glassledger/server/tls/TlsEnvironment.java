package io.glassledger.server.tls;

import io.glassledger.api.SelfSignedCertificate;
import java.nio.file.Path;
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
        env.getPropertySources().addFirst(new MapPropertySource("glassledgerTls",
                SelfSignedCertificate.serverSsl(dir, "glassledger.tls.fingerprint")));
    }
}
