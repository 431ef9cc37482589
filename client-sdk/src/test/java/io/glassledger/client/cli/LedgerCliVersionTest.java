package io.glassledger.client.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.glassledger.api.Version;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code ledger-cli --version}: one line, exit 0, no server needed. */
class LedgerCliVersionTest {
    @Test
    void printsTheVersion() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = LedgerCli.run(new String[] {"--version"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of());
        assertEquals(0, status);
        assertEquals("ledger-cli " + Version.current() + System.lineSeparator(), out.toString(StandardCharsets.UTF_8));
        assertEquals("", err.toString(StandardCharsets.UTF_8));
    }
}
