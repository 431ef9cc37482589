package io.glassledger.server;

import static io.glassledger.server.LedgerCliTest.JSON;
import static io.glassledger.server.LedgerCliTest.lines;
import static io.glassledger.server.LedgerCliTest.with;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.client.cli.LedgerCli;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ledger-cli} after a server reset (issue 17, item 4), in a class of its own: it starts and stops servers of
 * its own, and closing one server in this JVM stops Reactor Netty's shared resources under any other still running.
 */
class LedgerCliResetTest {
    @TempDir
    Path dir;
    String out;
    String err;

    int cli(String... args) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int rc = LedgerCli.run(args, new PrintStream(o, true, StandardCharsets.UTF_8),
                new PrintStream(e, true, StandardCharsets.UTF_8), InputStream.nullInputStream(), Map.of());
        out = o.toString(StandardCharsets.UTF_8);
        err = e.toString(StandardCharsets.UTF_8);
        return rc;
    }

    /**
     * The server is reset (a new data directory: another server key): the CLI's trusted state belongs to the old
     * one. It says so in at most three lines with the state file and the deliberate ways out, writes the evidence to
     * a file (on stdout too with --json), exits 3; {@code trust reset} then starts afresh, keeping the old file.
     */
    @Test
    void serverReset_isAViolationInThreeLines_evidenceInAFile_trustResetStartsAfresh() throws Exception {
        Path state = dir.resolve("reset").resolve("state.json");
        Path key = dir.resolve("reset").resolve("client.key");
        Files.createDirectories(state.getParent());
        String[] conn;
        try (TestServer before = new TestServer(dir.resolve("reset-a"))) {
            conn = new String[] {"--url", before.url(), "--pin", before.fingerprint(), "--api-key",
                before.apiKey("default"), "--key-file", key.toString(), "--state", state.toString()};
            assertEquals(0, cli(with(conn, "put", "k", "1")), err);
        }
        try (TestServer after = new TestServer(dir.resolve("reset-b"))) {
            conn = new String[] {"--url", after.url(), "--pin", after.fingerprint(), "--api-key",
                after.apiKey("default"), "--key-file", key.toString(), "--state", state.toString()};
            assertEquals(3, cli(with(conn, "get", "k")));
            assertTrue(err.startsWith("INTEGRITY VIOLATION (SERVER_IDENTITY): "), err);
            assertTrue(lines(err) <= 3, err);
            assertFalse(err.contains("{"), "no JSON in the terminal: " + err);
            assertTrue(err.contains(state.toString()) && err.contains("ledger-cli trust reset")
                    && err.contains("--state"), err);
            Path evidence = Path.of(err.substring(err.indexOf("evidence: ") + 10).trim());
            assertTrue(Files.isRegularFile(evidence), err);
            assertEquals("SERVER_IDENTITY", JSON.readTree(evidence.toFile()).get("kind").asText());
            assertEquals(state.getParent().resolve("violations"), evidence.getParent());

            assertEquals(3, cli(with(conn, "--json", "get", "k")));
            assertEquals("SERVER_IDENTITY", JSON.readTree(out).get("evidence").get("kind").asText(), out);

            assertEquals(0, cli(with(conn, "trust", "reset")), err);
            assertTrue(out.contains("moved aside " + state), out);
            try (Stream<Path> s = Files.list(state.getParent())) {
                assertTrue(s.anyMatch(p -> p.getFileName().toString().startsWith("state.json.reset-")));
            }
            assertEquals(0, cli(with(conn, "get", "k")), err);
            assertTrue(out.startsWith("(absent)"), out);
        }
    }

}
