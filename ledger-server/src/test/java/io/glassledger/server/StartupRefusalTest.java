package io.glassledger.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.api.contract.StartupRefusal;
import io.glassledger.core.store.RocksDbNodeStore;
import io.glassledger.core.store.StoreBatch;
import io.glassledger.verify.block.Block;
import io.glassledger.verify.format.Format;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** A start that cannot do what was asked stops at once with a short report and a distinct exit status. */
@ExtendWith(OutputCaptureExtension.class)
class StartupRefusalTest {
    @TempDir
    Path tmp;

    @Test
    void start_misspeltProperty_isRefusedNamingItAndTheNearestKnownOne(CapturedOutput out) {
        Path meant = tmp.resolve("meant");
        RuntimeException x = assertThrows(RuntimeException.class,
                () -> new TestServer(tmp.resolve("data"), "--glassledger.data-dri=" + meant));
        StartupRefusal r = StartupRefusal.in(x);
        assertNotNull(r, "not a refusal: " + x);
        assertEquals(StartupRefusal.EXIT_CONFIG, r.exitCode());
        String log = out.getAll();
        assertTrue(log.contains("APPLICATION FAILED TO START"), log);
        assertTrue(log.contains("unknown property glassledger.data-dri (set in the command line); did you mean "
                + "glassledger.data-dir?"), log);
        assertFalse(log.contains("\tat "), "a stack trace was logged: " + log);
        assertFalse(Files.exists(tmp.resolve("data")), "nothing is written before the refusal");
    }

    @Test
    void start_misspeltNestedProperty_isRefusedToo(CapturedOutput out) {
        RuntimeException x = assertThrows(RuntimeException.class,
                () -> new TestServer(tmp.resolve("data"), "--glassledger.limits.max-value-byte=10"));
        assertNotNull(StartupRefusal.in(x), "not a refusal: " + x);
        assertTrue(out.getAll().contains("unknown property glassledger.limits.max-value-byte (set in the command "
                + "line); did you mean glassledger.limits.max-value-bytes?"), out.getAll());
    }

    @Test
    void start_everyKnownPropertyAndListElements_areAccepted() {
        // list elements (peers[0]) and nested records bind as before
        try (TestServer s = new TestServer(tmp.resolve("data"), "--glassledger.limits.max-value-bytes=1000",
                "--glassledger.connections.max-streams=10", "--glassledger.cluster.peers=")) {
            assertTrue(s.port() > 0);
        }
    }

    @Test
    void secondServer_onTheSameDataDir_exitsNamingThePidHoldingIt() throws Exception {
        Path data = tmp.resolve("data");
        try (TestServer first = new TestServer(data)) {
            Exit second = startAndAwaitExit(data, tmp.resolve("second.log"));
            assertEquals(StartupRefusal.EXIT_IN_USE, second.status(), second.text());
            assertTrue(second.text().contains("data directory " + data.toAbsolutePath() + " in use by PID "
                    + ProcessHandle.current().pid()), second.text());
            assertShortReport(second.text());
            assertTrue(first.port() > 0);
        }
        // released at close: the directory can be used again at once
        new TestServer(data).close();
    }

    /**
     * A data directory of the previous format (its genesis block says {@code glassledger/3}) is refused before
     * anything reads it: the report names both formats and what to do, the exit status is EX_DATAERR, and the
     * directory is left as it was (a replicated shard must not take it for damage and set it aside).
     */
    @Test
    void dataDirectory_ofThePreviousFormat_isRefusedNamingBothFormats() throws Exception {
        Path data = tmp.resolve("old");
        Path ledgerDir = data.resolve("shard-0").resolve("ledger");
        // What a glassledger/3 release wrote as block 0: its format string and its DEFAULT tree parameters
        // (leafTargetBytes 4096, leafMaxBytes 32768, fanout 64 and 512), FORMAT.md §6.2 of that release.
        TreeMap<String, Bytes> meta = new TreeMap<>();
        meta.put("format", Bytes.utf8("glassledger/3"));
        meta.put("hash", Bytes.utf8("SHA-256"));
        meta.put("tree", Bytes.fromHex("8020808002408004"));
        byte[] oldGenesis = new Block(0, 1_700_000_000_000L, Hash.ZERO, List.of(), meta).encode();
        Files.createDirectories(ledgerDir);
        try (RocksDbNodeStore store = new RocksDbNodeStore(ledgerDir)) {
            store.write(new StoreBatch().putBlock(0, oldGenesis));
        }
        Exit start = startAndAwaitExit(data, tmp.resolve("old.log"));
        assertEquals(StartupRefusal.EXIT_DATA_FORMAT, start.status(), start.text());
        assertTrue(start.text().contains("\"glassledger/3\"") && start.text().contains(Format.ID), start.text());
        assertTrue(start.text().contains("new, empty data directory"), start.text());
        assertShortReport(start.text());
        try (Stream<Path> files = Files.list(data)) {
            // Only the lock, taken before the check: no keys, credentials or TLS files written into it.
            assertEquals(List.of("glassledger.lock", "shard-0"), files.map(p -> p.getFileName().toString()).sorted()
                    .toList());
        }
        try (RocksDbNodeStore store = new RocksDbNodeStore(ledgerDir)) {
            assertArrayEquals(oldGenesis, store.block(0), "the refused directory is left as it was");
        }
    }

    private record Exit(int status, String text) {
    }

    /** Starts a server process on {@code data} and waits for it to exit (it must refuse to start). */
    private static Exit startAndAwaitExit(Path data, Path log) throws Exception {
        Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                GlassLedgerServer.class.getName(), "--server.port=0", "--glassledger.data-dir=" + data))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError("the server did not exit: " + Files.readString(log));
        }
        return new Exit(p.exitValue(), Files.readString(log));
    }

    private static void assertShortReport(String text) {
        assertFalse(text.contains("\tat "), "a stack trace was logged: " + text);
        assertTrue(text.lines().count() < 20, "a short report: " + text);
    }
}
