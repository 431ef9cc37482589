package io.glassledger.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.txn.TxnDraft;
import io.glassledger.server.api.ResponseBudget;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15 item 3, at a test's scale: blocks holding ~950 KB values, and small requests that would once have made
 * responses many times larger (a proof batch of many one-key items, a history with limit 1000, a scan, a get). Every
 * response is bounded before it is made: 413 {@code response_too_large} per request, 503 {@code overloaded} across
 * requests; normal requests still work, and a refusal changes nothing. The response limit is set to its minimum,
 * 4 MiB, so that a few large values exceed it.
 */
class ResponseBoundsTest {
    static final long MAX_RESPONSE = 4L << 20;
    static final long MAX_IN_FLIGHT = 12L << 20;
    static final int BIG = 950_000;
    static final int BIG_KEYS = 6;
    static final int VERSIONS = 6;

    @TempDir
    static Path dir;
    static TestServer server;
    static Https https;
    static String client;
    static final SigningKey KEY = SigningKey.generate();
    /** The block each big key was written in. */
    static final Map<String, Long> BLOCK = new HashMap<>();
    static long headAfterSetup;

    @BeforeAll
    static void start() throws Exception {
        long seed = System.nanoTime();
        System.out.println("ResponseBoundsTest seed " + seed);
        Random rnd = new Random(seed);
        server = new TestServer(dir.resolve("data"), "--glassledger.limits.max-response-bytes=" + MAX_RESPONSE,
                "--glassledger.limits.max-response-bytes-in-flight=" + MAX_IN_FLIGHT);
        https = new Https(server.url(), server.fingerprint());
        client = server.apiKey("default");
        assertEquals(201, https.post("/v1/clients/key", client, Map.of("publicKey", KEY.publicKey().hex())).status());
        // A transaction holds one large value (the transaction limit is 1 MiB), so each is a block of its own.
        for (int i = 0; i < BIG_KEYS; i++) {
            BLOCK.put("big-" + i, commit(new TxnDraft(KEY, 0, System.currentTimeMillis())
                    .put(b("big-" + i), big(rnd)).put(b("small-" + i), b("s" + i))));
        }
        for (int i = 0; i < VERSIONS; i++) {
            commit(new TxnDraft(KEY, 0, System.currentTimeMillis()).put(b("hist"), big(rnd)));
        }
        headAfterSetup = head();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void proofBatchOfManyOneKeyItemsOverLargeValues_isRefusedBeforeItIsMade() throws Exception {
        // 200 one-key items (under the item limit): on the old code, 200 copies of a ~1.3 MB proof, ~260 MB.
        List<Map<String, Object>> items = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            String key = i % 2 == 0 ? "big-" + (i / 2 % BIG_KEYS) : "big-" + (i / 2 % BIG_KEYS) + "x";  // x: absent
            items.add(Map.of("block", BLOCK.get("big-" + (BIG_KEYS - 1)), "keys", List.of(b64(key))));
        }
        long t0 = System.nanoTime();
        var r = https.post("/v1/proofs/batch", client, Map.of("items", items));
        problem(r, 413, "response_too_large");
        assertTrue(r.body().get("detail").asText().contains("max-response-bytes"), r.text());
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(30), "refused quickly");
        assertNothingChanged();

