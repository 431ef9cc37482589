package io.glassledger.benchmark;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A group of three replicas of shard 0 on loopback, each a server process. */
final class ReplicaGroup implements AutoCloseable {
    final Path jar;
    final List<String> jvm;
    final List<List<String>> args = new ArrayList<>();
    final List<Path> dirs = new ArrayList<>();
    final List<Integer> ports = new ArrayList<>();
    final ServerProcess[] servers = new ServerProcess[3];
    final List<URI> urls = new ArrayList<>();

    ReplicaGroup(Path jar, Path dir, List<String> jvm, List<String> common) throws Exception {
        this.jar = jar;
        this.jvm = jvm;
        // One check for both runs, so that the Raft ports cannot overlap the HTTPS ones.
        int https = ServerCluster.freePorts(3, 2);
        int raft = https + 1000;
        List<String> peers = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            peers.add("127.0.0.1:" + (raft + r));
            urls.add(URI.create("https://127.0.0.1:" + (https + r)));
        }
        byte[] seed = new byte[32];
        new java.security.SecureRandom().nextBytes(seed);
        for (int r = 0; r < 3; r++) {
            Path d = dir.resolve("replica-" + r);
            Files.createDirectories(d);
            // A group signs one ledger: every replica holds the shard's key.
            Files.writeString(d.resolve("server.key"), HexFormat.of().formatHex(seed) + "\n");
            List<String> a = new ArrayList<>(common);
            a.addAll(List.of("--glassledger.replication.peers=" + String.join(",", peers),
                    "--glassledger.replication.urls=" + String.join(",", urls.stream().map(URI::toString)
                            .toList()), "--glassledger.replication.replica=" + r));
            dirs.add(d);
            ports.add(https + r);
            args.add(a);
        }
        try {
            servers[0] = new ServerProcess(jar, dirs.get(0), jvm, args.get(0), ports.get(0));
            // Replicas 1 and 2 (which copy the first one's certificate and keys) start together.
            List<CompletableFuture<ServerProcess>> rest = new ArrayList<>();
            for (int r = 1; r < 3; r++) {
                Path d = dirs.get(r);
                Files.createDirectories(d.resolve("tls"));
                Files.createDirectories(d.resolve("auth"));
                for (String f : List.of("tls/server.p12", "tls/server.p12.password", "auth/api-keys.json")) {
                    Files.copy(dirs.get(0).resolve(f), d.resolve(f));
                }
                rest.add(ServerProcess.startAsync(jar, d, jvm, args.get(r), ports.get(r)));
            }
            IOException failed = null;
            for (int r = 1; r < 3; r++) {  // both awaited, so that close() stops whichever did start
                try {
                    servers[r] = ServerProcess.started(rest.get(r - 1));
                } catch (IOException e) {
                    failed = failed == null ? e : failed;
                }
            }
            if (failed != null) {
                throw failed;
            }
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    void restart(int r) throws Exception {
        servers[r] = new ServerProcess(jar, dirs.get(r), jvm, args.get(r), ports.get(r));
    }

    void kill(int r) throws Exception {
        servers[r].process.destroyForcibly();  // SIGKILL
        servers[r].process.waitFor(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        for (ServerProcess sp : servers) {
            if (sp != null) {
                sp.close();
            }
        }
    }
}
