package io.glassledger.auditor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.web.context.WebServerInitializedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/** Says where the auditor listens and the certificate fingerprint that clients and peer auditors pin. */
@Component
class AuditorStartupReport {
    private static final Logger LOG = LoggerFactory.getLogger(AuditorStartupReport.class);
    private final Environment env;

    AuditorStartupReport(Environment env) {
        this.env = env;
    }

    @EventListener
    void ready(WebServerInitializedEvent e) {
        String url = "https://" + env.getProperty("server.address", "127.0.0.1") + ":" + e.getWebServer().getPort();
        LOG.info("auditor listening on {} (status page at /)", url);
        LOG.info("auditor TLS certificate SHA-256 (pin it): {}",
                env.getProperty("glassledger.auditor.tls-fingerprint", "(configured key store)"));
    }
}
