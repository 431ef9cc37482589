package io.glassledger.server.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * The command that runs an exec jar (the server's or the auditor's) in a test as the launcher runs it: from the
 * unpacked copy and its class-data-sharing archive that {@code ./glassledger} makes once per build ({@code fast} in
 * the launcher: {@code target/unpacked/<jar name>-<build time>/}), which start in about half the CPU; the jar itself
 * when the launcher has not made them for this build.
 */
public final class ExecJar {
    /** The launcher's name for a build: the plain jar's modification time, {@code date -r JAR +%Y%m%d%H%M%S}. */
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMddHHmmss")
            .withZone(ZoneId.systemDefault());

    private ExecJar() {
    }

    /** {@code java OPTIONS... [-XX:SharedArchiveFile=...] -jar JAR}: arguments of the program follow. */
    public static List<String> javaCommand(Path execJar, String... jvmOptions) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of(jvmOptions));
        Path unpacked = unpacked(execJar.toAbsolutePath());
        if (unpacked == null) {
            cmd.addAll(List.of("-jar", execJar.toAbsolutePath().toString()));
        } else {
            cmd.addAll(List.of("-XX:SharedArchiveFile=" + unpacked.resolve("app.jsa"), "-Xlog:cds=off",
                    "-Xlog:cds+dynamic=off", "-jar", unpacked.resolve(execJar.getFileName()).toString()));
        }
        return cmd;
    }

    /**
     * {@code ledger-cli} in a JVM of its own, from this test JVM's class path, as {@code ./ledger-cli} runs it:
     * through its {@code main}, so with its process-wide settings (the transport's logging); its arguments follow.
     */
    public static List<String> cliCommand(String... args) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                "io.glassledger.client.cli.LedgerCli"));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** The launcher's unpacked copy of this build of {@code execJar}, if it made one; else null. */
    private static Path unpacked(Path execJar) {
        String name = execJar.getFileName().toString();
        Path plain = execJar.resolveSibling(name.replace("-exec.jar", ".jar"));
        try {
            if (!name.endsWith("-exec.jar") || !Files.isRegularFile(plain)) {
                return null;
            }
            Instant built = Files.getLastModifiedTime(plain).toInstant();
            Path dir = execJar.resolveSibling("unpacked")
                    .resolve(name.substring(0, name.length() - ".jar".length()) + "-" + STAMP.format(built));
            boolean ready = Files.isRegularFile(dir.resolve("ready")) && Files.isRegularFile(dir.resolve("app.jsa"))
                    && Files.isRegularFile(dir.resolve(name));
            // The path the launcher made the archive through (physical): the JDK maps it only for the same path.
            return ready ? dir.toRealPath() : null;
        } catch (IOException e) {
            return null;
        }
    }
}
