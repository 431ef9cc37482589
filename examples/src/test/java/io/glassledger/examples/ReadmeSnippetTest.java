package io.glassledger.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * README.md's "Use it from Java" section quotes the examples' code and Maven coordinates; these keep the quotes
 * identical to what CI compiles and runs.
 */
class ReadmeSnippetTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final String BEGIN = "// README: begin";
    private static final String END = "// README: end";

    @Test
    void readmeJavaSnippet_equalsTheExampleSourceBetweenItsMarkers() throws IOException {
        String expected = region(Files.readAllLines(ROOT.resolve(
                "examples/src/main/java/io/glassledger/examples/TransferExample.java"), StandardCharsets.UTF_8));
        assertEquals(expected, fenced(javaSection(), "java"),
                "README.md's Java snippet differs from TransferExample.java between its README markers");
    }

    @Test
    void readmeDependencyBlock_namesTheSdkCoordinatesOfThePoms() throws IOException {
        String parent = Files.readString(ROOT.resolve("pom.xml"), StandardCharsets.UTF_8);
        String sdk = Files.readString(ROOT.resolve("client-sdk/pom.xml"), StandardCharsets.UTF_8);
        String groupId = first(parent, "<groupId>([^<]+)</groupId>");
        String version = first(parent, "<version>([^<]+)</version>");
        String artifactId = first(sdk.substring(sdk.indexOf("</parent>")), "<artifactId>([^<]+)</artifactId>");
        String expected = "<dependency>\n  <groupId>" + groupId + "</groupId>\n  <artifactId>" + artifactId
                + "</artifactId>\n  <version>" + version + "</version>\n</dependency>";
        assertEquals(expected, fenced(javaSection(), "xml"));
        // and the examples module depends on exactly that at main scope
        String examples = Files.readString(ROOT.resolve("examples/pom.xml"), StandardCharsets.UTF_8);
        assertTrue(examples.contains("<artifactId>" + artifactId + "</artifactId>"), "examples/pom.xml uses the SDK");
    }

    private static String region(List<String> lines) {
        int begin = -1;
        int end = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(BEGIN)) {
                begin = i;
            } else if (lines.get(i).startsWith(END)) {
                end = i;
            }
        }
        assertTrue(begin >= 0 && end > begin, "markers " + BEGIN + " and " + END + " in order");
        return String.join("\n", lines.subList(begin + 1, end));
    }

    private static String javaSection() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
        int start = readme.indexOf("\n## Use it from Java");
        assertTrue(start >= 0, "README.md has a section \"Use it from Java\"");
        int next = readme.indexOf("\n## ", start + 1);
        return readme.substring(start, next < 0 ? readme.length() : next);
    }

    /** The one fenced block of {@code lang} in the section. */
    private static String fenced(String section, String lang) {
        Matcher m = Pattern.compile("\n```" + lang + "\n(.*?)\n```", Pattern.DOTALL).matcher(section);
        assertTrue(m.find(), "a ```" + lang + " block in README.md's \"Use it from Java\"");
        String block = m.group(1);
        assertTrue(!m.find(), "exactly one ```" + lang + " block in README.md's \"Use it from Java\"");
        return block;
    }

    private static String first(String xml, String regex) {
        Matcher m = Pattern.compile(regex).matcher(xml);
        assertTrue(m.find(), regex);
        return m.group(1);
    }
}
