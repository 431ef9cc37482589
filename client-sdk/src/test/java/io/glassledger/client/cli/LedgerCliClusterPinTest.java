package io.glassledger.client.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster file without a pin (the Helm chart's ConfigMap has none: the pin is the certificate's, not known when the
 * chart renders) takes the pin given beside it; a file's own pin that differs from the one given is refused.
 */
class LedgerCliClusterPinTest {
    private static final String PIN = "ab".repeat(32);

    @TempDir
    Path dir;

    private int run(Path cluster, ByteArrayOutputStream err) {
        return LedgerCli.run(new String[] {"--cluster", cluster.toString(), "--pin", PIN, "--api-key", "k",
                "--timeout", "2", "--key-file", dir.resolve("client.key").toString(),
                "--state", dir.resolve("state.json").toString(), "digest"},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8),
                Map.of());
    }

    @Test
    void clusterFileWithoutPin_takesTheGivenPin_andGoesOnToTheServer() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        Path cluster = dir.resolve("cluster.properties");
        Files.writeString(cluster, "shards=1\nmap-version=1\nurl.0=https://127.0.0.1:" + closedPort + "\n");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = run(cluster, err);
        assertEquals(Exit.TRANSPORT, exit, err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void clusterFilesOwnPin_otherThanTheGivenOne_isRefused() throws Exception {
        Path cluster = dir.resolve("cluster.properties");
        Files.writeString(cluster, "shards=1\nmap-version=1\nurl.0=https://127.0.0.1:1\npin=" + "cd".repeat(32) + "\n");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(Exit.USAGE, run(cluster, err));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("contradicting pins"), err.toString());
    }
}
