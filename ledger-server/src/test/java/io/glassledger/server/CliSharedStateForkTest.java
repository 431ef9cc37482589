package io.glassledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.client.ClientConfig;
import io.glassledger.client.GlassLedgerClient;
import io.glassledger.client.TrustedState;
import io.glassledger.server.testing.ExecJar;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16, item 5: two {@code ledger-cli} processes share one trusted-state file, and the operator serves each a
 * different branch of a forked history (two servers started from copies of one data directory: the same server key,
 * certificate and API keys). Both processes start from the common trust; the first moves the file along its branch;
 * the second, which already read the file, then finds its own branch's digest and must link the two through its
 * server with an append-only proof: it cannot, so it reports a fork and exits non-zero, and the file keeps the first
 * one's trust. The second process is held (a proxy delays its proof request) until the first is done, so the
 * interleaving is the same on every run.
 */
class CliSharedStateForkTest {
    @TempDir
    Path dir;
    final List<AutoCloseable> open = new ArrayList<>();
    TestServer a;
    TestServer b;
    Path state;
    Path keyFile;

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    <T extends AutoCloseable> T keep(T c) {
        open.add(c);
        return c;
    }

    @BeforeEach
    void forkedServers() throws Exception {
        keyFile = dir.resolve("cli").resolve("client.key");
        a = keep(new TestServer(dir.resolve("a")));
        try (GlassLedgerClient setup = client(a, "setup.json")) {
            setup.runTransaction(t -> t.put("shared", "1"));
        }
        a.close();
        copy(dir.resolve("a"), dir.resolve("b"));
        a.start();
        b = keep(new TestServer(dir.resolve("b")));
        state = dir.resolve("cli").resolve("state.json");
        // Both processes start from the common history.
        Process first = cli(a.url(), "get", "shared");
        assertTrue(first.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, first.exitValue(), output(first));
    }

    GlassLedgerClient client(TestServer s, String stateName) {
        return GlassLedgerClient.connect(ClientConfig.builder().url(s.url()).apiKey(s.apiKey("default"))
                .pinnedCertSha256(s.fingerprint()).keyFile(keyFile)  // an API key binds one Ed25519 key
                .stateFile(dir.resolve(stateName)).verifyDelay(Duration.ZERO).build());
    }

    /** Commits {@code n} transactions on {@code s}: its branch grows by as many blocks. */
    void grow(TestServer s, String value, int n) {
        try (GlassLedgerClient c = client(s, "grow-" + value + ".json")) {
            for (int i = 0; i < n; i++) {
                int k = i;
                c.runTransaction(t -> t.put("shared", value + k));
            }
        }
    }

    @Test
    void fileBehindTheProcess_onAnotherBranch_isAFork() throws Exception {
        grow(a, "A", 1);
        grow(b, "B", 4);  // the second process's branch is longer: it would overwrite the file
        assertForkReported();
    }

    @Test
    void fileAheadOfTheProcess_onAnotherBranch_isAFork() throws Exception {
        grow(a, "A", 4);
        grow(b, "B", 1);  // the file will be ahead: the second process would keep its own trust in memory
        assertForkReported();
    }

    private void assertForkReported() throws Exception {
        TrustedState common = TrustedState.load(state);
        LyingProxy toB = keep(new LyingProxy(b.dataDir.resolve("tls"), b.url()));
        CountDownLatch arrived = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        toB.intercept = (path, req) -> {
            if (path.equals("/v1/proofs/keys")) {
                arrived.countDown();
                if (!go.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("never let go");
                }
            }
            return null;
        };
        Process second = cli(toB.url(), "get", "shared");
        // The second process has read the state file and asked for its proof: now the first one runs to the end.
        assertTrue(arrived.await(60, TimeUnit.SECONDS), "the second process never asked: " + output(second));
        Process first = cli(a.url(), "get", "shared");
        assertTrue(first.waitFor(60, TimeUnit.SECONDS));
        String firstOut = output(first);
        assertEquals(0, first.exitValue(), firstOut);
        TrustedState afterFirst = TrustedState.load(state);
        assertTrue(afterFirst.digest().blockNo() > common.digest().blockNo(), "the first moved the file");
        go.countDown();

        assertTrue(second.waitFor(60, TimeUnit.SECONDS));
        String secondOut = output(second);
        assertEquals(3, second.exitValue(), secondOut);  // Exit.VIOLATION
        assertTrue(secondOut.contains("INTEGRITY VIOLATION (FORK)"), secondOut);
        assertEquals(afterFirst, TrustedState.load(state), "the file keeps the first process's trust");
    }

    /** Starts {@code ledger-cli} in a JVM of its own, with the shared state and key files. */
    Process cli(String url, String... command) throws IOException {
        List<String> cmd = new ArrayList<>(ExecJar.cliCommand("--url", url, "--api-key", a.apiKey("default"), "--pin",
                a.fingerprint(), "--key-file", keyFile.toString(), "--state", state.toString()));
        cmd.addAll(List.of(command));
        Path log = Files.createTempFile(dir, "cli-", ".log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        logs.put(p, log);
        return p;
    }

    final java.util.Map<Process, Path> logs = new java.util.concurrent.ConcurrentHashMap<>();

    String output(Process p) throws IOException {
        return Files.readString(logs.get(p), StandardCharsets.UTF_8);
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path q = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(q);
                } else if (!p.getFileName().toString().equals("LOCK")) {
                    Files.copy(p, q);
                }
            }
        }
    }
}
