package io.glassledger.server.net;

import java.util.HashMap;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Health probes and metrics have a port of their own (docs/API.md "Metrics"), so that connections to the API, however
 * many, never stand between an orchestrator and the liveness probe. Unless configured: {@code management.server.port}
 * is the API's port plus one (8444 beside the default 8443; 0, a free port, when the API's is 0), and
 * {@code management.server.address} the API's {@code server.address} (Spring Boot's own default is every interface).
 * Its TLS is the API's ({@code tls.TlsEnvironment}). Runs after the configuration files are read.
 */
public class ManagementPort implements EnvironmentPostProcessor {
    static final String PORT = "management.server.port";
    static final String ADDRESS = "management.server.address";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment env, SpringApplication app) {
        Map<String, Object> defaults = new HashMap<>();
        if (!env.containsProperty(PORT)) {
            int api = env.getProperty("server.port", Integer.class, 8080);
            if (api >= 65535) {
                throw new IllegalStateException("server.port " + api + " leaves no next port for the management "
                        + "port: set management.server.port");
            }
            defaults.put(PORT, api <= 0 ? api : api + 1);
        }
        String address = env.getProperty("server.address");
        if (!env.containsProperty(ADDRESS) && address != null) {
            defaults.put(ADDRESS, address);
        }
        if (!defaults.isEmpty()) {
            env.getPropertySources().addLast(new MapPropertySource("glassledgerManagementPort", defaults));
        }
    }
}
