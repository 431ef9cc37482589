package io.glassledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.api.CanonicalPath;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/API.md's "Errors" table lists exactly the problem codes the server's code can answer: every code written in
 * the server's sources (an {@code ApiException}, a filter's refusal, a 2PC participant's refusal) is in the table,
 * and every code in the table is in the sources or is one Spring answers itself (coded after its status).
 */
class ErrorCodesDocTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** Refusals Spring detects before our code runs; Problems.framework codes them after their status. */
    private static final Set<String> FRAMEWORK = Set.of("unsupported_media_type");
    private static final Pattern IN_CODE = Pattern.compile(
            "(?:new ApiException\\(|refuse\\(exchange, |new Refused\\()\\s*\"([a-z_]+)\"");

    @Test
    void errorsTable_andServerSources_nameTheSameCodes() throws IOException {
        Set<String> inCode = new TreeSet<>();
        inCode.add(CanonicalPath.PROBLEM_CODE);
        try (Stream<Path> files = Files.walk(ROOT.resolve("ledger-server/src/main/java"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                Matcher m = IN_CODE.matcher(Files.readString(f, StandardCharsets.UTF_8));
                while (m.find()) {
                    inCode.add(m.group(1));
                }
            }
        }
        assertTrue(inCode.size() > 20, "the pattern still finds the codes: " + inCode);
        Set<String> inDoc = errorsTable();

        Set<String> undocumented = new TreeSet<>(inCode);
        undocumented.removeAll(inDoc);
        assertEquals(Set.of(), undocumented, "codes the server answers that docs/API.md \"Errors\" does not list");
        Set<String> unknown = new TreeSet<>(inDoc);
        unknown.removeAll(inCode);
        unknown.removeAll(FRAMEWORK);
        assertEquals(Set.of(), unknown, "codes docs/API.md \"Errors\" lists that the server never answers");
    }

    private static Set<String> errorsTable() throws IOException {
        String api = Files.readString(ROOT.resolve("docs/API.md"), StandardCharsets.UTF_8);
        int start = api.indexOf("\n## Errors");
        int end = api.indexOf("\n## ", start + 1);
        Set<String> codes = new TreeSet<>();
        Matcher m = Pattern.compile("\n\\| `([a-z_]+)` \\|").matcher(api.substring(start, end));
        while (m.find()) {
            codes.add(m.group(1));
        }
        return codes;
    }
}
