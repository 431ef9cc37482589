package io.glassledger.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.glassledger.client.cli.LedgerCli;
import io.glassledger.server.testing.ExecJar;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ledger-cli} against a real server in this JVM (issue 17): values from files and stdin, {@code get --out},
 * {@code scan} and {@code delete}; identities through {@code admin}; what every refusal says and its exit status;
 * environment variables that contradict a cluster file. The CLI runs in process ({@link LedgerCli#run}) with an
 * empty environment unless a test gives one, and always with its own key and state files.
 */
class LedgerCliTest {
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

    int cli(Map<String, String> env, InputStream stdin, String... args) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int rc = LedgerCli.run(args, new PrintStream(o, true, StandardCharsets.UTF_8),
                new PrintStream(e, true, StandardCharsets.UTF_8), stdin, env);
        out = o.toString(StandardCharsets.UTF_8);
        err = e.toString(StandardCharsets.UTF_8);
        return rc;
    }

    /** The CLI connected to {@link #server} as identity {@code default}, with the test's key and state files. */
    int run(String... args) {
        return runIn(null, args);
    }

    int runIn(InputStream stdin, String... args) {
        List<String> all = new ArrayList<>(List.of("--url", server.url(), "--pin", server.fingerprint(), "--api-key",
                server.apiKey("default"), "--key-file", dir.resolve("default.key").toString(), "--state",
                dir.resolve("default-state.json").toString()));
        all.addAll(List.of(args));
        return cli(Map.of(), stdin == null ? InputStream.nullInputStream() : stdin, all.toArray(String[]::new));
    }

    static byte[] randomBytes(int n) {
        long seed = System.nanoTime();
        System.out.println("LedgerCliTest random value seed " + seed);
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    static int lines(String s) {
        return (int) s.lines().filter(l -> !l.isBlank()).count();
    }

    // ------------------------------------------------------------------ item 5: real values

    @Test
    void put_valueOver128KiB_fromFileAndFromStdin_getOutReturnsTheSameBytes() throws IOException {
        byte[] value = randomBytes(300 * 1024);
        Path in = dir.resolve("big.bin");
        Files.write(in, value);
        assertEquals(0, run("put", "big-file", "--file", in.toString()), err);
        assertTrue(out.contains(value.length + " bytes"), out);
        Path got = dir.resolve("big-file.out");
        assertEquals(0, run("get", "big-file", "--out", got.toString()), err);
        assertArrayEquals(value, Files.readAllBytes(got));
        assertTrue(out.contains("wrote " + value.length + " bytes") && out.contains("verified"), out);

        byte[] other = randomBytes(200 * 1024 + 7);
        assertEquals(0, runIn(new ByteArrayInputStream(other), "put", "big-stdin", "-"), err);
        Path got2 = dir.resolve("big-stdin.out");
        assertEquals(0, run("get", "big-stdin", "--out", got2.toString()), err);
        assertArrayEquals(other, Files.readAllBytes(got2));
    }

    @Test
    void put_dash_readsStdin_notALiteralDash() {
        assertEquals(0, runIn(new ByteArrayInputStream("from stdin".getBytes(StandardCharsets.UTF_8)), "put",
                "dash", "-"), err);
        assertEquals(0, run("get", "dash"), err);
        assertTrue(out.startsWith("from stdin\n"), out);
    }

    @Test
    void put_overTheLimit_isRefusedWithTheLimit_nothingSent() throws IOException {
        byte[] huge = new byte[(1 << 20) + 1];
        assertEquals(2, runIn(new ByteArrayInputStream(huge), "put", "huge", "-"));
        assertTrue(err.contains("over 1048576 bytes") && err.contains("stdin"), err);
        assertTrue(lines(err) <= 2, err);
        Path f = dir.resolve("huge.bin");
        Files.write(f, huge);
        assertEquals(2, run("put", "huge", "--file", f.toString()));
        assertTrue(err.contains("over 1048576 bytes") && err.contains(f.toString()), err);
        assertEquals(2, run("put", "huge", "--file", dir.resolve("missing.bin").toString()));
        assertTrue(err.contains("no such file"), err);
        assertEquals(0, run("get", "huge"), err);
        assertTrue(out.startsWith("(absent)"), out);
    }

    @Test
    void delete_thenGetIsAbsent_getOutOfAbsentExits1() {
        assertEquals(0, run("put", "doomed", "x"), err);
        assertEquals(0, run("delete", "doomed"), err);
        assertEquals(0, run("get", "doomed"), err);
        assertTrue(out.startsWith("(absent)"), out);
        Path f = dir.resolve("doomed.out");
        assertEquals(1, run("get", "doomed", "--out", f.toString()));
        assertTrue(err.contains("absent") && err.contains("nothing written"), err);
        assertFalse(Files.exists(f));
        assertEquals(0, run("history", "doomed"), err);
        assertTrue(out.contains("(deleted)"), out);
    }

    @Test
    void scan_listsTheLiveKeysOfTheRange_eachValueVerified() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertEquals(0, run("put", "scan/" + i, "v" + i), err);
        }
        assertEquals(0, run("delete", "scan/2"), err);
        assertEquals(0, run("scan", "scan/", "scan0"), err);
        assertEquals(List.of("scan/0 = v0", "scan/1 = v1", "scan/3 = v3", "scan/4 = v4"),
                out.lines().limit(4).toList(), out);
        assertTrue(out.contains("4 key(s); each value verified") && out.contains("not provable"), out);

        assertEquals(0, run("--json", "scan", "scan/", "scan0", "--limit", "2"), err);
        JsonNode j = JSON.readTree(out);
        assertEquals(2, j.get("items").size(), out);
        assertEquals("scan/1", j.get("items").get(1).get("key").asText());
        assertTrue(j.get("more").asBoolean(), out);
        assertTrue(j.get("valuesVerified").asBoolean());
        assertFalse(j.get("completenessVerified").asBoolean());
        // A long value is shown by its start in a listing.
        assertEquals(0, run("put", "scan/long", "x".repeat(5000)), err);
        assertEquals(0, run("scan", "scan/l", "scan/m"), err);
        assertTrue(out.startsWith("scan/long = " + "x".repeat(100) + "... (5000 bytes; get KEY --out FILE"), out);
        assertEquals(2, run("scan", "a", "b", "c"));
        assertEquals(2, run("scan", "--limit", "0"));
    }

    // ------------------------------------------------------------------ item 4: errors and exit codes

    @Test
    void noPin_saysToPassThePin_exit4() {
        assertEquals(4, cli(Map.of(), InputStream.nullInputStream(), "--url", server.url(), "--api-key",
                server.apiKey("default"), "--key-file", dir.resolve("nopin.key").toString(), "--state",
                dir.resolve("nopin.json").toString(), "get", "k"));
        assertTrue(err.contains("--pin") && err.contains("GLASSLEDGER_PIN") && err.contains(server.url())
                && err.contains("pin.txt"), err);
        assertTrue(err.contains("--cluster") && err.endsWith(".\n"), "the advice is whole: " + err);
        assertFalse(err.contains("PKIX") || err.contains("sun.security") || err.contains("Exception"), err);
        assertTrue(lines(err) <= 3, err);
    }

    /**
     * As a user runs it, in a process of its own (issue 34): a failed TLS handshake leaves only the CLI's own lines on
     * stderr, none of the transport's log lines or stack traces; {@code --debug} shows those and the cause chain.
     */
    @Test
    void noPin_inItsOwnProcess_stderrHoldsTheAdviceAlone_debugAddsTheTransportsLines() throws Exception {
        for (boolean debug : new boolean[] {false, true}) {
            List<String> args = new ArrayList<>(List.of("--url", server.url(), "--api-key", server.apiKey("default"),
                    "--key-file", dir.resolve("nopin-process.key").toString(), "--state",
                    dir.resolve("nopin-process.json").toString()));
            if (debug) {
                args.add("--debug");
            }
            args.addAll(List.of("get", "k"));
            Path log = dir.resolve("nopin-process-" + debug + ".err");
            Process p = new ProcessBuilder(ExecJar.cliCommand(args.toArray(String[]::new)))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(log.toFile()).start();
            assertTrue(p.waitFor(2, TimeUnit.MINUTES), "ledger-cli did not exit");
            String stderr = Files.readString(log, StandardCharsets.UTF_8);
            assertEquals(4, p.exitValue(), stderr);
            String advice = "error: the TLS certificate of " + server.url() + " is not trusted";
            if (debug) {
                assertTrue(stderr.contains(advice) && stderr.contains("The connection observed an error")
                        && stderr.contains("--debug: the failure's cause chain") && stderr.contains("\tat "), stderr);
            } else {
                assertTrue(stderr.startsWith(advice), stderr);
                assertEquals(3, lines(stderr), stderr);
                assertFalse(stderr.contains("WARN") || stderr.contains("\tat ") || stderr.contains("Exception"),
                        stderr);
            }
        }
    }

    @Test
    void wrongPin_saysTheCertificateIsNotThePinnedOne_exit4() {
        String other = "ab".repeat(32);
        assertEquals(4, cli(Map.of("GLASSLEDGER_PIN", other), InputStream.nullInputStream(), "--url", server.url(),
                "--api-key", server.apiKey("default"), "--key-file", dir.resolve("wrongpin.key").toString(),
                "--state", dir.resolve("wrongpin.json").toString(), "get", "k"));
        assertTrue(err.contains("not the pinned one") && err.contains("GLASSLEDGER_PIN"), err);
        assertTrue(lines(err) <= 2, err);
    }

    @Test
    void serverDown_namesTheUrl_exit4() throws IOException {
        int port = io.glassledger.server.testing.TestPorts.port();  // reserved, nothing listens on it
        String url = "https://127.0.0.1:" + port;
        assertEquals(4, cli(Map.of("GLASSLEDGER_URL", url, "GLASSLEDGER_API_KEY", "k"), InputStream.nullInputStream(),
                "--key-file", dir.resolve("down.key").toString(), "--state", dir.resolve("down.json").toString(),
                "digest"));
        assertTrue(err.contains("cannot reach " + url) && err.contains("Is the server running"), err);
        assertFalse(err.contains("java.net"), err);
        assertTrue(lines(err) <= 2, err);
    }

    @Test
    void refusals_exit5_withTheProblemCode() {
        assertEquals(5, cli(Map.of(), InputStream.nullInputStream(), "--url", server.url(), "--pin",
                server.fingerprint(), "--api-key", "gl_not-a-key", "--key-file", dir.resolve("x.key").toString(),
                "--state", dir.resolve("x.json").toString(), "digest"));
        assertTrue(err.startsWith("refused by the server: unauthenticated (HTTP 401)"), err);
        assertTrue(err.contains("--api-key"), err);
        // An auditor key may not write.
        assertEquals(5, cli(Map.of(), InputStream.nullInputStream(), "--url", server.url(), "--pin",
                server.fingerprint(), "--api-key", server.apiKey("auditor"), "--key-file",
                dir.resolve("aud.key").toString(), "--state", dir.resolve("aud.json").toString(), "put", "k", "v"));
        assertTrue(err.contains("forbidden (HTTP 403)"), err);
        // With --json the problem is also data on stdout.
        assertEquals(5, cli(Map.of(), InputStream.nullInputStream(), "--json", "--url", server.url(), "--pin",
                server.fingerprint(), "--api-key", "gl_not-a-key", "--key-file", dir.resolve("x.key").toString(),
                "--state", dir.resolve("x.json").toString(), "digest"));
        try {
            JsonNode j = JSON.readTree(out);
            assertEquals("unauthenticated", j.get("error").asText(), out);
            assertEquals(401, j.get("status").asInt(), out);
        } catch (IOException e) {
            throw new AssertionError(out, e);
        }
    }

    @Test
    void usageErrors_exit2_inTwoLines() {
        assertEquals(2, run("put", "k"));
        assertTrue(lines(err) <= 2 && err.contains("--help"), err);
        assertEquals(2, run("frobnicate"));
        assertEquals(2, run("get", "k", "--bogus"));
        assertEquals(2, cli(Map.of(), InputStream.nullInputStream(), "get", "k"));
        assertTrue(err.contains("no API key"), err);
        assertEquals(0, cli(Map.of(), InputStream.nullInputStream(), "--help"));
        assertTrue(out.contains("exit status: 0 done") && out.contains("3 INTEGRITY VIOLATION"), out);
    }

    static String[] with(String[] conn, String... args) {
        List<String> all = new ArrayList<>(List.of(conn));
        all.addAll(List.of(args));
        return all.toArray(String[]::new);
    }

    // ------------------------------------------------------------------ item 3: environment vs cluster file

    @Test
    void environmentContradictingTheClusterFile_isRefusedNamingBoth_agreeingIsFine() throws IOException {
        Path cluster = dir.resolve("cluster.properties");
        Files.writeString(cluster, "shards=1\nurl.0=" + server.url() + "\npin=" + server.fingerprint() + "\n");
        String otherPin = "cd".repeat(32);
        Map<String, String> env = new HashMap<>(Map.of("GLASSLEDGER_PIN", otherPin, "GLASSLEDGER_API_KEY",
                server.apiKey("default")));
        String[] files = {"--key-file", dir.resolve("default.key").toString(), "--state",
            dir.resolve("cluster-state.json").toString()};
        assertEquals(2, cli(env, InputStream.nullInputStream(), with(files, "--cluster", cluster.toString(), "get",
                "k")));
        assertTrue(err.contains("GLASSLEDGER_PIN (environment)") && err.contains(otherPin)
                && err.contains(cluster.toString()) && err.contains(server.fingerprint()), err);
        assertTrue(lines(err) <= 2, err);

        // The cluster file from the environment, a contradicting --pin flag: refused too.
        env.remove("GLASSLEDGER_PIN");
        env.put("GLASSLEDGER_CLUSTER", cluster.toString());
        assertEquals(2, cli(env, InputStream.nullInputStream(), with(files, "--pin", otherPin, "get", "k")));
        assertTrue(err.contains("--pin is " + otherPin), err);

        // A single server's exported URL beside a cluster file: refused.
        env.put("GLASSLEDGER_URL", "https://127.0.0.1:8443");
        assertEquals(2, cli(env, InputStream.nullInputStream(), with(files, "get", "k")));
        assertTrue(err.contains("GLASSLEDGER_URL (environment)") && err.contains("not one of the shards"), err);

        // Agreeing sources: fine.
        env.put("GLASSLEDGER_URL", server.url());
        env.put("GLASSLEDGER_PIN", server.fingerprint().toUpperCase(java.util.Locale.ROOT));
        assertEquals(0, cli(env, InputStream.nullInputStream(), with(files, "get", "k")), err);
    }

    // ------------------------------------------------------------------ item 1: identities

    @Test
    void admin_createKeyListAndRevoke_newIdentitySignsWithItsOwnKey() throws Exception {
        String[] admin = {"--url", server.url(), "--pin", server.fingerprint(), "--api-key", server.apiKey("admin")};
        assertEquals(0, cli(Map.of(), InputStream.nullInputStream(), with(admin, "admin", "create-key", "alice",
                "--role", "client")), err);
        String aliceKey = out.trim();
        assertTrue(aliceKey.startsWith("gl_"), out);
        assertTrue(err.contains("identity alice (client)") && err.contains("shown once"), err);

        String[] alice = {"--url", server.url(), "--pin", server.fingerprint(), "--api-key", aliceKey, "--key-file",
            dir.resolve("alice.key").toString(), "--state", dir.resolve("alice.json").toString()};
        assertEquals(0, cli(Map.of(), InputStream.nullInputStream(), with(alice, "put", "alice/k", "hers")), err);

        // Another identity may not use alice's signing key: key_in_use, with what to do.
        assertEquals(0, cli(Map.of(), InputStream.nullInputStream(), with(admin, "admin", "create-key", "carol",
                "--role", "client")), err);
        assertEquals(5, cli(Map.of(), InputStream.nullInputStream(), "--url", server.url(), "--pin",
                server.fingerprint(), "--api-key", out.trim(), "--key-file", dir.resolve("alice.key").toString(),
                "--state", dir.resolve("carol.json").toString(), "get", "alice/k"));
        assertTrue(err.contains("key_in_use (HTTP 409)") && err.contains("key file of its own"), err);

        assertEquals(0, cli(Map.of(), InputStream.nullInputStream(), with(admin, "--json", "admin", "list-keys")), err);
        JsonNode list = JSON.readTree(out);
        JsonNode row = null;
        for (JsonNode k : list) {
            if (k.get("clientId").asText().equals("alice")) {
                row = k;
            }
            assertFalse(k.toString().contains("gl_"), "no API key is ever listed: " + k);
        }
        assertTrue(row != null && row.get("publicKey").asText().matches("[0-9a-f]{64}"), out);
        assertEquals(0, cli(Map.of(), InputStream.nullInputStream(), with(admin, "admin", "list-keys")), err);
        assertTrue(out.contains(row.get("keyId").asText() + "  alice"), out);

        assertEquals(0, cli(Map.of(), InputStream.nullInputStream(), with(admin, "admin", "revoke-key",
                row.get("keyId").asText())), err);
        assertTrue(out.contains("revoked API key " + row.get("keyId").asText() + " of alice"), out);
        assertEquals(5, cli(Map.of(), InputStream.nullInputStream(), with(alice, "put", "alice/k", "again")));
        assertTrue(err.contains("unauthenticated"), err);
        assertEquals(5, cli(Map.of(), InputStream.nullInputStream(), with(admin, "admin", "revoke-key",
                row.get("keyId").asText())));
        assertTrue(err.contains("unknown_api_key"), err);

        // The identity's signing key stays registered (auditors check old signatures against it: GET /v1/clients).
        assertEquals(row.get("publicKey").asText(),
                server.bean(io.glassledger.server.auth.AuthStore.class).clientKeys().get("alice").hex());
        assertEquals(2, cli(Map.of(), InputStream.nullInputStream(), with(admin, "admin", "create-key", "bob",
                "--role", "superuser")));
        // A client key may not administer.
        assertEquals(5, cli(Map.of(), InputStream.nullInputStream(), "--url", server.url(), "--pin",
                server.fingerprint(), "--api-key", server.apiKey("default"), "admin", "list-keys"));
        assertTrue(err.contains("forbidden"), err);
    }

    @Test
    void admin_lastAdminKey_cannotBeRevoked() throws Exception {
        String[] admin = {"--url", server.url(), "--pin", server.fingerprint(), "--api-key", server.apiKey("admin")};
        assertEquals(0, cli(Map.of(), InputStream.nullInputStream(), with(admin, "--json", "admin", "list-keys")));
        List<String> admins = new ArrayList<>();
        JSON.readTree(out).forEach(k -> {
            if (k.get("role").asText().equals("admin")) {
                admins.add(k.get("keyId").asText());
            }
        });
        if (admins.size() == 1) {
            assertEquals(5, cli(Map.of(), InputStream.nullInputStream(), with(admin, "admin", "revoke-key",
                    admins.get(0))));
            assertTrue(err.contains("last_admin_key") && err.contains("create another admin key first"), err);
        } else {
            throw new AssertionError("this test's server has one admin key: " + admins);
        }
    }

    @Test
    void secondSigningKeyForAnIdentity_isRefusedWithWhatToDo() {
        assertEquals(0, run("put", "mine", "1"), err);
        assertEquals(5, cli(Map.of(), InputStream.nullInputStream(), "--url", server.url(), "--pin",
                server.fingerprint(), "--api-key", server.apiKey("default"), "--key-file",
                dir.resolve("another.key").toString(), "--state", dir.resolve("another.json").toString(), "get",
                "mine"));
        assertTrue(err.contains("key_registered (HTTP 409)") && err.contains("one signing key")
                && err.contains("ledger-cli admin create-key"), err);
    }
}
