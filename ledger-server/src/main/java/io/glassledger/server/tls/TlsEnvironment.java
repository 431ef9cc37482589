package io.glassledger.server.tls;

import io.glassledger.api.SelfSignedCertificate;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Always HTTPS: unless a key store, an SSL bundle or a PEM certificate ({@code server.ssl.certificate} and
 * {@code server.ssl.certificate-private-key}, e.g. a mounted Kubernetes TLS secret) is configured, points the server
 * at the self-signed certificate in {@code <glassledger.data-dir>/tls}, creating it on first start. With a PEM
 * certificate file, sets {@code glassledger.tls.fingerprint} to its first certificate's SHA-256 (what clients and
 * peers pin; a cluster's members share one certificate). Runs before the web server is built.
 *
 * <p>The management port (health probes and the Prometheus metrics, whose scrape carries an auditor's API key) is
 * served over HTTPS with the same certificate: unless {@code management.server.ssl.*} is configured, every
 * {@code server.ssl.*} setting in force is also the management server's. Spring Boot would otherwise serve it in
 * clear text.
 */
public class TlsEnvironment implements EnvironmentPostProcessor {
    static final String FINGERPRINT = "glassledger.tls.fingerprint";
    /** Spring Boot's {@code Ssl} settings, as both servers take them. */
    static final List<String> SSL_SETTINGS = List.of("enabled", "bundle", "protocol", "enabled-protocols", "ciphers",
            "client-auth", "key-alias", "key-password", "key-store", "key-store-password", "key-store-type",
            "key-store-provider", "trust-store", "trust-store-password", "trust-store-type", "trust-store-provider",
            "certificate", "certificate-private-key", "trust-certificate", "trust-certificate-private-key");

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment env, SpringApplication app) {
        Map<String, Object> props = new HashMap<>();
        String pem = env.getProperty("server.ssl.certificate", "");
        if (!pem.isBlank()) {
            props.put(FINGERPRINT, SelfSignedCertificate.pemFingerprint(pem.trim()));
        } else if (!env.containsProperty("server.ssl.key-store") && !env.containsProperty("server.ssl.bundle")) {
            Path dir = Path.of(env.getProperty("glassledger.data-dir", "data")).resolve("tls");
            props.putAll(SelfSignedCertificate.serverSsl(dir, FINGERPRINT));
        }
        if (!props.isEmpty()) {
            env.getPropertySources().addFirst(new MapPropertySource("glassledgerTls", props));
        }
        if (SSL_SETTINGS.stream().noneMatch(s -> env.containsProperty("management.server.ssl." + s))) {
            Map<String, Object> management = new HashMap<>();
            for (String s : SSL_SETTINGS) {
                String v = env.getProperty("server.ssl." + s);
                if (v == null && (s.equals("enabled-protocols") || s.equals("ciphers"))) {  // a YAML list
                    v = Binder.get(env).bind("server.ssl." + s, Bindable.listOf(String.class))
                            .map(l -> String.join(",", l)).orElse(null);
                }
                if (v != null) {
                    management.put("management.server.ssl." + s, v);
                }
            }
            env.getPropertySources().addFirst(new MapPropertySource("glassledgerManagementTls", management));
        }
    }
}
