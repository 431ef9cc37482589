package io.glassledger.client.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.hash.Bytes;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ledger-cli tx}'s operations ({@link TxOps}), from words and from a JSON file, and what a bad one says: exit 2
 * in two lines (the reason, then where help is), no stack trace, before any connection (no server here: the URL
 * points nowhere). Against a server: LedgerCliTxTest in ledger-server.
 */
class LedgerCliTxParseTest {
    @TempDir
    Path dir;
    String out;
    String err;

    int cli(InputStream stdin, String... args) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        List<String> all = new java.util.ArrayList<>(List.of("--url", "https://127.0.0.1:1", "--api-key",
                "gl_unused", "--key-file", dir.resolve("client.key").toString(), "--state",
                dir.resolve("state.json").toString()));
        all.addAll(List.of(args));
        int rc = LedgerCli.run(all.toArray(String[]::new), new PrintStream(o, true, StandardCharsets.UTF_8),
                new PrintStream(e, true, StandardCharsets.UTF_8), stdin, Map.of());
        out = o.toString(StandardCharsets.UTF_8);
        err = e.toString(StandardCharsets.UTF_8);
        return rc;
    }

    int cli(String... args) {
        return cli(InputStream.nullInputStream(), args);
    }

    /** {@code tx --file} over a file holding {@code json}: the exit status, the message in {@link #err}. */
    int file(String json) throws Exception {
        Path f = dir.resolve("ops.json");
        Files.writeString(f, json);
        return cli("tx", "--file", f.toString());
    }

    void assertUsage(String expected) {
        assertTrue(err.startsWith("ledger-cli: ") && err.contains(expected), err);
        assertEquals(2, err.lines().count(), err);
        assertTrue(err.lines().toList().get(1).contains("--help"), err);
        assertFalse(err.contains("Exception") || err.contains("\tat "), err);
        assertEquals("", out);
    }

    @Test
    void words_inOrder_getPutDeleteAndDel() {
        List<TxOps.Op> ops = TxOps.fromWords(List.of("get", "a", "put", "b", "v w", "delete", "c", "del", "put"));
        assertEquals(List.of(TxOps.Kind.GET, TxOps.Kind.PUT, TxOps.Kind.DELETE, TxOps.Kind.DELETE),
                ops.stream().map(TxOps.Op::kind).toList());
        assertEquals(List.of("a", "b", "c", "put"), ops.stream().map(o -> o.key().utf8String()).toList());
        assertEquals("v w", ops.get(1).value().utf8String());
        assertNull(ops.get(0).value());
    }

    @Test
    void json_textAndBase64KeysAndValues() {
        List<TxOps.Op> ops = TxOps.fromJson(("{\"ops\": [{\"op\": \"put\", \"keyBase64\": \"AP8=\", \"valueBase64\": "
                + "\"AQID\"}, {\"op\": \"get\", \"key\": \"é\"}, {\"op\": \"delete\", \"key\": \"c\"}]}")
                .getBytes(StandardCharsets.UTF_8), "f");
        assertEquals(Bytes.of(new byte[] {0, (byte) 0xff}), ops.get(0).key());
        assertEquals(Bytes.of(new byte[] {1, 2, 3}), ops.get(0).value());
        assertEquals(Bytes.utf8("é"), ops.get(1).key());
        assertEquals(TxOps.Kind.DELETE, ops.get(2).kind());
    }

    /** README.md's example file, in its {@code ledger-cli} section, is one {@code tx --file} accepts. */
    @Test
    void readmeExampleFile_parses() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        String section = readme.substring(readme.indexOf("## Use it from a shell: `ledger-cli`"));
        int from = section.indexOf("```json\n") + "```json\n".length();
        List<TxOps.Op> ops = TxOps.fromJson(section.substring(from, section.indexOf("```", from))
                .getBytes(StandardCharsets.UTF_8), "README.md");
        assertEquals(List.of(TxOps.Kind.GET, TxOps.Kind.PUT, TxOps.Kind.PUT, TxOps.Kind.DELETE),
                ops.stream().map(TxOps.Op::kind).toList());
        assertEquals(Bytes.of(new byte[] {0, (byte) 0xff, 0x10}), ops.get(2).key());
    }

    @Test
    void badWords_exit2() {
        assertEquals(2, cli("tx"));
        assertUsage("tx needs at least one operation");
        assertEquals(2, cli("tx", "put", "a", "1", "merge", "b"));
        assertUsage("unknown operation \"merge\" (operation 2): expected get KEY, put KEY VALUE or delete KEY");
        assertEquals(2, cli("tx", "get", "a", "put", "b"));
        assertUsage("tx: put needs KEY VALUE (operation 2)");
        assertEquals(2, cli("tx", "get", ""));
        assertUsage("tx operation 1: a key is 1..1024 bytes");
        assertEquals(2, cli("tx", "get", "a", "--retries", "x"));
        assertUsage("--retries needs a number");
    }

    @Test
    void malformedJson_exit2_namingTheFileAndWhere() throws Exception {
        assertEquals(2, file("{\"ops\": [{\"op\": \"get\", \"key\": \"a\"}"));
        assertUsage("ops.json: not valid JSON at line 1, column ");
        assertEquals(2, file("{\"ops\": [\n{\"op\": \"get\" \"key\": \"a\"}]}"));
        assertUsage("ops.json: not valid JSON at line 2");
        assertEquals(2, file("{\"ops\": []} trailing"));
        assertUsage("not valid JSON");
        assertEquals(2, file("{\"ops\": [{\"op\": \"get\", \"key\": \"a\", \"key\": \"b\"}]}"));
        assertUsage("Duplicate field 'key'");
        assertEquals(2, file(""));
        assertUsage("expected {\"ops\": [...]}");
    }

    @Test
    void wrongShape_exit2_namingTheOperation() throws Exception {
        assertEquals(2, file("[{\"op\": \"get\", \"key\": \"a\"}]"));
        assertUsage("expected {\"ops\": [...]}");
        assertEquals(2, file("{\"ops\": [], \"atomic\": true}"));
        assertUsage("expected {\"ops\": [...]}");
        assertEquals(2, file("{\"ops\": []}"));
        assertUsage("tx needs at least one operation");
        assertEquals(2, file("{\"ops\": [{\"op\": \"get\", \"key\": \"a\"}, {\"op\": \"merge\", \"key\": \"b\"}]}"));
        assertUsage("ops[1]: \"op\" must be \"get\", \"put\" or \"delete\", got \"merge\"");
        assertEquals(2, file("{\"ops\": [{\"key\": \"a\"}]}"));
        assertUsage("ops[0]: \"op\" must be \"get\", \"put\" or \"delete\", missing");
        assertEquals(2, file("{\"ops\": [{\"op\": \"put\", \"key\": \"a\", \"vaule\": \"1\"}]}"));
        assertUsage("ops[0]: unknown field \"vaule\"");
        assertEquals(2, file("{\"ops\": [{\"op\": \"put\", \"key\": \"a\"}]}"));
        assertUsage("ops[0]: a put needs \"value\" or \"valueBase64\"");
        assertEquals(2, file("{\"ops\": [{\"op\": \"get\", \"key\": \"a\", \"value\": \"1\"}]}"));
        assertUsage("ops[0]: a get takes no value");
        assertEquals(2, file("{\"ops\": [{\"op\": \"get\", \"key\": \"a\", \"keyBase64\": \"YQ==\"}]}"));
        assertUsage("ops[0]: give \"key\" or \"keyBase64\", not both");
        assertEquals(2, file("{\"ops\": [{\"op\": \"get\", \"keyBase64\": \"not base64!\"}]}"));
        assertUsage("ops[0]: \"keyBase64\" is not base64");
        assertEquals(2, file("{\"ops\": [{\"op\": \"get\", \"key\": 7}]}"));
        assertUsage("ops[0]: \"key\" must be a string");
        assertEquals(2, file("{\"ops\": [{\"op\": \"get\"}]}"));
        assertUsage("ops[0]: \"key\" or \"keyBase64\" is missing");
        assertEquals(2, file("{\"ops\": [\"get a\"]}"));
        assertUsage("ops[0] is not an object");
    }

    @Test
    void fileSources_missingFile_wordsBesideAFile_stdin() throws Exception {
        assertEquals(2, cli("tx", "--file", dir.resolve("missing.json").toString()));
        assertUsage("missing.json: no such file");
        Path f = dir.resolve("one.json");
        Files.writeString(f, "{\"ops\": [{\"op\": \"get\", \"key\": \"a\"}]}");
        assertEquals(2, cli("tx", "get", "b", "--file", f.toString()));
        assertUsage("tx --file takes no operations on the command line as well");
        assertEquals(2, cli(new ByteArrayInputStream("{\"ops\": 1}".getBytes(StandardCharsets.UTF_8)), "tx",
                "--file", "-"));
        assertUsage("stdin: expected {\"ops\": [...]}");
    }

    @Test
    void aValidTransaction_getsAsFarAsConnecting() {
        // Parsed fine, so the next refusal is the settings' (no API key), which come only when connecting.
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int rc = LedgerCli.run(new String[] {"--url", "https://127.0.0.1:1", "--key-file",
            dir.resolve("client.key").toString(), "--state", dir.resolve("state.json").toString(), "tx", "get", "a",
            "put", "b", "1"},
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(e, true, StandardCharsets.UTF_8), Map.of());
        assertEquals(2, rc);
        assertTrue(e.toString(StandardCharsets.UTF_8).startsWith("ledger-cli: no API key"), e.toString());
    }

    /** Hard to provoke against servers (a prepare timeout at the primary); its wording and status are Failures'. */
    @Test
    void anAbortedCrossShardTransaction_isARefusal_exit5() {
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        Context cx = new Context(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(e, true, StandardCharsets.UTF_8), InputStream.nullInputStream(), Map.of(),
                Args.parse(new String[] {"tx", "get", "a"}));
        int status = new Failures(cx).report(new io.glassledger.client.GlassLedgerException(
                io.glassledger.client.GlassLedgerException.ABORTED, 0, true, "transaction 00ab was aborted by its "
                + "primary shard 1 (prepare timed out)"));
        assertEquals(Exit.REFUSED, status);
        String said = e.toString(StandardCharsets.UTF_8);
        assertTrue(said.startsWith("aborted: transaction 00ab was aborted by its primary shard 1 (prepare timed out)")
                && said.contains("nothing of it was applied; retryable"), said);
        assertEquals(2, said.lines().count(), said);
    }

    @Test
    void tooManyOperations_areRefusedBeforeSending() {
        String[] words = new String[2 * (io.glassledger.verify.txn.Transaction.MAX_OPS + 1)];
        for (int i = 0; i < words.length; i += 2) {
            words[i] = "get";
            words[i + 1] = "k" + i;
        }
        List<String> all = new java.util.ArrayList<>(List.of("tx"));
        all.addAll(List.of(words));
        assertEquals(2, cli(all.toArray(String[]::new)));
        assertUsage("over a transaction's " + io.glassledger.verify.txn.Transaction.MAX_OPS);
        assertThrows(Usage.class, () -> TxOps.fromWords(List.of("put", "k")));
    }
}
