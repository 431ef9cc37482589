package io.glassledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.TxnDraft;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The REST contract at the edges, over real HTTPS with raw requests (what no SDK would send): authentication and
 * roles, and a clear problem body for bad input on every endpoint, after which nothing committed has changed.
 */
class ApiContractTest {
    @TempDir
    static Path dir;
    static TestServer server;
    static Https https;
    static String client;
    static String admin;
    static String auditor;
    static final SigningKey KEY = SigningKey.generate();

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer(dir.resolve("data"), "--glassledger.limits.max-value-bytes=65536");
        https = new Https(server.url(), server.fingerprint());
        client = server.apiKey("default");
        admin = server.apiKey("admin");
        var r = https.post("/v1/admin/api-keys", admin, Map.of("clientId", "aud", "role", "auditor"));
        assertEquals(201, r.status());
        auditor = r.body().get("apiKey").asText();
        assertEquals(201, https.post("/v1/clients/key", client, Map.of("publicKey", KEY.publicKey().hex())).status());
        assertEquals(200, https.post("/v1/clients/key", client, Map.of("publicKey", KEY.publicKey().hex())).status());
        var p = commit(draft().put(b("k"), b("v1")).sign(), true);
        assertEquals(200, p.status(), String.valueOf(p.body()));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static Bytes b(String s) {
        return Bytes.utf8(s);
    }

    static String b64(Bytes x) {
        return Base64.getEncoder().encodeToString(x.unsafeArray());
    }

    static TxnDraft draft() {
        return new TxnDraft(KEY, 0, System.currentTimeMillis());
    }

    static Https.Response commit(SignedTransaction stx, boolean wait) throws Exception {
        return https.post("/v1/tx/commit", client, Map.of("record", Base64.getEncoder().encodeToString(stx.record()),
                "waitPersisted", wait));
    }

    static void problem(Https.Response r, int status, String code) {
        assertEquals(status, r.status(), String.valueOf(r.body()));
        assertTrue(r.contentType().startsWith("application/problem+json"), r.contentType());
        assertEquals(code, r.body().get("code").asText(), String.valueOf(r.body()));
        assertEquals(status, r.body().get("status").asInt());
        assertTrue(r.body().get("type").asText().startsWith("https://glassledger.io/problems/"));
        assertTrue(r.body().hasNonNull("detail"));
    }

    @Test
    void everyRequestNeedsAKnownApiKeyAndTheRightRole() throws Exception {
        problem(https.get("/v1/head", null), 401, "unauthenticated");
        problem(https.get("/v1/head", "gl_not-a-key"), 401, "unauthenticated");
        problem(https.post("/v1/admin/api-keys", client, Map.of("clientId", "x", "role", "admin")), 403, "forbidden");
        problem(https.post("/v1/tx/commit", auditor, Map.of("record", "AA==")), 403, "forbidden");
        problem(https.post("/v1/clients/key", auditor, Map.of("publicKey", KEY.publicKey().hex())), 403, "forbidden");
        Https management = new Https(server.managementUrl(), server.fingerprint());
        problem(management.get("/actuator/prometheus", client), 403, "forbidden");
        assertEquals(200, https.get("/v1/head", auditor).status());
        assertEquals(200, https.post("/v1/get", auditor, Map.of("keys", List.of(b64(b("k"))))).status());
        assertEquals(200, https.get("/v1/blocks/1", auditor).status());
        assertEquals(200, management.get("/actuator/health/readiness", null).status());
        assertEquals(200, https.get("/v3/api-docs", null).status());
        var prom = management.get("/actuator/prometheus", admin);
        assertEquals(200, prom.status());
        assertTrue(prom.text().contains("glassledger_commits_total"), prom.text());
        assertTrue(prom.text().contains("glassledger_phase_seconds_bucket"), "phase histograms");
        assertTrue(prom.text().contains("glassledger_wal_fsync_seconds"), "fsync histogram");
        assertTrue(prom.text().contains("glassledger_queue_depth"), "queue depth");
    }

