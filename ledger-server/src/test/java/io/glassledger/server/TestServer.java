package io.glassledger.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A real server in this JVM: HTTPS on a random loopback port (and its management port on another: the API's port 0
 * makes it 0 too), data in a directory the test owns.
 */
final class TestServer implements AutoCloseable {
    final Path dataDir;
    private final List<String> extraArgs;
    private ConfigurableApplicationContext ctx;

    TestServer(Path dataDir, String... extraArgs) {
        this.dataDir = dataDir;
        this.extraArgs = List.of(extraArgs);
        start();
    }

    void start() {
        List<String> args = new ArrayList<>();
        // A property given twice on the command line binds as a list, so a test's own value replaces the default.
        for (String d : List.of("--server.port=0", "--glassledger.data-dir=" + dataDir,
                "--glassledger.persist-interval=20ms", "--logging.level.root=WARN")) {
            String name = d.substring(0, d.indexOf('=') + 1);
            if (extraArgs.stream().noneMatch(a -> a.startsWith(name))) {
                args.add(d);
            }
        }
        args.addAll(extraArgs);
        ctx = SpringApplication.run(GlassLedgerServer.class, args.toArray(String[]::new));
    }

    void restart() {
        close();
        start();
    }

    int port() {
        return ((WebServerApplicationContext) ctx).getWebServer().getPort();
    }

    String url() {
        return "https://127.0.0.1:" + port();
    }

    /** The management port: health probes and metrics (a free port, as the API's). */
    int managementPort() {
        return Integer.parseInt(ctx.getEnvironment().getRequiredProperty("local.management.port"));
    }

    String managementUrl() {
        return "https://127.0.0.1:" + managementPort();
    }

    String fingerprint() {
        return ctx.getEnvironment().getProperty("glassledger.tls.fingerprint");
    }

    <T> T bean(Class<T> type) {
        return ctx.getBean(type);
    }

    String apiKey(String clientId) {
        try {
            for (String line : Files.readAllLines(dataDir.resolve("credentials.txt"))) {
                String[] f = line.split("\t");
                if (f.length == 3 && f[0].equals(clientId)) {
                    return f[2];
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        throw new IllegalStateException("no credentials for " + clientId);
    }

    @Override
    public void close() {
        if (ctx != null) {
            ctx.close();
            ctx = null;
        }
    }
}
