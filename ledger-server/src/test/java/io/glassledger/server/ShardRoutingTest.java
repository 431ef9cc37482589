package io.glassledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.api.Wire;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.shard.ShardMap;
import io.glassledger.verify.txn.Transaction;
import io.glassledger.verify.txn.TxnDraft;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shard 1 of a 3-shard map, alone: it refuses keys that the map places elsewhere, requests routed with another map
 * version, and peers that ask for more than outcomes; and it records an abort for a transaction it never saw when a
 * peer asks, so that a late prepare of it is refused.
 */
class ShardRoutingTest {
    @TempDir
    Path dir;

    @Test
    void theShardRefusesWhatIsNotItsAndAnswersPeersOnlyAboutOutcomes() throws Exception {
        String peerKey = "peer-secret-for-the-test-0123456789";
        try (TestServer s = new TestServer(dir.resolve("data"), "--glassledger.shard=1",
                "--glassledger.cluster.shards=3", "--glassledger.cluster.map-version=4",
                "--glassledger.cluster.peer-key=" + peerKey)) {
            Https https = new Https(s.url(), s.fingerprint());
            String client = s.apiKey("default");
            ShardMap map = new ShardMap(4, 3);
            Bytes mine = key(map, 1);
            Bytes theirs = key(map, 2);

            var info = https.get("/v1/info", client).body();
            assertEquals(3, info.get("shards").asInt());
            assertEquals(4, info.get("mapVersion").asLong());

            var misrouted = https.post("/v1/get", client, Map.of("keys", List.of(Wire.b64(mine), Wire.b64(theirs))));
            assertEquals(421, misrouted.status());
            assertEquals("wrong_shard", misrouted.body().get("code").asText());
            assertEquals("Misdirected Request", misrouted.body().get("title").asText());
            assertTrue(misrouted.body().get("detail").asText().contains("belongs to shard 2"));
            assertEquals(200, https.post("/v1/get", client, Map.of("keys", List.of(Wire.b64(mine)))).status());
            assertEquals(421, https.post("/v1/history", client, Map.of("key", Wire.b64(theirs))).status());

            var stale = https.get("/v1/info", client, Wire.SHARD_MAP_HEADER, "3");
            assertEquals(409, stale.status());
            assertEquals("stale_shard_map", stale.body().get("code").asText());
            assertEquals(200, https.get("/v1/info", client, Wire.SHARD_MAP_HEADER, "4").status());

            // A transaction that writes another shard's key changes nothing.
            SigningKey key = SigningKey.generate();
            assertEquals(201, https.post("/v1/clients/key", client, Map.of("publicKey", key.publicKey().hex()))
                    .status());
            var wrong = OverloadTest.commit(https, client, new TxnDraft(key, 1, System.currentTimeMillis())
                    .put(mine, Bytes.utf8("1")).put(theirs, Bytes.utf8("1")).sign());
            assertEquals(421, wrong.status(), wrong.text());
            var got = https.post("/v1/get", client, Map.of("keys", List.of(Wire.b64(mine)))).body().get("items");
            assertTrue(got.get(0).get("value").isNull());

            // Outcomes: peers only, and a transaction never seen is aborted for good.
            Bytes never = Transaction.newTxId(System.currentTimeMillis());
            String resolve = "/v1/tx/" + never.hex() + "/resolve";
            assertEquals(403, https.post(resolve, client, "").status());
            assertEquals(401, https.post(resolve, "not-the-peer-key", "").status());
            assertEquals(403, https.post("/v1/get", peerKey, Map.of("keys", List.of(Wire.b64(mine)))).status());
            var answer = https.post(resolve, peerKey, "");
            assertEquals(200, answer.status(), answer.text());
            assertEquals("ABORTED", answer.body().get("state").asText());
            var late = https.post("/v1/tx/prepare", client, Map.of("record", java.util.Base64.getEncoder()
                    .encodeToString(new TxnDraft(key, 1, List.of(1, 0), never).put(mine, Bytes.utf8("late")).sign()
                            .record())));
            assertEquals(409, late.status(), late.text());
            assertEquals("duplicate", late.body().get("code").asText());
            assertEquals("ABORTED", https.get("/v1/tx/" + never.hex(), peerKey).body().get("state").asText());
        }
    }

    private static Bytes key(ShardMap map, int shard) {
        for (int i = 0; ; i++) {
            Bytes k = Bytes.utf8("k" + i);
            if (map.shardOf(k) == shard) {
                return k;
            }
        }
    }
}
