package io.glassledger.auditor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.api.contract.StartupRefusal;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** The auditor refuses unknown glassledger.* properties at start, as the server does. */
@ExtendWith(OutputCaptureExtension.class)
class AuditorStartupRefusalTest {
    @TempDir
    Path dir;

    @Test
    void start_serverPropertyGivenToTheAuditor_isRefusedNamingTheAuditorsOwn(CapturedOutput out) {
        RuntimeException x = assertThrows(RuntimeException.class, () -> SpringApplication.run(
                AuditorApplication.class, "--server.port=0", "--glassledger.data-dir=" + dir.resolve("a"),
                "--glassledger.auditor.shards=https://127.0.0.1:9", "--glassledger.auditor.pin=" + "00".repeat(32),
                "--glassledger.auditor.api-key=unused", "--glassledger.auditor.pol-interval=1h",
                "--logging.level.root=WARN").close());
        StartupRefusal r = StartupRefusal.in(x);
        assertNotNull(r, "not a refusal: " + x);
        assertEquals(StartupRefusal.EXIT_CONFIG, r.exitCode());
        String log = out.getAll();
        assertTrue(log.contains("unknown property glassledger.data-dir (set in the command line); did you mean "
                + "glassledger.auditor.data-dir?"), log);
        assertTrue(log.contains("unknown property glassledger.auditor.pol-interval (set in the command line); did "
                + "you mean glassledger.auditor.poll-interval?"), log);
        assertFalse(log.contains("\tat "), "a stack trace was logged: " + log);
    }
}
