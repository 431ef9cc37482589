package io.glassledger.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.glassledger.api.Dto;
import io.glassledger.client.ClientConfig;
import io.glassledger.client.CommitPromise;
import io.glassledger.client.GlassLedgerClient;
import io.glassledger.client.GlassLedgerException;
import io.glassledger.client.IntegrityViolation;
import io.glassledger.client.PromiseOverdue;
import io.glassledger.client.Txn;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.api.Wire;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.SignedHead;
import io.glassledger.verify.txn.SignedTransaction;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issues 16 and 31, over real HTTPS, against a dishonest double of the server (a {@link LyingProxy} holding its TLS
 * key): a commit acknowledged and never put in a block is overdue by its promise's deadline (unavailability, no
 * accusation), and a violation, with its evidence, once the shard proves the block without it; a server that says
 * PENDING for a block it already signed, or denies the promised block, is overdue at once, not accused; one that
 * serves a forked head is caught; the verifier's queue pushes back on commit; and a "latest" read answered with an
 * older block's (valid) proof is refused.
 */
class SdkPromiseKeepingTest {
    @TempDir
    Path dir;
    final List<AutoCloseable> open = new ArrayList<>();
    final List<IntegrityViolation> violations = new CopyOnWriteArrayList<>();
    final List<PromiseOverdue> overdue = new CopyOnWriteArrayList<>();
    final SigningKey key = SigningKey.generate();
    final ObjectMapper json = new ObjectMapper();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    <T extends AutoCloseable> T keep(T c) {
        open.add(c);
        return c;
    }

    GlassLedgerClient client(TestServer s, String url, String state, UnaryOperator<ClientConfig.Builder> more) {
        ClientConfig.Builder b = ClientConfig.builder().url(url).apiKey(s.apiKey("default"))
                .pinnedCertSha256(s.fingerprint()).signingKey(key).stateFile(dir.resolve(state))
                .violationHandler(violations::add).overdueHandler(overdue::add);
        return keep(GlassLedgerClient.connect(more.apply(b).build()));
    }

    @Test
    void aCommitLeftOutOfEveryBlock_isOverdueByItsDeadline_andTheBlockProvenWithoutIt_isTheViolation()
            throws Exception {
        TestServer s = keep(new TestServer(dir.resolve("a")));  // persists every 20 ms and says so in /v1/info
        String apiKey = s.apiKey("default");
        LyingProxy proxy = keep(new LyingProxy(s.dataDir.resolve("tls"), s.url()));
        GlassLedgerClient victim = client(s, proxy.url(), "victim.json", b -> b.verifyDelay(Duration.ofMillis(50))
                .promiseDeadlineIntervals(50));
        Duration deadline = Duration.ofMillis(50 + 50 * 20);
        victim.runTransaction(t -> t.put("before", "1")).promise().verification().get(30, TimeUnit.SECONDS);

        // The operator acknowledges the commit of "dropped" with a promise for the next block, and never forwards it;
        // asked for that block's proofs, it says "not persisted yet", with its current (genuine) signed head.
        Dto.SignedHeadDto head = json.readValue(proxy.upstreamGet("/v1/head", apiKey), Dto.SignedHeadDto.class);
        long promised = head.block() + 1;
        proxy.intercept = (path, req) -> {
            if (path.equals("/v1/tx/commit")) {
                Dto.CommitRequest c = json.readValue(req, Dto.CommitRequest.class);
                SignedTransaction tx = SignedTransaction.decode(Base64.getDecoder().decode(c.record()));
                return json.writeValueAsString(new Dto.PromiseDto(tx.txId().hex(), 0, promised,
                        new Dto.DigestDto(head.block(), head.hash())));
            }
            if (path.equals("/v1/proofs/batch")) {
                Dto.ProofBatchRequest r = json.readValue(req, Dto.ProofBatchRequest.class);
                return json.writeValueAsString(new Dto.ProofBatchResponse(r.items().stream()
                        .map(i -> new Dto.KeysProofDto(i.block(), "PENDING", null, null, null, null)).toList(),
                        List.of(), head));
            }
            return null;
        };
        long t0 = System.nanoTime();
        CommitPromise p = victim.runTransaction(t -> t.put("dropped", "42")).promise();
        assertEquals(promised, p.block());

        // By its deadline it is overdue: unavailability, reported once, and no accusation (nothing signed says so).
        await().atMost(deadline.plusSeconds(10)).until(() -> !overdue.isEmpty());
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        assertTrue(took.compareTo(deadline) >= 0, "overdue at " + took + ", before the deadline " + deadline);
        PromiseOverdue o = overdue.get(0);
        assertEquals(p.txId(), o.txId());
        assertEquals(promised, o.block());
        assertEquals(head.block(), o.headsSeen().get(o.headsSeen().size() - 1).digest().blockNo());
        assertEquals(o, p.overdue().orElseThrow());
        assertFalse(p.verification().isDone(), "still asked for");
        assertTrue(violations.isEmpty(), violations.toString());

        // The operator stops withholding: the shard's real block `promised` (another commit's) gets proven, and it
        // does not hold the write. That proof, against a digest the shard signed, is the evidence.
        proxy.tellTheTruth();
        victim.runTransaction(t -> t.put("after", "1")).promise().verification().get(30, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(30)).until(() -> p.verification().isDone());
        ExecutionException e = assertThrows(ExecutionException.class, () -> p.verification().get());
        IntegrityViolation v = assertInstanceOf(IntegrityViolation.class, e.getCause());
        assertEquals(IntegrityViolation.Kind.BAD_PROOF, v.kind(), v.getMessage());
        assertEquals(List.of(p.txId()), v.evidence().txIds());
        assertTrue(v.evidence().proof() != null && v.evidence().serverHead() != null, "the proof and its signed head");
        assertTrue(v.evidence().serverDigest().blockNo() >= promised);
        assertEquals(List.of(v), violations);
        assertEquals(1, overdue.size(), "overdue once");
        assertNull(victim.get("dropped"), "the server never had it");
    }

