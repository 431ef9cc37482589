package io.glassledger.auditor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.api.contract.KnownProperties;
import io.glassledger.api.contract.UnknownPropertiesCheck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/CONFIGURATION.md's auditor table is exactly what the auditor's configuration metadata says (every property, its
 * default and its {@code @param} text), the same list the start-up check refuses unknown properties against. On a
 * difference the expected table is written to target/CONFIGURATION-auditor.md, to paste in.
 */
class ConfigurationDocTest {
    private static final String BEGIN = "<!-- generated from the auditor's configuration metadata: begin -->\n";
    private static final String END = "<!-- generated from the auditor's configuration metadata: end -->";

    @Test
    void configurationDoc_listsExactlyTheAuditorsProperties_withDefaultsAndDescriptions() throws IOException {
        KnownProperties known = KnownProperties.load(getClass().getClassLoader(), UnknownPropertiesCheck.PREFIX);
        assertTrue(known.properties().size() > 10, "the metadata is on the classpath: " + known.properties());
        String expected = known.markdownTable();
        String doc = Files.readString(Path.of("..", "docs", "CONFIGURATION.md"), StandardCharsets.UTF_8);
        int b = doc.indexOf(BEGIN);
        int e = doc.indexOf(END);
        String actual = b < 0 || e < b ? "" : doc.substring(b + BEGIN.length(), e);
        if (!expected.equals(actual)) {
            Files.writeString(Path.of("target", "CONFIGURATION-auditor.md"), expected, StandardCharsets.UTF_8);
        }
        assertEquals(expected, actual, "docs/CONFIGURATION.md differs from the auditor's properties; the expected "
                + "table is in target/CONFIGURATION-auditor.md");
    }
}
