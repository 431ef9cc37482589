package io.glassledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.txn.TxnDraft;
import io.glassledger.server.api.Problems;
import io.glassledger.server.shard.Shard;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;

/**
 * Issue 15.6, shutdown: reads and proofs in flight while the shard closes end with the documented
 * {@code unavailable}, never on a closed RocksDB handle (a use after free in native code).
 */
class ShutdownTest {
    @TempDir
    Path dir;

    @Test
    void close_withProofsInFlight_failsThemAsUnavailableOnly() throws Exception {
        TestServer server = new TestServer(dir.resolve("data"));
        try {
            Https https = new Https(server.url(), server.fingerprint());
            String client = server.apiKey("default");
            SigningKey key = SigningKey.generate();
            assertEquals(201, https.post("/v1/clients/key", client, Map.of("publicKey", key.publicKey().hex()))
                    .status());
            for (int i = 0; i < 20; i++) {
                var stx = new TxnDraft(key, 0, System.currentTimeMillis()).put(Bytes.utf8("k" + i), Bytes.utf8("v"))
                        .sign();
                assertEquals(200, https.post("/v1/tx/commit", client, Map.of("record",
                        Base64.getEncoder().encodeToString(stx.record()), "waitPersisted", true)).status());
            }
            Shard shard = server.bean(Shard.class);
            long head = shard.engine().digest().blockNo();
            assertTrue(head >= 2, "blocks to prove over: " + head);

            AtomicLong done = new AtomicLong();
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            List<Thread> readers = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                Thread r = new Thread(() -> {
                    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                    for (long n = 0; System.nanoTime() < deadline; n++) {
                        long b = 1 + n % head;
                        try {
                            Mono.fromCallable(() -> {
                                shard.engine().proveAppendOnly(0, b);
                                shard.engine().ledger().blockTransactions(b);
                                return shard.engine().ledger().proveKeys(List.of(Bytes.utf8("k1")), b, head);
                            }).subscribeOn(shard.reads()).block(Duration.ofSeconds(30));
                            done.incrementAndGet();
                        } catch (Throwable e) {
                            failures.add(e);
                            return;
                        }
                    }
                }, "proof-reader-" + t);
                r.start();
                readers.add(r);
            }
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> done.get() >= 200);
            shard.close();  // what Spring's shutdown calls, here while the readers are running
            for (Thread r : readers) {
                r.join(Duration.ofSeconds(60).toMillis());
                assertTrue(!r.isAlive(), r.getName() + " still running");
            }
            assertEquals(readers.size(), failures.size(), "every reader stopped on a failure");
            for (Throwable e : failures) {
                var p = Problems.response(e);
                assertEquals(503, p.getStatusCode().value(), e.toString());
                assertEquals("unavailable", p.getBody().getProperties().get("code"), e.toString());
            }
        } finally {
            server.close();
        }
    }
}