    @Test
    void aPromisedBlockTheServerDenies_isOverdueAtOnce_notAViolation_andOnlyThatPromiseIs() throws Exception {
        TestServer s = keep(new TestServer(dir.resolve("a")));
        String apiKey = s.apiKey("default");
        LyingProxy proxy = keep(new LyingProxy(s.dataDir.resolve("tls"), s.url()));
        GlassLedgerClient victim = client(s, proxy.url(), "victim.json", b -> b.verifyDelay(Duration.ofMillis(300))
                .persistInterval(Duration.ofSeconds(1)).promiseDeadlineIntervals(600));
        Dto.SignedHeadDto head = json.readValue(proxy.upstreamGet("/v1/head", apiKey), Dto.SignedHeadDto.class);
        long promised = head.block() + 1000;  // the shard will answer unknown_block: it never promised that block
        proxy.intercept = (path, req) -> {
            if (path.equals("/v1/tx/commit")) {
                Dto.CommitRequest c = json.readValue(req, Dto.CommitRequest.class);
                SignedTransaction tx = SignedTransaction.decode(Base64.getDecoder().decode(c.record()));
                if (tx.tx().writes().get(0).key().equals(Bytes.utf8("dropped"))) {
                    return json.writeValueAsString(new Dto.PromiseDto(tx.txId().hex(), 0, promised,
                            new Dto.DigestDto(head.block(), head.hash())));
                }
            }
            return null;
        };
        CommitPromise dropped = victim.runTransaction(t -> t.put("dropped", "1")).promise();
        CommitPromise kept = victim.runTransaction(t -> t.put("kept", "2")).promise();

        // Far from its deadline: the denial alone makes it overdue (an unsigned answer proves nothing to others).
        await().atMost(Duration.ofSeconds(30)).until(() -> !overdue.isEmpty());
        assertEquals(List.of(dropped.txId()), overdue.stream().map(PromiseOverdue::txId).toList());
        assertTrue(overdue.get(0).lastAnswer().startsWith("unknown_block"), overdue.get(0).lastAnswer());
        assertEquals(kept.block(), kept.verification().get(30, TimeUnit.SECONDS).block(), "the kept one verifies");
        assertFalse(dropped.verification().isDone(), "asked for again, not judged");
        assertTrue(kept.overdue().isEmpty());
        assertTrue(violations.isEmpty(), violations.toString());
    }