        // A few of the same items fit, and the response stays within the limit.
        var ok = https.post("/v1/proofs/batch", client, Map.of("items", items.subList(0, 2)));
        assertEquals(200, ok.status(), ok.text());
        assertEquals(2, ok.body().get("proofs").size());
        assertTrue(ok.text().length() <= MAX_RESPONSE, "response of " + ok.text().length() + " bytes");
        assertInFlightReturnsToZero();
    }

    @Test
    void proofBatchOfTheIssuesThousandItems_isRefusedByTheItemLimit() throws Exception {
        List<Map<String, Object>> items = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            items.add(Map.of("block", BLOCK.get("big-0"), "keys", List.of(b64("big-0"))));
        }
        var r = https.post("/v1/proofs/batch", client, Map.of("items", items));
        problem(r, 413, "too_large");
        assertTrue(r.body().get("detail").asText().contains("max-proof-items"), r.text());
        assertNothingChanged();
    }

    /**
     * Each absent key's proof sits next to a ~950 KB value, which a proof shows by its hash only (FORMAT.md §3): the
     * proofs of all of them together are small (with format glassledger/1 they were megabytes, and refused).
     */
    @Test
    void nonExistenceProofsNextToLargeValues_areSmall() throws Exception {
        List<String> absent = new ArrayList<>();
        for (int i = 0; i < BIG_KEYS; i++) {
            absent.add(b64("big-" + i + "x"));
        }
        long block = BLOCK.get("big-" + (BIG_KEYS - 1));
        var all = https.post("/v1/proofs/keys", client, Map.of("keys", absent, "block", block));
        assertEquals(200, all.status(), all.text());
        assertTrue(all.text().length() < 64 * 1024, "proofs of " + BIG_KEYS + " absent keys next to large values: "
                + all.text().length() + " bytes");
        all.body().get("claims").forEach(c -> assertTrue(c.get("value").isNull(), "absent"));
        assertNothingChanged();
    }

    @Test
    void historyWithLimit1000OverLargeVersions_isRefusedAndSaysHowManyFit() throws Exception {
        var r = https.post("/v1/history", client, Map.of("key", b64("hist"), "limit", 1000));
        problem(r, 413, "response_too_large");
        String detail = r.body().get("detail").asText();
        var m = java.util.regex.Pattern.compile("latest (\\d+) versions fit").matcher(detail);
        assertTrue(m.find(), detail);
        int fit = Integer.parseInt(m.group(1));
        assertTrue(fit >= 1 && fit < VERSIONS, detail);
        var ok = https.post("/v1/history", client, Map.of("key", b64("hist"), "limit", fit));
        assertEquals(200, ok.status(), ok.text());
        assertEquals(fit, ok.body().get("versions").size());
        assertTrue(ok.text().length() <= MAX_RESPONSE, "response of " + ok.text().length() + " bytes");
        assertNothingChanged();
    }

    @Test
    void getOfManyLargeValues_isRefused() throws Exception {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < BIG_KEYS; i++) {
            keys.add(b64("big-" + i));
        }
        problem(https.post("/v1/get", client, Map.of("keys", keys)), 413, "response_too_large");
        var ok = https.post("/v1/get", client, Map.of("keys", keys.subList(0, 2)));
        assertEquals(200, ok.status(), ok.text());
        assertEquals(BIG, Base64.getDecoder().decode(ok.body().get("items").get(1).get("value").asText()).length);
        assertNothingChanged();
    }

    @Test
    void scanOverLargeValues_endsItsPageAtTheLimitAndContinues() throws Exception {
        List<String> seen = new ArrayList<>();
        String from = b64("big-");
        for (int page = 0; page < BIG_KEYS + 1; page++) {
            var r = https.post("/v1/scan", client, Map.of("from", from, "to", b64("big."), "limit", 10_000));
            assertEquals(200, r.status(), r.text());
            assertTrue(r.text().length() <= MAX_RESPONSE, "page of " + r.text().length() + " bytes");
            JsonNode items = r.body().get("items");
            assertFalse(items.isEmpty());
            items.forEach(i -> seen.add(new String(Base64.getDecoder().decode(i.get("key").asText()))));
            if (page == 0) {
                assertTrue(r.body().get("more").asBoolean() && items.size() < BIG_KEYS, "the first page ends early");
            }
            if (!r.body().get("more").asBoolean()) {
                break;
            }
            from = b64(seen.get(seen.size() - 1) + "\0");
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < BIG_KEYS; i++) {
            expected.add("big-" + i);
        }
        assertEquals(expected, seen, "every entry once, in order");
    }

    @Test
    void responsesInFlightOverTheGlobalBound_get503WithRetryAfter_untilTheyAreSent() throws Exception {
        ResponseBudget budget = server.bean(ResponseBudget.class);
        Map<String, Object> req = Map.of("keys", List.of(b64("big-0")));
        assertInFlightReturnsToZero();
        // Other responses, not yet sent, hold all but 1 MB of the bound: a 1.3 MB response must wait.
        try (ResponseBudget.Lease others = budget.open()) {
            others.charge(MAX_RESPONSE, "");
            try (ResponseBudget.Lease more = budget.open()) {
                more.charge(MAX_RESPONSE, "");
                try (ResponseBudget.Lease most = budget.open()) {
                    most.charge(MAX_IN_FLIGHT - 2 * MAX_RESPONSE - 1_000_000, "");
                    var r = https.post("/v1/get", client, req);
                    problem(r, 503, "overloaded");
                    assertTrue(r.body().get("retryable").asBoolean());
                    assertNotNull(r.retryAfter(), "Retry-After");
                    assertTrue(r.body().get("detail").asText().contains("max-response-bytes-in-flight"), r.text());
                    // A small response still fits.
                    assertEquals(200, https.post("/v1/get", client, Map.of("keys", List.of(b64("small-0")))).status());
                }
            }
        }
        assertInFlightReturnsToZero();
        assertEquals(200, https.post("/v1/get", client, req).status());
        assertInFlightReturnsToZero();
    }

    @Test
    void concurrentMediumResponses_neverHoldMoreThanTheGlobalBound() throws Exception {
        // 12 concurrent ~2.5 MB responses against a 12 MiB bound: each is answered whole or refused with 503.
        Map<String, Object> req = Map.of("keys", List.of(b64("big-0"), b64("big-1")));
        ExecutorService pool = Executors.newFixedThreadPool(12);
        try {
            List<Future<Https.Response>> fs = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                fs.add(pool.submit((Callable<Https.Response>) () -> https.post("/v1/get", client, req)));
            }
            int ok = 0;
            for (Future<Https.Response> f : fs) {
                Https.Response r = f.get(60, TimeUnit.SECONDS);
                if (r.status() == 200) {
                    assertEquals(2, r.body().get("items").size());
                    ok++;
                } else {
                    problem(r, 503, "overloaded");
                }
            }
            assertTrue(ok >= 1, "the first response to charge always fits");
        } finally {
            pool.shutdownNow();
        }
        assertInFlightReturnsToZero();
    }

    // ------------------------------------------------------------------------------------------------ helpers

    static void assertInFlightReturnsToZero() {
        ResponseBudget budget = server.bean(ResponseBudget.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> budget.inFlight() == 0);
    }

    /** The head has not moved and the big values are intact. */
    static void assertNothingChanged() throws Exception {
        assertEquals(headAfterSetup, head());
        var got = https.post("/v1/get", client, Map.of("keys", List.of(b64("small-0"), b64("small-5"))));
        assertEquals(200, got.status(), got.text());
        assertEquals(b64("s0"), got.body().get("items").get(0).get("value").asText());
        assertEquals(b64("s5"), got.body().get("items").get(1).get("value").asText());
    }

    static long head() throws Exception {
        return https.get("/v1/head", client).body().get("block").asLong();
    }

    static long commit(TxnDraft d) throws Exception {
        var r = https.post("/v1/tx/commit", client, Map.of("record",
                Base64.getEncoder().encodeToString(d.sign().record()), "waitPersisted", true));
        assertEquals(200, r.status(), r.text());
        return r.body().get("block").asLong();
    }

    static Bytes big(Random rnd) {
        byte[] v = new byte[BIG];
        rnd.nextBytes(v);
        return Bytes.of(v);
    }

    static Bytes b(String s) {
        return Bytes.utf8(s);
    }

    static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    static void problem(Https.Response r, int status, String code) {
        assertEquals(status, r.status(), r.text().length() > 2000 ? r.text().substring(0, 2000) : r.text());
        assertTrue(r.contentType().startsWith("application/problem+json"), r.contentType());
        assertEquals(code, r.body().get("code").asText(), String.valueOf(r.body()));
        assertTrue(r.text().length() < 4096, "a problem, not a payload");
    }
}
