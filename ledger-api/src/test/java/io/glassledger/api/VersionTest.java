package io.glassledger.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The version every command prints is the build's: the project's own version in pom.xml. */
class VersionTest {
    @Test
    void isThePomsVersion() throws Exception {
        String pom = Files.readString(Path.of("..", "pom.xml"));
        Matcher m = Pattern.compile("(?m)^  <version>([^<]+)</version>$").matcher(pom);
        m.find();
        assertEquals(m.group(1), Version.current());
        assertEquals("ledger-cli " + m.group(1), Version.line("ledger-cli"));
    }
}
