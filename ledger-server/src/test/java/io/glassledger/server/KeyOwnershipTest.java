package io.glassledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.TxnDraft;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 15.4: a public key belongs to one identity, so no one decides a transaction signed by someone else. */
class KeyOwnershipTest {
    @TempDir
    Path dir;

    @Test
    void registerAnotherIdentitysKey_isRefused_andTheThiefCannotDecideItsTransactions() throws Exception {
        try (TestServer server = new TestServer(dir.resolve("data"))) {
            Https https = new Https(server.url(), server.fingerprint());
            String owner = server.apiKey("default");
            SigningKey key = SigningKey.generate();
            assertEquals(201, https.post("/v1/clients/key", owner, Map.of("publicKey", key.publicKey().hex()))
                    .status());
            var made = https.post("/v1/admin/api-keys", server.apiKey("admin"),
                    Map.of("clientId", "mallory", "role", "client"));
            assertEquals(201, made.status());
            String mallory = made.body().get("apiKey").asText();

            // Mallory registers default's public key: refused, and nothing is recorded for mallory.
            var stolen = https.post("/v1/clients/key", mallory, Map.of("publicKey", key.publicKey().hex()));
            ApiContractTest.problem(stolen, 409, "key_in_use");
            ApiContractTest.problem(https.get("/v1/clients/mallory", mallory), 404, "unknown_client");
            var all = https.get("/v1/clients", server.apiKey("admin")).body();
            assertEquals(1, all.size(), all.toString());
            assertEquals("default", all.get(0).get("clientId").asText());

            // default's prepared transaction stays default's to decide.
            SignedTransaction t = new TxnDraft(key, 0, System.currentTimeMillis())
                    .put(Bytes.utf8("owned"), Bytes.utf8("v")).sign();
            var prepared = https.post("/v1/tx/prepare", owner, Map.of("record",
                    Base64.getEncoder().encodeToString(t.record())));
            assertEquals(200, prepared.status(), String.valueOf(prepared.body()));
            String id = t.txId().hex();
            ApiContractTest.problem(https.post("/v1/tx/" + id + "/commit", mallory, "{}"), 403, "forbidden");
            assertEquals("PREPARED", https.get("/v1/tx/" + id, owner).body().get("state").asText());
            var committed = https.post("/v1/tx/" + id + "/commit", owner, "{}");
            assertEquals(200, committed.status(), String.valueOf(committed.body()));

            // Mallory's own key is still welcome, and registering it again for the same identity is idempotent.
            SigningKey own = SigningKey.generate();
            assertEquals(201, https.post("/v1/clients/key", mallory, Map.of("publicKey", own.publicKey().hex()))
                    .status());
            assertTrue(https.get("/v1/clients/mallory", mallory).body().get("publicKey").asText()
                    .equals(own.publicKey().hex()));
        }
    }

    /**
     * A key that breaks FORMAT.md §14.2's key rules (here the identity point and a point of order 8) is refused with
     * 400 before anything records it; the same check runs before a directory or a replicated shard would log it.
     */
    @Test
    void registerSmallOrderKey_isMalformed_andRecordsNothing() throws Exception {
        try (TestServer server = new TestServer(dir.resolve("data"))) {
            Https https = new Https(server.url(), server.fingerprint());
            String owner = server.apiKey("default");
            for (String smallOrder : new String[] {
                "0100000000000000000000000000000000000000000000000000000000000000",
                "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"}) {
                ApiContractTest.problem(https.post("/v1/clients/key", owner, Map.of("publicKey", smallOrder)), 400,
                        "malformed");
                ApiContractTest.problem(https.get("/v1/clients/default", owner), 404, "unknown_client");
            }
        }
    }
}
