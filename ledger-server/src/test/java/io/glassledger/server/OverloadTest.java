package io.glassledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.TxnDraft;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A shard whose persisting thread is behind refuses commits with a retryable 503 and Retry-After, and loses nothing. */
class OverloadTest {
    @TempDir
    Path dir;

    @Test
    void aPersistBacklogIsA503WithRetryAfterAndChangesNothing() throws Exception {
        try (TestServer s = new TestServer(dir.resolve("data"), "--glassledger.persist-interval=1h",
                "--glassledger.max-unpersisted-writes=2")) {
            Https https = new Https(s.url(), s.fingerprint());
            String client = s.apiKey("default");
            SigningKey key = SigningKey.generate();
            assertEquals(201, https.post("/v1/clients/key", client, Map.of("publicKey", key.publicKey().hex())).status());
            var ok = commit(https, client, new TxnDraft(key, 0, System.currentTimeMillis())
                    .put(Bytes.utf8("a"), Bytes.utf8("1")).put(Bytes.utf8("b"), Bytes.utf8("1")).sign());
            assertEquals(200, ok.status(), String.valueOf(ok.body()));
            var refused = commit(https, client, new TxnDraft(key, 0, System.currentTimeMillis())
                    .put(Bytes.utf8("c"), Bytes.utf8("1")).sign());
            assertEquals(503, refused.status(), String.valueOf(refused.body()));
            assertEquals("overloaded", refused.body().get("code").asText());
            assertTrue(refused.body().get("retryable").asBoolean());
            assertNotNull(refused.retryAfter(), "Retry-After");
            var got = https.post("/v1/get", client, Map.of("keys", List.of(b64("a"), b64("c")))).body().get("items");
            assertEquals(b64("1"), got.get(0).get("value").asText());
            assertTrue(got.get(1).get("value").isNull(), "the refused write was not applied");
        }
    }

    static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    static Https.Response commit(Https https, String apiKey, SignedTransaction stx) throws Exception {
        return https.post("/v1/tx/commit", apiKey, Map.of("record", Base64.getEncoder().encodeToString(stx.record())));
    }
}
