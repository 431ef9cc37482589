package io.glassledger.benchmark;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real ledger-server process on loopback (the exec jar), started on a free port with its own data directory (and
 * its management port, health probes and metrics, on another free one). It reads where the server listens, where its
 * management port is and the certificate fingerprint from its log, the API keys from its credentials file, and the
 * process's CPU time, in total and by thread, from /proc.
 */
final class ServerProcess implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("listening on (https://[0-9.]+:\\d+)");
    private static final Pattern PIN = Pattern.compile("TLS certificate SHA-256 \\(pin it\\): ([0-9a-f]{64})");
    private static final Pattern MANAGEMENT = Pattern.compile("health probes and metrics at (https://[0-9.]+:\\d+)/");

    /**
     * JVM options that go with the jar ({@code glassledger.server.jvm-options}, set by benchmark/run from
     * {@code ./glassledger fast-jar}: the class-data-sharing archive of the unpacked jar), before the caller's.
     */
    private static final List<String> LAUNCH_OPTIONS = List.of(System.getProperty("glassledger.server.jvm-options", "")
            .trim().split("\\s+")).stream().filter(o -> !o.isEmpty()).toList();

    final Process process;
    final String url;
    /** The management port's base URL: {@code /actuator/prometheus}, {@code /actuator/health/*}. */
    final String managementUrl;
    final String fingerprint;
    final Path dataDir;

    ServerProcess(Path jar, Path dataDir, List<String> jvmOpts, List<String> args) throws IOException,
            InterruptedException {
        this(jar, dataDir, jvmOpts, args, 0);
    }

    /** @param port 0: a free one */
    ServerProcess(Path jar, Path dataDir, List<String> jvmOpts, List<String> args, int port) throws IOException,
            InterruptedException {
        this.dataDir = dataDir;
        Files.createDirectories(dataDir);
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(LAUNCH_OPTIONS);
        cmd.addAll(jvmOpts);
        cmd.addAll(List.of("-jar", jar.toString(), "--server.port=" + port, "--management.server.port=0",
                "--glassledger.data-dir=" + dataDir));
        cmd.addAll(args);
        process = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.PIPE).start();
        // an interrupted benchmark (Ctrl-C) must not leave servers behind
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroy, "stop-server-" + process.pid()));
        CompletableFuture<String[]> found = new CompletableFuture<>();
        Path log = dataDir.resolve("server-console.log");
        Thread reader = new Thread(() -> {
            String u = null;
            String p = null;
            String mgmt = null;
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8)); var out = Files.newBufferedWriter(log)) {
                String line;
                while ((line = r.readLine()) != null) {
                    out.write(line);
                    out.newLine();
                    out.flush();
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        u = m.group(1);
                    }
                    m = PIN.matcher(line);
                    if (m.find()) {
                        p = m.group(1);
                    }
                    m = MANAGEMENT.matcher(line);
                    if (m.find()) {
                        mgmt = m.group(1);
                    }
                    if (u != null && p != null && mgmt != null && !found.isDone()) {
                        found.complete(new String[] {u, p, mgmt});
                    }
                }
            } catch (IOException ignored) {
                // the process ended
            }
            found.completeExceptionally(new IOException("server exited before it listened; see " + log));
        }, "server-log");
        reader.setDaemon(true);
        reader.start();
        String[] up;
        try {
            up = found.get(120, TimeUnit.SECONDS);
        } catch (Exception e) {
            process.destroyForcibly();
            throw new IOException("server did not start: " + e.getMessage() + " (log " + log + ")", e);
        }
        this.url = up[0];
        this.fingerprint = up[1];
        this.managementUrl = up[2];
    }

    /**
     * A server started on a thread of its own (not the common pool's: on 2 cores it has one thread), so that its
     * JVM's start overlaps the caller's next one.
     */
    static CompletableFuture<ServerProcess> startAsync(Path jar, Path dir, List<String> jvm, List<String> args,
                                                       int port) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return new ServerProcess(jar, dir, jvm, args, port);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }, task -> {
            Thread t = new Thread(task, "server-start");
            t.setDaemon(true);
            t.start();
        });
    }

    /** The started server, or what its start threw. */
    static ServerProcess started(CompletableFuture<ServerProcess> start) throws IOException,
            InterruptedException {
        try {
            return start.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UncheckedIOException io) {
                throw io.getCause();
            }
            throw new IOException("a server did not start", e.getCause());
        }
    }

    String apiKey(String clientId) throws IOException {
        for (String line : Files.readAllLines(dataDir.resolve("credentials.txt"))) {
            String[] f = line.split("\t");
            if (f.length == 3 && f[0].equals(clientId)) {
                return f[2];
            }
        }
        throw new IOException("no API key for " + clientId);
    }

    /** CPU seconds (user + system) the server process has used so far, from /proc/PID/stat. */
    double cpuSeconds() throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
        return (double) TaskStat.parse(stat).cpuTicks() / TaskStat.TICKS_PER_SECOND;
    }

    /** The server process's CPU so far, in total and by thread. */
    CpuSnapshot cpuSnapshot() throws IOException {
        return CpuSnapshot.read(process.pid());
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }
}