    @Test
    void pendingForABlockTheServerAlreadySigned_isOverdueAtOnce_andVerifiesOnceProven() throws Exception {
        TestServer s = keep(new TestServer(dir.resolve("a")));
        LyingProxy proxy = keep(new LyingProxy(s.dataDir.resolve("tls"), s.url()));
        // A deadline far away: what is reported here is reported without waiting for it.
        GlassLedgerClient victim = client(s, proxy.url(), "victim.json", b -> b.verifyDelay(Duration.ofMillis(200))
                .persistInterval(Duration.ofSeconds(1)).promiseDeadlineIntervals(600));
        CountDownLatch headSeen = new CountDownLatch(1);
        proxy.intercept = (path, req) -> {
            if (path.equals("/v1/proofs/batch") && !headSeen.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never let the batch go");
            }
            return null;
        };
        proxy.lie((path, req, resp) -> path.equals("/v1/proofs/batch") ? allPending(resp) : null);
        CommitPromise p = victim.runTransaction(t -> t.put("k", "v")).promise();
        // The client learns a signed head at or after the promised block (a verified read of the head).
        await().atMost(Duration.ofSeconds(30)).until(() -> victim.head().digest().blockNo() >= p.block());
        headSeen.countDown();

        await().atMost(Duration.ofSeconds(20)).until(() -> !overdue.isEmpty());
        assertTrue(overdue.get(0).lastAnswer().contains("signed block"), overdue.get(0).lastAnswer());
        assertFalse(p.verification().isDone());
        assertTrue(violations.isEmpty(), "a PENDING answer is not signed: " + violations);
        proxy.tellTheTruth();  // e.g. a replica behind the one that signed, caught up
        assertEquals(p.block(), p.verification().get(30, TimeUnit.SECONDS).block());
        assertTrue(violations.isEmpty(), violations.toString());
    }

    @Test
    void aForkedHeadSignedByTheShard_isAForkWithBothSignedHeads() throws Exception {
        TestServer s = keep(new TestServer(dir.resolve("a")));
        LyingProxy proxy = keep(new LyingProxy(s.dataDir.resolve("tls"), s.url()));
        GlassLedgerClient victim = client(s, proxy.url(), "victim.json", b -> b.verifyDelay(Duration.ofMillis(50)));
        victim.runTransaction(t -> t.put("a", "1")).promise().verification().get(30, TimeUnit.SECONDS);
        SignedHead trusted = victim.trustedState(0).signedHead();
        // The operator, who holds the shard's key, answers the next batch from a second history: a head of the
        // trusted block with another hash, signed, and the proofs against it.
        SigningKey shardKey = SigningKey.fromSeed(java.util.HexFormat.of().parseHex(
                java.nio.file.Files.readString(s.dataDir.resolve("server.key")).trim()));
        Digest forked = new Digest(trusted.digest().blockNo(), io.glassledger.verify.hash.Hash.ZERO);
        SignedHead forkedHead = SignedHead.sign(shardKey, 0, forked, trusted.timestamp());
        proxy.lie((path, req, resp) -> {
            if (!path.equals("/v1/proofs/batch")) {
                return null;
            }
            try {
                ObjectNode root = (ObjectNode) json.readTree(resp);
                for (var proof : root.get("proofs")) {
                    if (proof.get("digest") != null && proof.get("digest").isObject()) {
                        ((ObjectNode) proof).set("digest", json.valueToTree(Wire.digest(forked)));
                    }
                }
                root.set("head", json.valueToTree(Wire.signedHead(forkedHead)));
                root.set("appendOnly", json.createArrayNode());
                return json.writeValueAsString(root);
            } catch (Exception x) {
                throw new IllegalStateException(x);
            }
        });
        CommitPromise p = victim.runTransaction(t -> t.put("b", "2")).promise();
        await().atMost(Duration.ofSeconds(30)).until(() -> p.verification().isDone());
        ExecutionException e = assertThrows(ExecutionException.class, () -> p.verification().get());
        IntegrityViolation v = assertInstanceOf(IntegrityViolation.class, e.getCause());
        assertEquals(IntegrityViolation.Kind.FORK, v.kind(), v.getMessage());
        // Two heads of one block, both signed by the shard's key: anyone can check them.
        assertEquals(trusted, v.evidence().trustedHead());
        assertEquals(forkedHead, v.evidence().serverHead());
        assertTrue(violations.contains(v));
        assertTrue(overdue.isEmpty(), overdue.toString());
    }

