package io.glassledger.core.vectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The independent Python verifier (tools/pyverify/verify_vectors.py, written from docs/FORMAT.md) accepts the
 * committed vectors: FORMAT.md, the vectors and the Python verifier agree. Needs python3 on the PATH; CI installs it.
 */
class PythonVerifierTest {
    private static final Pattern CLOSING = Pattern.compile("(\\d+) passed, (\\d+) failed");
    private static final long TIMEOUT_SECONDS = 300;

    @Test
    void pythonVerifier_acceptsTheCommittedVectors() throws Exception {
        Path module = moduleDir();
        Path root = module.getParent();
        Path script = root.resolve("tools/pyverify/verify_vectors.py");
        Path vectors = module.resolve(VectorGenerator.DIR);
        assertTrue(Files.isRegularFile(script), "no Python verifier at " + script + " (module dir " + module + ")");
        assertTrue(Files.isDirectory(vectors), "no vectors at " + vectors);
        String python = python3();

        Process p = new ProcessBuilder(python, script.toString(), vectors.toString())
                .directory(root.toFile()).redirectErrorStream(true).start();
        p.getOutputStream().close();
        StringBuilder out = new StringBuilder();
        Thread reader = new Thread(() -> out.append(readAll(p.getInputStream())), "pyverify-output");
        reader.start();
        if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("python3 " + script + " did not finish within " + TIMEOUT_SECONDS + " s");
        }
        reader.join(TimeUnit.SECONDS.toMillis(10));
        String output = out.toString();
        String command = "python3 " + root.relativize(script) + " " + root.relativize(vectors);
        assertEquals(0, p.exitValue(), command + " failed:\n" + output);

        List<String> lines = new ArrayList<>();
        for (String line : output.split("\n")) {
            if (!line.isBlank()) {
                lines.add(line.strip());
            }
        }
        assertTrue(!lines.isEmpty(), command + " printed nothing");
        String last = lines.get(lines.size() - 1);
        Matcher m = CLOSING.matcher(last);
        assertTrue(m.matches(), command + ": the last line is not \"N passed, M failed\":\n" + output);
        assertEquals("0", m.group(2), command + " reports failures:\n" + output);
        assertTrue(Long.parseLong(m.group(1)) > 0, command + " checked nothing:\n" + output);
    }

    /** The ledger-core module directory: Maven's basedir, else the working directory or its ledger-core child. */
    private static Path moduleDir() {
        String basedir = System.getProperty("basedir");
        Path dir = Path.of(basedir != null ? basedir : System.getProperty("user.dir")).toAbsolutePath().normalize();
        if (!Files.isDirectory(dir.resolve(VectorGenerator.DIR)) && Files.isDirectory(dir.resolve("ledger-core"))) {
            dir = dir.resolve("ledger-core");
        }
        return dir;
    }

    /** "python3", after checking that it runs; fails with a clear message if it does not. */
    private static String python3() throws InterruptedException {
        String hint = "python3 (3.8 or later) must be on the PATH to run tools/pyverify/verify_vectors.py. CI installs "
                + "it; install it locally (e.g. apt-get install python3) to run this test.";
        Process p;
        try {
            p = new ProcessBuilder("python3", "--version").redirectErrorStream(true).start();
        } catch (IOException e) {
            fail("python3 not found: " + e.getMessage() + "\n" + hint);
            return null;
        }
        String version = readAll(p.getInputStream()).strip();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            fail("python3 --version failed: " + version + "\n" + hint);
        }
        Matcher m = Pattern.compile("Python (\\d+)\\.(\\d+)").matcher(version);
        if (!m.find() || Integer.parseInt(m.group(1)) < 3
                || (Integer.parseInt(m.group(1)) == 3 && Integer.parseInt(m.group(2)) < 8)) {
            fail("python3 is \"" + version + "\"\n" + hint);
        }
        return "python3";
    }

    private static String readAll(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(output unreadable: " + e + ")";
        }
    }
}
