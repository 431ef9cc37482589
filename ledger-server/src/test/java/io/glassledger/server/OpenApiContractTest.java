package io.glassledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.txn.TxnDraft;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the OpenAPI document at {@code /v3/api-docs} promises, checked against the live document, and the refusals it
 * promises, checked against the live server (issue 15 item 5; tools/schemathesis/run fuzzes the rest).
 */
class OpenApiContractTest {
    @TempDir
    static Path dir;
    static TestServer server;
    static Https https;
    static String client;
    static JsonNode doc;
    static final SigningKey KEY = SigningKey.generate();

    @BeforeAll
    static void start() throws Exception {
        // A small codec limit, so that the body over it is cheap to send.
        server = new TestServer(dir.resolve("data"), "--spring.codec.max-in-memory-size=64KB");
        https = new Https(server.url(), server.fingerprint());
        client = server.apiKey("default");
        assertEquals(201, https.post("/v1/clients/key", client, Map.of("publicKey", KEY.publicKey().hex())).status());
        var p = https.post("/v1/tx/commit", client, Map.of("record", Base64.getEncoder().encodeToString(
                new TxnDraft(KEY, 0, System.currentTimeMillis()).put(Bytes.utf8("k"), Bytes.utf8("v")).sign()
                        .record()), "waitPersisted", true));
        assertEquals(200, p.status(), p.text());
        var d = https.get("/v3/api-docs", null);
        assertEquals(200, d.status());
        doc = d.body();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static String key() {
        return Base64.getEncoder().encodeToString("k".getBytes());
    }

    /** The README's quick start reads the pin from a file: {@code export GLASSLEDGER_PIN=$(cat data/pin.txt)}. */
    @Test
    void theServerWritesItsPinBesideItsCredentials() throws Exception {
        assertEquals(server.fingerprint() + "\n", java.nio.file.Files.readString(dir.resolve("data").resolve("pin.txt")));
    }

    @Test
    void aNonIntegerBlockNumber_isMalformed_notTruncated() throws Exception {
        ApiContractTest.problem(https.post("/v1/get", client, "{\"keys\":[\"" + key() + "\"],\"block\":1.9}"), 400,
                "malformed");
        ApiContractTest.problem(https.post("/v1/get", client, "{\"keys\":[\"" + key() + "\"],\"block\":\"1\"}"), 400,
                "malformed");
        ApiContractTest.problem(https.post("/v1/history", client, "{\"key\":\"" + key() + "\",\"limit\":2.5}"), 400,
                "malformed");
        ApiContractTest.problem(https.post("/v1/get", client, "{\"keys\":[12]}"), 400, "malformed");
        ApiContractTest.problem(https.post("/v1/tx/commit", client, "{\"record\":true}"), 400, "malformed");
        ApiContractTest.problem(https.post("/v1/proofs/batch", client, "{\"items\":[{\"block\":null,\"keys\":[\""
                + key() + "\"]}]}"), 400, "malformed");
        // An integral number is still a number: 1.0 is not "a non-integer".
        assertEquals(200, https.post("/v1/get", client, "{\"keys\":[\"" + key() + "\"],\"block\":1}").status());
    }

    @Test
    void aTimestampAtOrBeyondTheServersClock_isRefused_andAPastOneIsFinal() throws Exception {
        long now = System.currentTimeMillis();
        ApiContractTest.problem(https.post("/v1/get", client, Map.of("keys", List.of(key()), "timestamp",
                now + 3_600_000)), 400, "future_timestamp");
        var head = https.get("/v1/head", client).body();
        long past = head.get("timestamp").asLong();  // the newest persisted block's stamp, already in the past
        var a = https.post("/v1/get", client, Map.of("keys", List.of(key()), "timestamp", past));
        assertEquals(200, a.status(), a.text());
        assertEquals(head.get("block").asLong(), a.body().get("block").asLong());
        assertEquals(Base64.getEncoder().encodeToString("v".getBytes()), a.body().get("items").get(0).get("value")
                .asText());
    }

    @Test
    void oneCodePerCondition_aBodyOverTheLimit_isTooLarge_andAWrongContentType_is415() throws Exception {
        String big = "{\"keys\":[\"" + "A".repeat(100_000) + "\"]}";
        ApiContractTest.problem(https.post("/v1/get", client, big), 413, "too_large");
        ApiContractTest.problem(https.post("/v1/get", client, "text/plain", "{\"keys\":[\"" + key() + "\"]}"), 415,
                "unsupported_media_type");
    }

    @Test
    void theDocumentDeclaresEveryProblemResponse_andEachIsAProblemBody() {
        JsonNode paths = doc.get("paths");
        int operations = 0;
        for (Iterator<Map.Entry<String, JsonNode>> it = paths.fields(); it.hasNext(); ) {
            var path = it.next();
            for (Iterator<Map.Entry<String, JsonNode>> ops = path.getValue().fields(); ops.hasNext(); ) {
                var op = ops.next();
                String id = op.getKey().toUpperCase() + " " + path.getKey();
                JsonNode rs = op.getValue().get("responses");
                List<String> needed = new ArrayList<>(List.of("400", "401", "403", "409", "503"));
                if (op.getValue().has("requestBody")) {
                    needed.addAll(List.of("413", "415"));
                }
                for (String s : needed) {
                    assertTrue(rs.has(s), id + " declares " + s);
                    assertEquals("#/components/schemas/Problem", rs.get(s).get("content").get("application/problem+json")
                            .get("schema").get("$ref").asText(), id + " " + s);
                }
                for (String s : List.of("414", "431")) {
                    assertTrue(rs.has(s), id + " declares " + s);
                    assertFalse(rs.get(s).has("content"), id + " " + s + " has no body");
                }
                List<String> codes = new ArrayList<>();
                rs.fieldNames().forEachRemaining(codes::add);
                assertTrue(codes.stream().anyMatch(c -> c.startsWith("2")), id + " has a success response");
                operations++;
            }
        }
        assertTrue(operations >= 20, "operations: " + operations);
        var responses = paths.get("/v1/clients/key").get("post").get("responses");
        assertTrue(responses.has("201") && responses.has("200"));
        assertTrue(paths.get("/v1/admin/api-keys").get("post").get("responses").has("201"));
        assertFalse(paths.get("/v1/admin/api-keys").get("post").get("responses").has("200"));
        for (String s : List.of("/v1/get", "/v1/tx/commit", "/v1/proofs/keys")) {
            assertTrue(paths.get(s).get("post").get("responses").has("421"), s + " declares 421");
        }
        assertTrue(paths.get("/v1/blocks/{number}").get("get").get("responses").has("404"));
        JsonNode problem = doc.get("components").get("schemas").get("Problem");
        assertEquals(Set.of("type", "title", "status", "code", "retryable"), strings(problem.get("required")));
    }

    /**
     * The HTTP layer's own refusals, as docs/API.md "Errors" and the document declare them: 414 for a request line
     * over 4 KiB, 431 for header fields over 8 KiB, 400 for a header that does not parse; no body, the connection
     * closed, and the next connection served (schemathesis, seed 12804, met an undeclared 414).
     */
    @Test
    void aRequestHttpCannotTake_isRefusedByStatusAlone_andTheConnectionClosed() throws Exception {
        int port = java.net.URI.create(server.url()).getPort();
        String longQuery = "/v1/proofs/append-only?from=0&to=1&x=" + "a".repeat(5000);
        try (RawHttps raw = new RawHttps(port, server.fingerprint())) {
            RawHttps.Response r = raw.send("GET", longQuery, client, null);
            assertEquals(414, r.status());
            assertEquals("", r.text());
            assertEquals(1, raw.connections);
            assertEquals(200, raw.send("GET", "/v1/head", client, null).status(), "served on a new connection");
            assertEquals(2, raw.connections, "the refused connection was closed");
        }
        try (RawHttps raw = new RawHttps(port, server.fingerprint())) {
            RawHttps.Response r = raw.sendWithHeader("GET", "/v1/head", client, "X-Big: " + "b".repeat(9000));
            assertEquals(431, r.status());
            assertEquals("", r.text());
            r = raw.sendWithHeader("GET", "/v1/head", client, "X-Null: a\u0000b");
            assertEquals(400, r.status());
            assertEquals("", r.text());
            assertEquals(200, raw.send("GET", "/v1/head", client, null).status());
            assertEquals(3, raw.connections, "each refused connection was closed");
        }
    }

    @Test
    void theDocumentDeclaresRequiredFieldsPatternsRangesAndNulls() {
        JsonNode schemas = doc.get("components").get("schemas");
        assertEquals(Set.of("keys"), strings(schemas.get("KeysRequest").get("required")));
        assertEquals(Set.of("record"), strings(schemas.get("CommitRequest").get("required")));
        assertEquals(Set.of("block", "keys"), strings(schemas.get("ProofItem").get("required")));
        // Every response property is present; the ones that may be null say so.
        assertEquals(Set.of("from", "to", "proof"), strings(schemas.get("AppendOnlyProofDto").get("required")));
        assertTrue(strings(schemas.get("AppendOnlyProofDto").get("properties").get("proof").get("type"))
                .contains("null"), "proof: null when from == to");
        assertTrue(strings(schemas.get("ValueDto").get("properties").get("value").get("type")).contains("null"));
        assertFalse(strings(schemas.get("ValueDto").get("properties").get("key").get("type")).contains("null"));
        assertEquals("^[0-9a-f]{64}$", schemas.get("DigestDto").get("properties").get("hash").get("pattern").asText());
        assertEquals(0, schemas.get("KeysRequest").get("properties").get("block").get("minimum").asInt());
        assertTrue(schemas.get("KeysRequest").get("properties").get("keys").get("items").has("pattern"));
        var p = doc.get("paths").get("/v1/proofs/append-only").get("get").get("parameters");
        assertEquals(0, p.get(0).get("schema").get("minimum").asInt());
    }

    @Test
    void anAppendOnlyProofFromTheHeadToItself_isNullAsDeclared() throws Exception {
        long head = https.get("/v1/head", client).body().get("block").asLong();
        var r = https.get("/v1/proofs/append-only?from=" + head + "&to=" + head, client);
        assertEquals(200, r.status(), r.text());
        assertTrue(r.body().has("proof") && r.body().get("proof").isNull(), r.text());
    }

    private static Set<String> strings(JsonNode n) {
        Set<String> out = new java.util.HashSet<>();
        if (n.isArray()) {
            n.forEach(x -> out.add(x.asText()));
        } else {
            out.add(n.asText());
        }
        return out;
    }
}