    @Test
    void aFullVerifierQueue_refusesCommitBeforeSendingIt_untilAPromiseIsChecked() throws Exception {
        TestServer s = keep(new TestServer(dir.resolve("a")));
        GlassLedgerClient c = client(s, s.url(), "c.json", b -> b.verifyDelay(Duration.ofMillis(300))
                .maxUnverifiedPromises(1));
        CommitPromise first = c.begin().put("first", "1").commit();
        Txn second = c.begin().put("second", "2");
        GlassLedgerException e = assertThrows(GlassLedgerException.class, second::commit);
        assertEquals(GlassLedgerException.VERIFIER_BACKLOG, e.code());
        assertTrue(e.retryable());
        first.verification().get(30, TimeUnit.SECONDS);
        assertNull(c.get("second"), "the refused commit was never sent");
        // Once the first promise is checked its place is free again; runTransaction also retries the refusal.
        CommitPromise third = c.runTransaction(t -> t.put("third", "3")).promise();
        third.verification().get(30, TimeUnit.SECONDS);
        assertEquals("3", c.get("third"));
        assertTrue(violations.isEmpty(), violations.toString());
    }

    @Test
    void aLatestReadAnsweredWithAnOlderBlocksValidProof_isAStaleRead() throws Exception {
        TestServer s = keep(new TestServer(dir.resolve("a")));
        LyingProxy proxy = keep(new LyingProxy(s.dataDir.resolve("tls"), s.url()));
        GlassLedgerClient honest = client(s, s.url(), "honest.json", b -> b.verifyDelay(Duration.ZERO));
        CommitPromise old = honest.runTransaction(t -> t.put("price", "10")).promise();
        GlassLedgerClient victim = client(s, proxy.url(), "victim.json", b -> b.verifyDelay(Duration.ZERO));
        assertEquals("10", victim.get("price"));
        long trusted = victim.digest().blockNo();
        honest.runTransaction(t -> t.put("price", "99"));

        // The operator answers "the latest value" with the state of the block the victim trusts, proven (validly)
        // against its newest digest: an old value that verifies.
        proxy.requestLie = (path, req) -> {
            if (!path.equals("/v1/proofs/keys")) {
                return null;
            }
            try {
                ObjectNode r = (ObjectNode) json.readTree(req);
                if (r.get("block") == null || r.get("block").isNull()) {
                    r.put("block", trusted);
                }
                return json.writeValueAsString(r);
            } catch (Exception x) {
                throw new IllegalStateException(x);
            }
        };
        IntegrityViolation v = assertThrows(IntegrityViolation.class, () -> victim.get("price"));
        assertEquals(IntegrityViolation.Kind.STALE_READ, v.kind(), v.getMessage());
        assertTrue(v.evidence().serverDigest().blockNo() > old.block(), v.getMessage());
        assertTrue(violations.contains(v));
        // The same old state asked for by block is a true answer, and the truth about the latest is the new value.
        assertEquals("10", new String(victim.get("price".getBytes(), trusted)));
        proxy.tellTheTruth();
        assertEquals("99", victim.get("price"));
    }

    private String allPending(String resp) {
        try {
            ObjectNode root = (ObjectNode) json.readTree(resp);
            ArrayNode proofs = (ArrayNode) root.get("proofs");
            for (int i = 0; i < proofs.size(); i++) {
                long block = proofs.get(i).get("block").asLong();
                proofs.set(i, json.valueToTree(new Dto.KeysProofDto(block, "PENDING", null, null, null, null)));
            }
            root.set("appendOnly", json.createArrayNode());
            return json.writeValueAsString(root);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
