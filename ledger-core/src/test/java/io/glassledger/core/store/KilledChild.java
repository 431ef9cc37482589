package io.glassledger.core.store;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM of a crash test, run on the test's class path and killed with SIGKILL once it has printed a number of
 * lines: the test waits for that condition, not for a time. Returns the whole lines it printed (a line without its
 * newline was cut off by the kill). The child's output goes to files, not pipes: {@link Process#destroyForcibly}
 * closes the pipes, losing what was not yet read.
 */
final class KilledChild {
    private KilledChild() {
    }

    static List<String> runAndKill(Path tmp, String name, Class<?> main, List<String> args, long killAfterLines)
            throws Exception {
        Path stdout = tmp.resolve(name + "-stdout.txt");
        Path stderr = tmp.resolve(name + "-stderr.txt");
        Path childTmp = Files.createDirectories(tmp.resolve("child-tmp"));
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                // RocksDB unpacks its native library into java.io.tmpdir; a killed JVM never deletes it.
                "-Djava.io.tmpdir=" + childTmp, "-cp", System.getProperty("java.class.path"), main.getName()));
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
        try {
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(5))
                    .until(() -> !p.isAlive() || newlines(stdout) > killAfterLines);
            assertTrue(p.isAlive(), "child " + name + " ended on its own: " + Files.readString(stderr));
        } finally {
            p.destroyForcibly();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "killed child did not exit");
        }
        assertEquals(137, p.exitValue(), "child was not ended by SIGKILL: " + Files.readString(stderr));
        String out = Files.readString(stdout);
        return List.of(out.substring(0, out.lastIndexOf('\n') + 1).split("\n"));
    }

    private static long newlines(Path p) {
        try {
            return Files.readString(p).chars().filter(c -> c == '\n').count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
