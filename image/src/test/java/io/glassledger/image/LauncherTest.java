package io.glassledger.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LauncherTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) throws Throwable {
        return Launcher.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void firstArgumentChoosesTheProgram() {
        assertEquals(Launcher.Command.SERVER, Launcher.Command.of(new String[] {"server", "--server.port=1"}));
        assertEquals(Launcher.Command.AUDITOR, Launcher.Command.of(new String[] {"auditor"}));
        assertEquals(Launcher.Command.CLI, Launcher.Command.of(new String[] {"cli", "status"}));
        assertEquals(Launcher.Command.CLI, Launcher.Command.of(new String[] {"ledger-cli"}));
        assertEquals(Launcher.Command.VERSION, Launcher.Command.of(new String[] {"--version"}));
        assertEquals(Launcher.Command.HELP, Launcher.Command.of(new String[] {}));
        assertEquals(Launcher.Command.HELP, Launcher.Command.of(new String[] {"help"}));
        assertEquals(Launcher.Command.HELP, Launcher.Command.of(new String[] {"--help"}));
        assertEquals(Launcher.Command.UNKNOWN, Launcher.Command.of(new String[] {"sh"}));
        assertEquals(Launcher.Command.UNKNOWN, Launcher.Command.of(new String[] {"--server.port=1"}));
    }

    @Test
    void versionPrintsTheBuildsVersion() throws Throwable {
        assertEquals(0, run("--version"));
        assertEquals("glassledger " + io.glassledger.api.Version.current(), out().strip());
        assertNotEquals("unknown", io.glassledger.api.Version.current());
        assertEquals("", err());
    }

    @Test
    void noArgumentsPrintsUsageOnStderrWithExit2() throws Throwable {
        assertEquals(2, run());
        assertEquals("", out());
        assertTrue(err().startsWith("usage: docker run"), err());
        for (String command : List.of("server", "auditor", "cli", "--version")) {
            assertTrue(err().contains("\n  " + command + " "), command + " missing from the usage: " + err());
        }
    }

    @Test
    void helpPrintsUsageWithExit2() throws Throwable {
        assertEquals(2, run("help"));
        assertTrue(err().startsWith("usage: "), err());
    }

    @Test
    void unknownCommandIsNamedThenUsage() throws Throwable {
        assertEquals(2, run("bash", "-c", "id"));
        assertTrue(err().startsWith("glassledger: unknown command 'bash'\nusage: "), err());
        assertEquals("", out());
    }

    @Test
    void cliRunsLedgerCli() throws Throwable {
        // ledger-cli's main ends with System.exit: its run() is what the launcher's class path must offer
        Class<?> cli = Class.forName(Launcher.CLI);
        assertEquals(0, cli.getMethod("run", String[].class, PrintStream.class, PrintStream.class, java.util.Map.class)
                .invoke(null, new String[] {"--version"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8), java.util.Map.of()));
        assertTrue(out().startsWith("ledger-cli "), out());
    }

    @Test
    void noLogFileUnlessAskedFor() {
        System.clearProperty("logging.file.name");
        try {
            Launcher.logToStdoutOnly(java.util.Map.of("LOGGING_FILE_NAME", "/data/server.log"));
            assertEquals(null, System.getProperty("logging.file.name"));
            Launcher.logToStdoutOnly(java.util.Map.of("LOGGING_FILE_PATH", "/data/logs"));
            assertEquals(null, System.getProperty("logging.file.name"));
            Launcher.logToStdoutOnly(java.util.Map.of());
            assertEquals("", System.getProperty("logging.file.name"));
            System.setProperty("logging.file.name", "x.log");
            Launcher.logToStdoutOnly(java.util.Map.of());
            assertEquals("x.log", System.getProperty("logging.file.name"));
        } finally {
            System.clearProperty("logging.file.name");
        }
    }

    @Test
    void missingExecJarIsNamed() {
        Path absent = Path.of("/nonexistent/glassledger-server.jar");
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Launcher.launchExecJar(absent, new String[0]));
        assertTrue(e.getMessage().contains(absent.toString()), e.getMessage());
    }

    /**
     * An exec jar stand-in: a JarLauncher and a nested: handler of its own. The launcher loads the JarLauncher from
     * the jar alone (platform class loader as parent), hands it the remaining arguments, makes its loader the
     * thread's context class loader, and answers nested: URLs with the jar's handler.
     */
    @Test
    void execJarRunsItsJarLauncherIsolated(@TempDir Path dir) throws Throwable {
        Path src = dir.resolve("src");
        Path pkg = src.resolve("org/springframework/boot/loader/launch");
        Path nested = src.resolve("org/springframework/boot/loader/net/protocol/nested");
        Files.createDirectories(pkg);
        Files.createDirectories(nested);
        Files.writeString(pkg.resolve("JarLauncher.java"), String.join("\n",
                "package org.springframework.boot.loader.launch;",
                "public class JarLauncher {",
                "  public static void main(String[] args) throws Exception {",
                "    ClassLoader own = JarLauncher.class.getClassLoader();",
                "    System.setProperty(\"test.launched.args\", String.join(\",\", args));",
                "    System.setProperty(\"test.launched.parent\", String.valueOf(own.getParent() == ClassLoader.getPlatformClassLoader()));",
                "    System.setProperty(\"test.launched.tccl\", String.valueOf(Thread.currentThread().getContextClassLoader() == own));",
                "    System.setProperty(\"test.launched.source\", JarLauncher.class.getProtectionDomain().getCodeSource().getLocation().toString());",
                "    System.setProperty(\"test.launched.nested\", new java.net.URL(\"nested:/x.jar/!BOOT-INF/lib/y.jar\").openConnection().getClass().getName());",
                "  }",
                "}"));
        Files.writeString(nested.resolve("Handler.java"), String.join("\n",
                "package org.springframework.boot.loader.net.protocol.nested;",
                "public class Handler extends java.net.URLStreamHandler {",
                "  protected java.net.URLConnection openConnection(java.net.URL u) {",
                "    return new java.net.URLConnection(u) { public void connect() {} };",
                "  }",
                "}"));
        Path classes = dir.resolve("classes");
        Files.createDirectories(classes);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertEquals(0, javac.run(null, null, null, "-d", classes.toString(),
                pkg.resolve("JarLauncher.java").toString(), nested.resolve("Handler.java").toString()));
        Path jar = dir.resolve("exec.jar");
        try (JarOutputStream j = new JarOutputStream(Files.newOutputStream(jar))) {
            try (var files = Files.walk(classes)) {
                for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                    j.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                    Files.copy(f, (OutputStream) j);
                    j.closeEntry();
                }
            }
        }
        ClassLoader before = Thread.currentThread().getContextClassLoader();
        try {
            Launcher.launchExecJar(jar, new String[] {"--server.port=1", "--a=b"});
        } finally {
            Thread.currentThread().setContextClassLoader(before);
        }
        assertEquals("--server.port=1,--a=b", System.getProperty("test.launched.args"));
        assertEquals("true", System.getProperty("test.launched.parent"));
        assertEquals("true", System.getProperty("test.launched.tccl"));
        assertEquals(jar.toUri().toURL(), new URL(System.getProperty("test.launched.source")));
        assertTrue(System.getProperty("test.launched.nested").startsWith("org.springframework.boot.loader.net.protocol.nested.Handler"),
                System.getProperty("test.launched.nested"));
    }
}
