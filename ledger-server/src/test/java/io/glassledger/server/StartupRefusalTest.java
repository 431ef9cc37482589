package io.glassledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.api.contract.StartupRefusal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** A start that cannot do what was asked stops at once with a short report and a distinct exit status. */
@ExtendWith(OutputCaptureExtension.class)
class StartupRefusalTest {
    @TempDir
    Path tmp;

    @Test
    void start_misspeltProperty_isRefusedNamingItAndTheNearestKnownOne(CapturedOutput out) {
        Path meant = tmp.resolve("meant");
        RuntimeException x = assertThrows(RuntimeException.class,
                () -> new TestServer(tmp.resolve("data"), "--glassledger.data-dri=" + meant));
        StartupRefusal r = StartupRefusal.in(x);
        assertNotNull(r, "not a refusal: " + x);
        assertEquals(StartupRefusal.EXIT_CONFIG, r.exitCode());
        String log = out.getAll();
        assertTrue(log.contains("APPLICATION FAILED TO START"), log);
        assertTrue(log.contains("unknown property glassledger.data-dri (set in the command line); did you mean "
                + "glassledger.data-dir?"), log);
        assertFalse(log.contains("\tat "), "a stack trace was logged: " + log);
        assertFalse(Files.exists(tmp.resolve("data")), "nothing is written before the refusal");
    }

    @Test
    void start_misspeltNestedProperty_isRefusedToo(CapturedOutput out) {
        RuntimeException x = assertThrows(RuntimeException.class,
                () -> new TestServer(tmp.resolve("data"), "--glassledger.limits.max-value-byte=10"));
        assertNotNull(StartupRefusal.in(x), "not a refusal: " + x);
        assertTrue(out.getAll().contains("unknown property glassledger.limits.max-value-byte (set in the command "
                + "line); did you mean glassledger.limits.max-value-bytes?"), out.getAll());
    }

    @Test
    void start_everyKnownPropertyAndListElements_areAccepted() {
        // list elements (peers[0]) and nested records bind as before
        try (TestServer s = new TestServer(tmp.resolve("data"), "--glassledger.limits.max-value-bytes=1000",
                "--glassledger.connections.max-streams=10", "--glassledger.cluster.peers=")) {
            assertTrue(s.port() > 0);
        }
    }

    @Test
    void secondServer_onTheSameDataDir_exitsNamingThePidHoldingIt() throws Exception {
        Path data = tmp.resolve("data");
        try (TestServer first = new TestServer(data)) {
            Path log = tmp.resolve("second.log");
            Process second = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                    .toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                    GlassLedgerServer.class.getName(), "--server.port=0", "--glassledger.data-dir=" + data))
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!second.waitFor(120, TimeUnit.SECONDS)) {
                second.destroyForcibly().waitFor();
                throw new AssertionError("the second server did not exit: " + Files.readString(log));
            }
            String text = Files.readString(log);
            assertEquals(StartupRefusal.EXIT_IN_USE, second.exitValue(), text);
            assertTrue(text.contains("data directory " + data.toAbsolutePath() + " in use by PID "
                    + ProcessHandle.current().pid()), text);
            assertFalse(text.contains("\tat "), "a stack trace was logged: " + text);
            assertTrue(text.lines().count() < 20, "a short report: " + text);
            assertTrue(first.port() > 0);
        }
        // released at close: the directory can be used again at once
        new TestServer(data).close();
    }
}
