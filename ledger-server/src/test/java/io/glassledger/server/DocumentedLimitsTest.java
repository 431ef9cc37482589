package io.glassledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.api.Wire;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.TxnDraft;
import io.glassledger.server.net.ConnectionProperties;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The limits of docs/API.md "Limits" are the ones in force, with the server's defaults: the largest value commits,
 * HTTP/2 advertises the documented stream bound, a JSON body is read one way only, and no request header comes back
 * in an error.
 */
class DocumentedLimitsTest {
    /** docs/API.md "Limits": a value. */
    static final int MAX_VALUE_BYTES = 1_048_576;
    /** docs/API.md "Limits": HTTP/2 streams open at once on one connection. */
    static final int MAX_STREAMS = 1_000;
    /** Something a header carries that an answer must not repeat. */
    static final String MARKER = "zq-echo-marker";

    @TempDir
    static Path dir;
    static TestServer server;
    static Https https;
    static String client;
    static final SigningKey KEY = SigningKey.generate();

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer(dir.resolve("data"));
        https = new Https(server.url(), server.fingerprint());
        client = server.apiKey("default");
        assertEquals(201, https.post("/v1/clients/key", client, Map.of("publicKey", KEY.publicKey().hex())).status());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void valueOfTheDocumentedMaximum_commits_andIsReadBack() throws Exception {
        byte[] value = new byte[MAX_VALUE_BYTES];
        Arrays.fill(value, (byte) 7);
        Bytes key = Bytes.utf8("largest");
        SignedTransaction stx = new TxnDraft(KEY, 0, System.currentTimeMillis()).put(key, Bytes.wrap(value)).sign();
        var r = https.post("/v1/tx/commit", client, Map.of("record", b64(stx.record()), "waitPersisted", true));
        assertEquals(200, r.status(), r.text());
        var got = https.post("/v1/get", client, Map.of("keys", List.of(Wire.b64(key))));
        assertEquals(200, got.status(), got.text());
        assertEquals(b64(value), got.body().get("items").get(0).get("value").asText());
    }

    @Test
    void valueOneByteOverTheMaximum_isTooLarge() throws Exception {
        // No encoder makes such a record (FORMAT.md §14.1 bounds a value), so it is the largest one, one byte longer.
        byte[] enc = new TxnDraft(KEY, 0, System.currentTimeMillis()).put(Bytes.utf8("over"),
                Bytes.wrap(new byte[MAX_VALUE_BYTES])).transaction().encode();
        int valueAt = enc.length - MAX_VALUE_BYTES - 3;  // after the value's length, a 3-byte varint
        byte[] longer = new ByteWriter(enc.length + 1).raw(Arrays.copyOf(enc, valueAt))
                .lengthPrefixed(new byte[MAX_VALUE_BYTES + 1]).toByteArray();
        byte[] record = new ByteWriter(longer.length + 72).lengthPrefixed(longer).raw(new byte[64]).toByteArray();
        var r = https.post("/v1/tx/commit", client, Map.of("record", b64(record)));
        ApiContractTest.problem(r, 413, "too_large");
        assertTrue(r.body().get("detail").asText().contains(Integer.toString(MAX_VALUE_BYTES)), r.text());
    }

    @Test
    void http2_advertisesTheDocumentedStreamLimit() throws Exception {
        assertEquals(MAX_STREAMS, server.bean(ConnectionProperties.class).maxStreams());
        try (RawH2 h2 = new RawH2(server.port())) {
            assertEquals((long) MAX_STREAMS, h2.serverSettings().get(RawH2.SETTINGS_MAX_CONCURRENT_STREAMS));
        }
    }

    @Test
    void duplicatedJsonField_isMalformed() throws Exception {
        String key = Wire.b64(Bytes.utf8("k"));
        ApiContractTest.problem(https.post("/v1/get", client, "{\"keys\": [\"" + key + "\"], \"keys\": [\"" + key
                + "\"]}"), 400, "malformed");
        ApiContractTest.problem(https.post("/v1/history", client, "{\"key\": \"" + key + "\", \"limit\": 1, "
                + "\"limit\": 2}"), 400, "malformed");
    }

    @Test
    void shardMapHeader_isNotEchoed() throws Exception {
        var r = https.get("/v1/info", client, Wire.SHARD_MAP_HEADER, MARKER);
        ApiContractTest.problem(r, 409, "stale_shard_map");
        assertFalse(r.text().contains(MARKER), r.text());
        assertTrue(r.body().get("detail").asText().contains("version 1"), "names the cluster's map: " + r.text());
    }

    @Test
    void contentTypeAndAccept_areNotEchoed() throws Exception {
        for (String type : List.of("text/" + MARKER, MARKER, "application/json; charset=" + MARKER,
                "application/" + MARKER + "+json")) {
            var media = https.post("/v1/get", client, type, "{}");
            assertTrue(media.status() == 415 || media.status() == 400, media.status() + " " + media.text());
            assertFalse(media.text().contains(MARKER), media.text());
        }
        var accept = https.get("/v1/info", client, "Accept", "application/" + MARKER);
        assertFalse(accept.text().contains(MARKER), accept.status() + " " + accept.text());
    }

    private static String b64(byte[] b) {
        return Base64.getEncoder().encodeToString(b);
    }
}
