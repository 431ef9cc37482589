package io.glassledger.benchmark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The immudb side of {@code benchmark/run peers}: an immudb server process (built from its Go module by
 * {@code benchmark/run}) on loopback with synced writes and, unless {@code signed} is false, a signing key, so that
 * every state it serves is signed and checked by the client; and the Go driver ({@code benchmark/peers/immudb-driver})
 * that preloads it and runs its workload windows with immudb's own Go client.
 */
final class ImmudbProcess implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path driver;
    private final Path dir;
    private final Path pubkey;
    final Process process;
    final int port;

    /** One driver window: what the driver measured and the server's CPU over the same window. */
    record Window(long ops, long tx, double seconds, double clientCpu, double serverCpu, long errors,
                  String firstError) {
    }

    ImmudbProcess(Path binary, Path driver, Path dir, boolean signed) throws IOException, InterruptedException {
        this.driver = driver;
        this.dir = dir;
        Files.createDirectories(dir);
        List<String> cmd = new ArrayList<>(List.of(binary.toString(), "--dir", dir.resolve("data").toString(),
                "--address", "127.0.0.1", "--pgsql-server=false", "--web-server=false", "--metrics-server=false",
                "--pprof=false", "--synced=true"));
        if (signed) {
            exec(List.of(driver.toString(), "keygen", dir.toString()), dir.resolve("keygen.log"));
            cmd.addAll(List.of("--signingKey", dir.resolve("signing.key").toString()));
            pubkey = dir.resolve("signing.pub");
        } else {
            pubkey = null;
        }
        port = ServerCluster.freePorts(1);
        cmd.addAll(List.of("--port", Integer.toString(port)));
        process = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(dir.resolve("immudb-console.log").toFile()).start();
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroy, "stop-immudb-" + process.pid()));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                break;
            } catch (IOException e) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    process.destroyForcibly();
                    throw new IOException("immudb did not listen on port " + port + "; see "
                            + dir.resolve("immudb-console.log"), e);
                }
                process.waitFor(50, TimeUnit.MILLISECONDS);
            }
        }
    }

    /** Sets every record of {@code data} (a 32-byte key and its 128-byte value each), {@code txKeys} per tx. */
    void preload(Path data, int txKeys) throws IOException, InterruptedException {
        exec(List.of(driver.toString(), "load", "-port", Integer.toString(port), "-data", data.toString(), "-batch",
                Integer.toString(txKeys), "-state", dir.resolve("state-load").toString()), dir.resolve("load.log"));
    }

    /**
     * Runs one window of {@code workload} (get, set or tx) with {@code clients} clients, each with a fresh state
     * directory, and reads the server's CPU when the driver opens and closes its measured window.
     */
    Window run(Path data, String workload, int clients, double warmup, double seconds, long seed, String name)
            throws IOException, InterruptedException {
        Path state = dir.resolve("state-" + name);
        List<String> cmd = new ArrayList<>(List.of(driver.toString(), "run", "-port", Integer.toString(port),
                "-data", data.toString(), "-workload", workload, "-clients", Integer.toString(clients), "-warmup",
                Double.toString(warmup), "-seconds", Double.toString(seconds), "-state", state.toString(), "-seed",
                Long.toString(seed)));
        if (pubkey != null) {
            cmd.addAll(List.of("-pubkey", pubkey.toString()));
        }
        Path log = dir.resolve("driver-" + name + ".log");
        Process p = new ProcessBuilder(cmd).redirectError(log.toFile()).start();
        double cpu0 = Double.NaN;
        JsonNode result = null;
        double cpu1 = Double.NaN;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.equals("window-start")) {
                    cpu0 = cpuSeconds();
                } else if (line.startsWith("{")) {
                    cpu1 = cpuSeconds();
                    result = JSON.readTree(line);
                }
            }
        }
        long limit = (long) (warmup + seconds) + 120;
        if (!p.waitFor(limit, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("the immudb driver did not end within " + limit + " s; see " + log);
        }
        if (p.exitValue() != 0 || result == null || Double.isNaN(cpu0)) {
            throw new IOException("the immudb driver failed (exit " + p.exitValue() + "): " + tail(log));
        }
        WorkDir.deleteTree(state);
        return new Window(result.get("ops").asLong(), result.get("tx").asLong(), result.get("seconds").asDouble(),
                result.get("client_cpu_s").asDouble(), cpu1 - cpu0, result.get("errors").asLong(),
                result.path("first_error").asText(""));
    }

    /** CPU seconds (user + system) the immudb process has used so far. */
    double cpuSeconds() throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
        return (double) TaskStat.parse(stat).cpuTicks() / TaskStat.TICKS_PER_SECOND;
    }

    private static void exec(List<String> cmd, Path log) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(600, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(cmd.get(1) + " did not end within 600 s; see " + log);
        }
        if (p.exitValue() != 0) {
            throw new IOException(cmd.get(1) + " failed (exit " + p.exitValue() + "): " + tail(log));
        }
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }
}