    @Test
    void badInputGetsAProblemAndChangesNothing() throws Exception {
        var headBefore = https.get("/v1/head", client).body();
        // /v1/get
        problem(https.post("/v1/get", client, "{bad json"), 400, "malformed");
        problem(https.post("/v1/get", client, ""), 400, "malformed");
        problem(https.post("/v1/get", client, Map.of("keys", List.of("@@not base64"))), 400, "malformed");
        problem(https.post("/v1/get", client, Map.of("keys", List.of())), 400, "malformed");
        problem(https.post("/v1/get", client, Map.of("keys", List.of(b64(Bytes.of(new byte[1025]))))), 413, "too_large");
        List<String> many = new ArrayList<>();
        for (int i = 0; i < 10_001; i++) {
            many.add(b64(b("k" + i)));
        }
        problem(https.post("/v1/get", client, Map.of("keys", many)), 413, "too_large");
        problem(https.post("/v1/get", client, Map.of("keys", List.of(b64(b("k"))), "block", 1_000_000)), 404,
                "unknown_block");
        // /v1/tx/commit
        problem(https.post("/v1/tx/commit", client, Map.of()), 400, "malformed");
        problem(https.post("/v1/tx/commit", client, Map.of("record", "%%%")), 400, "malformed");
        problem(https.post("/v1/tx/commit", client, Map.of("record", b64(b("not a transaction")))), 400, "malformed");
        byte[] rec = draft().put(b("k"), b("evil")).sign().record();
        rec[rec.length - 1] ^= 1;
        problem(https.post("/v1/tx/commit", client, Map.of("record", Base64.getEncoder().encodeToString(rec))), 400,
                "bad_signature");
        SignedTransaction foreign = new TxnDraft(SigningKey.generate(), 0, System.currentTimeMillis())
                .put(b("k"), b("evil")).sign();
        problem(commit(foreign, false), 403, "wrong_client_key");
        SignedTransaction once = draft().put(b("replayed"), b("1")).sign();
        assertEquals(200, commit(once, false).status());
        problem(commit(once, false), 409, "duplicate");
        problem(commit(new TxnDraft(KEY, 0, System.currentTimeMillis() - 3_600_000).put(b("k"), b("old")).sign(),
                false), 400, "stale");
        problem(commit(new TxnDraft(KEY, 3, System.currentTimeMillis()).put(b("k"), b("x")).sign(), false), 421,
                "wrong_shard");
        problem(commit(draft().put(b("big"), Bytes.of(new byte[65_537])).sign(), false), 413, "too_large");
        problem(commit(draft().put(b("big1"), Bytes.of(new byte[600_000])).put(b("big2"), Bytes.of(new byte[600_000]))
                .sign(), false), 413, "too_large");
        problem(commit(draft().read(b("k"), 0).put(b("k"), b("stale read")).sign(), false), 409, "conflict");
        // 2PC decisions and status
        problem(https.post("/v1/tx/00112233445566778899aabbccddeeff/commit", client, "{}"), 404, "unknown_transaction");
        problem(https.post("/v1/tx/zz/abort", client, "{}"), 400, "malformed");
        assertEquals("UNKNOWN", https.get("/v1/tx/00112233445566778899aabbccddeeff", client).body().get("state")
                .asText());
        // history, scan
        problem(https.post("/v1/history", client, Map.of("key", b64(b("k")), "limit", 0)), 400, "malformed");
        problem(https.post("/v1/history", client, Map.of("key", b64(b("k")), "limit", 1_000_001)), 413, "too_large");
        problem(https.post("/v1/history", client, Map.of("limit", 3)), 400, "malformed");
        problem(https.post("/v1/scan", client, Map.of("limit", -1)), 400, "malformed");
        problem(https.post("/v1/scan", client, Map.of("block", 1_000_000)), 404, "unknown_block");
        // proofs
        problem(https.post("/v1/proofs/keys", client, Map.of("keys", List.of())), 400, "malformed");
        problem(https.post("/v1/proofs/keys", client, Map.of("keys", List.of(b64(b("k"))), "block", 1_000_000)), 404,
                "unknown_block");
        problem(https.get("/v1/proofs/append-only?from=1000000", client), 409, "stale_digest");
        problem(https.get("/v1/proofs/append-only?from=x", client), 400, "malformed");
        problem(https.post("/v1/proofs/batch", client, Map.of("items", List.of())), 400, "malformed");
        problem(https.post("/v1/proofs/batch", client, Map.of("items", List.of(Map.of("block", 1, "keys",
                List.of(b64(b("k"))))), "trustedBlock", 1_000_000)), 409, "stale_digest");
        problem(https.post("/v1/proofs/batch", client, Map.of("items", List.of(Map.of("block", 1_000_000, "keys",
                List.of(b64(b("k"))))))), 404, "unknown_block");
        problem(https.post("/v1/proofs/batch", client, Map.of("items", List.of(Map.of("block", 1, "keys",
                List.of(b64(b("k"))))), "waitMillis", 3_600_000)), 400, "malformed");
        // blocks, clients, admin
        problem(https.get("/v1/blocks/1000000", client), 404, "unknown_block");
        problem(https.get("/v1/blocks/abc", client), 400, "malformed");
        problem(https.post("/v1/clients/key", client, Map.of("publicKey", "00")), 400, "malformed");
        problem(https.post("/v1/clients/key", client, Map.of("publicKey", SigningKey.generate().publicKey().hex())),
                409, "key_registered");
        problem(https.post("/v1/admin/api-keys", admin, Map.of("clientId", "bad id!", "role", "client")), 400,
                "malformed");
        problem(https.post("/v1/admin/api-keys", admin, Map.of("clientId", "x", "role", "root")), 400, "malformed");

        // Nothing committed changed: the value of k, and no block other than the one good commit's.
        var got = https.post("/v1/get", client, Map.of("keys", List.of(b64(b("k"))))).body().get("items").get(0);
        assertEquals(b64(b("v1")), got.get("value").asText());
        var headAfter = https.get("/v1/head", client).body();
        assertTrue(headAfter.get("block").asLong() >= headBefore.get("block").asLong());
        assertEquals(Map.of("k", "v1"), Map.of("k", new String(Base64.getDecoder().decode(got.get("value").asText()))));
    }

