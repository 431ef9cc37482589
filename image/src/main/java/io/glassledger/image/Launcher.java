package io.glassledger.image;

import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.URLStreamHandler;
import java.net.URLStreamHandlerFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/**
 * The container image's entry point: its first argument chooses the program, the rest are that program's.
 * <ul>
 *   <li>{@code server}: the server's exec jar ({@code /app/glassledger-server.jar}), in this JVM;</li>
 *   <li>{@code auditor}: the auditor's exec jar ({@code /app/glassledger-auditor.jar}), in this JVM;</li>
 *   <li>{@code cli}: ledger-cli (on this launcher's class path);</li>
 *   <li>{@code --version}: {@code glassledger <version>}.</li>
 * </ul>
 * {@code help}, no argument or anything else prints the usage on stderr and exits with 2. The image has no shell: the container's process is
 * this JVM, started by the runtime directly.
 */
public final class Launcher {
    /** Where the image keeps the server's Spring Boot exec jar. */
    static final Path SERVER_JAR = Path.of("/app/glassledger-server.jar");
    /** Where the image keeps the auditor's Spring Boot exec jar. */
    static final Path AUDITOR_JAR = Path.of("/app/glassledger-auditor.jar");
    /** Spring Boot 3.5's launcher for an exec jar: it finds its archive from its own code source. */
    static final String JAR_LAUNCHER = "org.springframework.boot.loader.launch.JarLauncher";
    /** The handler of Spring Boot's {@code nested:} URLs (a jar inside the exec jar). */
    static final String NESTED_HANDLER = "org.springframework.boot.loader.net.protocol.nested.Handler";
    static final String CLI = "io.glassledger.client.cli.LedgerCli";

    static final String USAGE = String.join("\n",
            "usage: docker run [options] glassledger:" + io.glassledger.api.Version.current() + " COMMAND [ARGS...]",
            "",
            "Commands:",
            "  server [--name=value ...]    one shard over HTTPS (the default command). Settings as --glassledger.* /",
            "                               --server.* arguments or GLASSLEDGER_* / SERVER_* environment variables;",
            "                               data in /data (a volume).",
            "  auditor [--name=value ...]   an auditor: --glassledger.auditor.shards=URL,... --glassledger.auditor.pin=PIN",
            "                               --glassledger.auditor.api-key=KEY (or GLASSLEDGER_AUDITOR_* variables);",
            "                               state in /data.",
            "  cli ARGS...                  ledger-cli (cli --help lists its commands); its state in /data/.glassledger.",
            "  --version                    prints the version.",
            "  help                         prints this text.",
            "",
            "Run it with a read-only root file system: --read-only --tmpfs /tmp:rw,exec -v DATA:/data.");

    /** Exit status for a usage error, as ledger-cli's. */
    static final int USAGE_ERROR = 2;

    private Launcher() {
    }

    /** What the first argument chose. */
    enum Command {
        SERVER, AUDITOR, CLI, VERSION, HELP, UNKNOWN;

        static Command of(String[] args) {
            if (args.length == 0) {
                return HELP;
            }
            switch (args[0]) {
                case "server":
                    return SERVER;
                case "auditor":
                    return AUDITOR;
                case "cli":
                case "ledger-cli":
                    return CLI;
                case "--version":
                case "version":
                    return VERSION;
                case "help":
                case "--help":
                case "-h":
                    return HELP;
                default:
                    return UNKNOWN;
            }
        }
    }

    public static void main(String[] args) throws Throwable {
        int status = run(args, System.out, System.err);
        if (status >= 0) {
            System.exit(status);
        }
        // else: the program runs on (a server's non-daemon threads keep the JVM up)
    }

    /**
     * Runs what {@code args} chose. Returns the exit status for the launcher's own answers (version, usage), or -1
     * when it handed over to a program (which exits by itself, or runs on).
     */
    static int run(String[] args, PrintStream out, PrintStream err) throws Throwable {
        String[] rest = args.length == 0 ? args : Arrays.copyOfRange(args, 1, args.length);
        switch (Command.of(args)) {
            case SERVER:
                logToStdoutOnly(System.getenv());
                launchExecJar(SERVER_JAR, rest);
                return -1;
            case AUDITOR:
                logToStdoutOnly(System.getenv());
                launchExecJar(AUDITOR_JAR, rest);
                return -1;
            case CLI:
                invokeMain(Class.forName(CLI), rest);
                return -1;
            case VERSION:
                out.println(io.glassledger.api.Version.line("glassledger"));
                return 0;
            case HELP:
                err.println(USAGE);
                return USAGE_ERROR;
            default:
                err.println("glassledger: unknown command '" + args[0] + "'");
                err.println(USAGE);
                return USAGE_ERROR;
        }
    }

    /**
     * A container logs to stdout only: the services' application.yml also writes a JSON log file under the data
     * directory, which this turns off (an empty {@code logging.file.name}: Spring Boot then writes no file) unless
     * the file was asked for ({@code LOGGING_FILE_NAME} or {@code LOGGING_FILE_PATH} in the environment, or the
     * system property; a {@code --logging.file.name=} argument wins over this in any case). The image cannot carry
     * an empty {@code LOGGING_FILE_NAME} itself: Jib takes no empty environment value.
     */
    static void logToStdoutOnly(Map<String, String> env) {
        if (!env.containsKey("LOGGING_FILE_NAME") && !env.containsKey("LOGGING_FILE_PATH")
                && System.getProperty("logging.file.name") == null && System.getProperty("logging.file.path") == null) {
            System.setProperty("logging.file.name", "");
        }
    }

    /**
     * Runs a Spring Boot exec jar in this JVM: its loader classes come from a class loader over the jar alone (the
     * platform class loader as parent, so nothing of this launcher's class path shows through), and its
     * JarLauncher, finding that jar as its own code source, loads the application from the jar's BOOT-INF.
     * <p>
     * Spring Boot's loader makes {@code nested:} URLs (a jar inside the exec jar) and registers their handler with
     * {@code java.protocol.handler.pkgs}, which the JDK resolves with the system class loader only, where the
     * handler is not. So the launcher installs the JVM's URL stream handler factory first, answering
     * {@code nested} with the handler from the exec jar's own class loader (the same classes the loader uses).
     */
    static void launchExecJar(Path jar, String[] args) throws Throwable {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("glassledger: " + jar + " is missing from the image");
        }
        URLClassLoader loader = new URLClassLoader("glassledger-" + jar.getFileName(),
                new URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader());
        URLStreamHandler nested = (URLStreamHandler) Class.forName(NESTED_HANDLER, true, loader)
                .getDeclaredConstructor().newInstance();
        URL.setURLStreamHandlerFactory(new NestedOnly(nested));
        Thread.currentThread().setContextClassLoader(loader);
        invokeMain(Class.forName(JAR_LAUNCHER, true, loader), args);
    }

    /** The URL stream handler factory: Spring Boot's handler for {@code nested:}, the JDK's for everything else. */
    static final class NestedOnly implements URLStreamHandlerFactory {
        private final URLStreamHandler nested;

        NestedOnly(URLStreamHandler nested) {
            this.nested = nested;
        }

        @Override
        public URLStreamHandler createURLStreamHandler(String protocol) {
            return "nested".equals(protocol) ? nested : null;
        }
    }

    /** Calls {@code main(String[])} of a class, rethrowing what it threw. */
    static void invokeMain(Class<?> type, String[] args) throws Throwable {
        Method main = type.getMethod("main", String[].class);
        try {
            main.invoke(null, (Object) args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
