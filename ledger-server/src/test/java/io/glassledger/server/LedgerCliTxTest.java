package io.glassledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.glassledger.client.ClientConfig;
import io.glassledger.client.GlassLedgerClient;
import io.glassledger.client.cli.LedgerCli;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ledger-cli tx} against a real server in this JVM (issue 34, item 6): several operations in one verified
 * transaction, from the command line, a JSON file or stdin; a get after a write of its key; deletes; {@code --json};
 * a conflict, retried or not. Across shards: {@code CrossShardTest#cliTx_acrossBothShards_everyPartVerified}. The
 * file's usage errors, which need no server: {@code client-sdk}'s {@code LedgerCliTxParseTest}.
 */
class LedgerCliTxTest {
    static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    static Path dir;
    static TestServer server;

    String out;
    String err;

    @BeforeAll
    static void start() {
        server = new TestServer(dir.resolve("data"));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** The CLI at {@code url} as identity {@code default}, with the test's key and state files. */
    int at(String url, InputStream stdin, String... args) {
        List<String> all = new ArrayList<>(List.of("--url", url, "--pin", server.fingerprint(), "--api-key",
                server.apiKey("default"), "--key-file", dir.resolve("default.key").toString(), "--state",
                dir.resolve("default-state.json").toString()));
        all.addAll(List.of(args));
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int rc = LedgerCli.run(all.toArray(String[]::new), new PrintStream(o, true, StandardCharsets.UTF_8),
                new PrintStream(e, true, StandardCharsets.UTF_8), stdin, Map.of());
        out = o.toString(StandardCharsets.UTF_8);
        err = e.toString(StandardCharsets.UTF_8);
        return rc;
    }

    int run(String... args) {
        return at(server.url(), InputStream.nullInputStream(), args);
    }

    JsonNode json() {
        try {
            return JSON.readTree(out);
        } catch (java.io.IOException e) {
            throw new AssertionError("not JSON: " + out, e);
        }
    }

    @Test
    void tx_severalPuts_commitInOneBlock_andReadBackVerified() {
        assertEquals(0, run("tx", "put", "m/a", "1", "put", "m/b", "2", "put", "m/c", "3"), err);
        assertTrue(out.startsWith("committed promise: tx "), out);
        assertTrue(out.contains("verified tx ") && out.contains(": 3 writes, 0 reads"), out);

        assertEquals(0, run("--json", "tx", "get", "m/a", "get", "m/b", "get", "m/c", "get", "m/none"), err);
        JsonNode j = json();
        assertEquals(List.of("m/a=1", "m/b=2", "m/c=3", "m/none=null"), reads(j));
        assertEquals(4, j.get("readsChecked").asInt(), out);
        assertEquals(0, j.get("writesChecked").asInt(), out);
        assertEquals(0, j.get("block").asLong(), "a read-only transaction lands in no block: " + out);
        assertTrue(j.get("parts").get(0).get("readOnly").asBoolean(), out);
        assertTrue(j.get("verifiedAt").get("hash").asText().matches("[0-9a-f]{64}"), out);
        assertEquals(0, run("get", "m/b"), err);
        assertTrue(out.startsWith("2\n"), out);
    }

    @Test
    void tx_getThenPutThenGet_readsTheOldValueThenItsOwnWrite() {
        assertEquals(0, run("put", "g/k", "old"), err);
        assertEquals(0, run("tx", "get", "g/k", "put", "g/k", "new", "get", "g/k"), err);
        List<String> lines = out.lines().toList();
        assertEquals("g/k = old", lines.get(1), out);
        assertEquals("g/k = new  (this transaction's own write)", lines.get(2), out);
        assertTrue(lines.get(3).startsWith("verified tx ") && lines.get(3).contains("1 writes, 1 reads"), out);
        assertEquals(0, run("get", "g/k"), err);
        assertTrue(out.startsWith("new\n"), out);
    }

    @Test
    void tx_delete_removesTheKey_andAGetAfterItInTheTransactionIsAbsent() {
        assertEquals(0, run("tx", "put", "d/a", "x", "put", "d/b", "y"), err);
        assertEquals(0, run("--json", "tx", "del", "d/a", "get", "d/a", "delete", "d/b", "get", "d/c"), err);
        JsonNode j = json();
        assertEquals(List.of("d/a=null", "d/c=null"), reads(j));
        assertTrue(j.get("reads").get(0).get("ownWrite").asBoolean(), out);
        assertFalse(j.get("reads").get(1).get("ownWrite").asBoolean(), out);
        assertEquals(2, j.get("writesChecked").asInt(), out);
        assertTrue(j.get("block").asLong() > 0, out);
        assertEquals(0, run("get", "d/a"), err);
        assertTrue(out.startsWith("(absent)"), out);
        assertEquals(0, run("history", "d/b"), err);
        assertTrue(out.contains("(deleted)"), out);
    }

    @Test
    void tx_fromAFileAndFromStdin_withBase64KeysAndValues_jsonOutputParses() throws Exception {
        byte[] binKey = {0, (byte) 0xff, 0x10, 'k'};
        byte[] binValue = {1, 2, 3, 0, (byte) 0x80};
        String k64 = Base64.getEncoder().encodeToString(binKey);
        String v64 = Base64.getEncoder().encodeToString(binValue);
        Path ops = dir.resolve("ops.json");
        Files.writeString(ops, "{\"ops\": [{\"op\": \"put\", \"keyBase64\": \"" + k64 + "\", \"valueBase64\": \""
                + v64 + "\"}, {\"op\": \"put\", \"key\": \"f/text\", \"value\": \"héllo\"}, {\"op\": \"get\", "
                + "\"key\": \"f/text\"}]}");
        assertEquals(0, run("--json", "tx", "--file", ops.toString()), err);
        JsonNode j = json();
        assertEquals(List.of("f/text=héllo"), reads(j));
        assertEquals(1, j.get("attempts").asInt(), out);
        assertFalse(j.get("crossShard").asBoolean(), out);
        assertEquals(1, j.get("parts").size(), out);
        assertEquals(j.get("block").asLong(), j.get("parts").get(0).get("block").asLong(), out);
        assertTrue(j.get("txId").asText().matches("[0-9a-f]+"), out);

        String read = "{\"ops\": [{\"op\": \"get\", \"keyBase64\": \"" + k64 + "\"}]}";
        assertEquals(0, at(server.url(), new ByteArrayInputStream(read.getBytes(StandardCharsets.UTF_8)), "--json",
                "tx", "--file", "-"), err);
        JsonNode r = json().get("reads").get(0);
        assertEquals("base64:" + k64, r.get("key").asText(), out);
        assertEquals("base64:" + v64, r.get("value").asText(), out);
    }

    @Test
    void tx_badOperations_exit2_inTwoLines_nothingCommitted() throws Exception {
        assertEquals(2, run("tx", "put", "bad/a", "1", "merge", "bad/b"));
        assertTrue(err.contains("unknown operation \"merge\" (operation 2)"), err);
        assertTrue(err.lines().count() <= 2 && !err.contains("Exception"), err);
        Path broken = dir.resolve("broken.json");
        Files.writeString(broken, "{\"ops\": [{\"op\": \"put\", \"key\": \"bad/a\", \"value\": \"1\"},]");
        assertEquals(2, run("tx", "--file", broken.toString()));
        assertTrue(err.startsWith("ledger-cli: " + broken + ": not valid JSON at line 1"), err);
        assertTrue(err.lines().count() <= 2 && !err.contains("Exception"), err);
        assertEquals(0, run("get", "bad/a"), err);
        assertTrue(out.startsWith("(absent)"), out);
    }

    /**
     * A proxy in front of the server lets another client write the key the transaction read just before its commit
     * goes through: a conflict, each time or only the first time.
     */
    @Test
    void tx_conflict_isRetriedWithFreshReads_orExits5WithoutRetries() throws Exception {
        assertEquals(0, run("put", "c/hot", "0"), err);
        AtomicInteger interfere = new AtomicInteger();
        AtomicInteger written = new AtomicInteger();
        try (GlassLedgerClient other = GlassLedgerClient.connect(ClientConfig.builder().url(server.url())
                .pinnedCertSha256(server.fingerprint()).apiKey(server.apiKey("default"))
                .keyFile(dir.resolve("default.key")).stateFile(dir.resolve("other-state.json")).build());
             LyingProxy proxy = new LyingProxy(server.dataDir.resolve("tls"), server.url())) {
            proxy.intercept = (path, body) -> {
                if (path.equals("/v1/tx/commit") && interfere.getAndDecrement() > 0) {
                    String v = "other-" + written.incrementAndGet();
                    other.runTransaction(t -> t.put("c/hot", v));
                }
                return null;  // then forward the commit
            };
            interfere.set(Integer.MAX_VALUE);
            assertEquals(5, at(proxy.url(), InputStream.nullInputStream(), "tx", "get", "c/hot", "put", "c/cold",
                    "1", "--retries", "0"));
            assertTrue(err.contains("conflict (HTTP 409)") && err.contains("run it again"), err);
            assertTrue(err.lines().count() <= 2, err);
            assertEquals(1, written.get(), "one attempt, not retried");

            interfere.set(1);
            assertEquals(0, at(proxy.url(), InputStream.nullInputStream(), "--json", "tx", "get", "c/hot", "put",
                    "c/cold", "2"), err);
            JsonNode j = json();
            assertEquals(2, j.get("attempts").asInt(), out);
            assertEquals(List.of("c/hot=other-2"), reads(j), "the value read by the attempt that committed");
        }
        assertEquals(0, run("get", "c/cold"), err);
        assertTrue(out.startsWith("2\n"), out);
    }

    /** The reads of a {@code --json} answer as {@code key=value}. */
    static List<String> reads(JsonNode j) {
        List<String> r = new ArrayList<>();
        j.get("reads").forEach(x -> r.add(x.get("key").asText() + "=" + (x.get("value").isNull() ? "null"
                : x.get("value").asText())));
        return r;
    }
}
