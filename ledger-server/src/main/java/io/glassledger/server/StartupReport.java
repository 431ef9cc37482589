package io.glassledger.server;

import io.glassledger.api.PrivateFiles;
import io.glassledger.server.shard.Shard;
import java.io.IOException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.web.context.WebServerInitializedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * Says where the server listens and how to connect: the certificate fingerprint to pin (also written to
 * {@code <data-dir>/pin.txt} when the server made its own certificate) and the credentials file; and where the
 * management port serves health probes and metrics.
 */
@Component
class StartupReport {
    private static final Logger LOG = LoggerFactory.getLogger(StartupReport.class);
    private final Environment env;
    private final LedgerProperties props;
    private final Shard shard;

    StartupReport(Environment env, LedgerProperties props, Shard shard) {
        this.env = env;
        this.props = props;
        this.shard = shard;
    }

    @EventListener
    void ready(WebServerInitializedEvent e) {
        if ("management".equals(e.getApplicationContext().getServerNamespace())) {
            // Not "listening on": launchers and tests take that line for the API's URL.
            LOG.info("health probes and metrics at {}/actuator (the management port)",
                    url(env.getProperty("management.server.address", "127.0.0.1"), e.getWebServer().getPort()));
            return;
        }
        String url = url(env.getProperty("server.address", "127.0.0.1"), e.getWebServer().getPort());
        String pin = env.getProperty("glassledger.tls.fingerprint", "(configured key store)");
        LOG.info("GlassLedger shard {} listening on {}", shard.number(), url);
        LOG.info("TLS certificate SHA-256 (pin it): {}", pin);
        LOG.info("server Ed25519 key (signs ledger heads): {}", shard.serverKey().publicKey().hex());
        java.nio.file.Path creds = props.dataDir().resolve("credentials.txt").toAbsolutePath();
        LOG.info("API keys: {} ; connect with: ./ledger-cli --url {} --pin {} --api-key <key> digest",
                java.nio.file.Files.exists(creds) ? creds : "not on disk (configured, or saved elsewhere)", url, pin);
        if (env.getProperty("glassledger.tls.fingerprint") != null) {
            writePin(props.dataDir().resolve("pin.txt"), pin);
        }
    }

    private static String url(String host, int port) {
        // Bound to every interface (a container): the address clients use is not known here.
        String shown = host.equals("0.0.0.0") || host.equals("::") ? "<host>" : host;
        return "https://" + shown + ":" + port;
    }

    /**
     * The fingerprint, also as a file beside the credentials ({@code export GLASSLEDGER_PIN=$(cat data/pin.txt)}).
     * Not a secret, but written whole like the files beside it ({@link PrivateFiles}).
     */
    static void writePin(Path file, String pin) {
        try {
            PrivateFiles.write(file, pin + "\n");
        } catch (IOException ex) {
            LOG.warn("could not write {}: {}", file, ex.toString());
        }
    }
}