    @Test
    void twoPhaseCommitOverHttpsAndOnlyTheSignerMayDecide() throws Exception {
        var r = https.post("/v1/admin/api-keys", admin, Map.of("clientId", "mallory", "role", "client"));
        String mallory = r.body().get("apiKey").asText();
        SigningKey malloryKey = SigningKey.generate();
        assertEquals(201, https.post("/v1/clients/key", mallory, Map.of("publicKey", malloryKey.publicKey().hex()))
                .status());

        SignedTransaction t = draft().put(b("2pc"), b("yes")).sign();
        var prepared = https.post("/v1/tx/prepare", client, Map.of("record",
                Base64.getEncoder().encodeToString(t.record())));
        assertEquals(200, prepared.status(), String.valueOf(prepared.body()));
        assertEquals("PREPARED", prepared.body().get("state").asText());
        String id = t.txId().hex();
        assertEquals("PREPARED", https.get("/v1/tx/" + id, client).body().get("state").asText());
        // A key held by a prepared transaction conflicts.
        problem(commit(draft().put(b("2pc"), b("no")).sign(), false), 409, "conflict");
        // Another client may not decide it; the signer may, and repeating the decision gives the same answer.
        problem(https.post("/v1/tx/" + id + "/commit", mallory, "{}"), 403, "forbidden");
        problem(https.post("/v1/tx/" + id + "/abort", mallory, "{}"), 403, "forbidden");
        var committed = https.post("/v1/tx/" + id + "/commit", client, "{}");
        assertEquals(200, committed.status(), String.valueOf(committed.body()));
        long block = committed.body().get("block").asLong();
        assertTrue(block >= 1);
        assertEquals(block, https.post("/v1/tx/" + id + "/commit", client, "{}").body().get("block").asLong());
        problem(https.post("/v1/tx/" + id + "/abort", client, "{}"), 409, "already_decided");
        assertEquals("COMMITTED", https.get("/v1/tx/" + id, client).body().get("state").asText());
        var got = https.post("/v1/get", client, Map.of("keys", List.of(b64(b("2pc"))))).body().get("items").get(0);
        assertEquals(b64(b("yes")), got.get("value").asText());
    }
}
