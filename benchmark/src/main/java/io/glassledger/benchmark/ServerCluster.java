package io.glassledger.benchmark;

import io.glassledger.client.ClientConfig;
import io.glassledger.verify.crypto.SigningKey;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Ledger-server processes on loopback forming one cluster: shard 0 first, whose TLS certificate and API keys the
 * others copy, so that a client pins one certificate and uses one key everywhere.
 */
final class ServerCluster implements AutoCloseable {
    final List<ServerProcess> servers;

    private ServerCluster(List<ServerProcess> servers) {
        this.servers = List.copyOf(servers);
    }

    /**
     * The server JVMs' heap: a fixed, pre-touched 2 GiB for measured runs; for {@code --quick} (the CI smoke) at most
     * 768 MiB each, with a 128 MB ledger cache ({@link #quickArgs}), so that a quick run of up to three shards and the
     * benchmark's own JVM fit in 3 GiB of heap. A quick run's servers also compile with C1 only: a smoke's windows
     * are seconds long, too short for C2's code to pay for its compilation, and a start takes about half the CPU.
     */
    static List<String> heap(boolean quick) {
        return quick ? List.of("-Xms256m", "-Xmx768m", C1_ONLY) : List.of("-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch");
    }

    /** The JIT's first tier only (see {@link #heap}). */
    static final String C1_ONLY = "-XX:TieredStopAtLevel=1";

    /** Server settings that go with {@link #heap}: the ledger's node cache sized to a quick run's heap. */
    static List<String> quickArgs(boolean quick) {
        return quick ? List.of("--glassledger.ledger-cache=128MB") : List.of();
    }

    /**
     * @param jvm  the server JVMs' options; SERVER_JAVA_OPTS (e.g. a profiler) is appended
     * @param args server settings shared by every shard, e.g. {@code --glassledger.persist-interval=100ms}
     */
    static ServerCluster start(Path jar, Path dir, int shards, List<String> jvm, List<String> args)
            throws Exception {
        List<String> jvmOpts = new ArrayList<>(jvm);
        String extra = System.getenv("SERVER_JAVA_OPTS");
        if (extra != null && !extra.isBlank()) {
            jvmOpts.addAll(List.of(extra.trim().split("\\s+")));
        }
        List<String> common = new ArrayList<>(List.of("--logging.level.root=WARN",
                "--logging.level.io.glassledger.server.StartupReport=INFO"));
        common.addAll(args);
        List<ServerProcess> servers = new ArrayList<>();
        if (shards == 1) {
            servers.add(new ServerProcess(jar, dir.resolve("server"), jvmOpts, common));
            return new ServerCluster(servers);
        }
        int base = freePorts(shards);
        List<String> peers = new ArrayList<>();
        for (int i = 0; i < shards; i++) {
            peers.add("https://127.0.0.1:" + (base + i));
        }
        byte[] secret = new byte[24];
        new SecureRandom().nextBytes(secret);
        common.addAll(List.of("--glassledger.cluster.shards=" + shards, "--glassledger.cluster.peers="
                + String.join(",", peers), "--glassledger.cluster.peer-key=" + HexFormat.of().formatHex(secret)));
        try {
            for (int i = 0; i < shards; i++) {
                Path d = dir.resolve("shard-" + i);
                if (i > 0) {
                    Path first = dir.resolve("shard-0");
                    Files.createDirectories(d.resolve("tls"));
                    Files.createDirectories(d.resolve("auth"));
                    for (String f : List.of("tls/server.p12", "tls/server.p12.password", "auth/api-keys.json")) {
                        Files.copy(first.resolve(f), d.resolve(f));
                    }
                }
                List<String> a = new ArrayList<>(common);
                a.add("--glassledger.shard=" + i);
                servers.add(new ServerProcess(jar, d, jvmOpts, a, base + i));
            }
        } catch (Exception e) {
            for (ServerProcess sp : servers) {
                sp.close();
            }
            throw e;
        }
        return new ServerCluster(servers);
    }

    ServerProcess first() {
        return servers.get(0);
    }

    /** A client of every shard as {@code clientId} (whose API key the servers made at first start). */
    ClientConfig.Builder client(String clientId, SigningKey key, Path stateFile, Duration delay) throws IOException {
        return ClientConfig.builder().shards(servers.stream().map(x -> URI.create(x.url)).toList())
                .apiKey(first().apiKey(clientId)).pinnedCertSha256(first().fingerprint).signingKey(key)
                .stateFile(stateFile).verifyDelay(delay);
    }

    /** CPU seconds all the servers have used so far. */
    double cpuSeconds() throws IOException {
        double sum = 0;
        for (ServerProcess sp : servers) {
            sum += sp.cpuSeconds();
        }
        return sum;
    }

    static int freePorts(int n) throws IOException {
        return freePorts(n, 1);
    }

    /**
     * A base port P with P .. P+n-1 free, and as many more runs of n ports 1000, 2000, ... above it as
     * {@code blocks} says (a launcher cluster's Raft, directory and management ports: 4 blocks).
     */
    static int freePorts(int n, int blocks) throws IOException {
        for (int attempt = 0; attempt < 50; attempt++) {
            // Below 10000 with every port (+ 3000 and the width at most): outside the kernel's ephemeral range
            // (32768 and up), so an outgoing connection's local port cannot take one between the check and the
            // bind, and below the ports the tests reserve (TestPorts, 10000 and up), so that .ci/run's two lanes
            // (tests in one, these smokes in the other) never pick the same port.
            int base = 1_100 + new SplittableRandom().nextInt(5_000);
            boolean free = true;
            for (int i = 0; i < n * blocks && free; i++) {
                try (var s = new ServerSocket(base + 1000 * (i / n) + i % n, 1, InetAddress.getLoopbackAddress())) {
                    s.setReuseAddress(true);
                } catch (IOException e) {
                    free = false;
                }
            }
            if (free) {
                return base;
            }
        }
        throw new IOException("no free ports");
    }

    @Override
    public void close() throws InterruptedException {
        for (ServerProcess sp : servers) {
            sp.close();
        }
    }
}
