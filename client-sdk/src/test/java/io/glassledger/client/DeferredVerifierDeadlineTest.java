package io.glassledger.client;

import static io.glassledger.client.TestLedger.b;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
import io.glassledger.verify.txn.SignedTransaction;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The promise deadline of {@link DeferredVerifier}, driven by a ticker the test moves, against a loopback server that
 * answers proof batches from a real in-memory ledger ({@link TestLedger}): blocks the ledger does not have are
 * PENDING, as a server would say. Nothing depends on how fast this machine is: a promise can only go overdue once the
 * test moves the ticker past its deadline. Overdue is unavailability, never a violation: a violation comes only with
 * evidence (here, the block proven without the promised write).
 */
class DeferredVerifierDeadlineTest {
    static final Duration DEADLINE = Duration.ofSeconds(10);

    final TestLedger l = new TestLedger();
    final AtomicLong ticker = new AtomicLong();
    final AtomicInteger batches = new AtomicInteger();
    final List<IntegrityViolation> violations = new CopyOnWriteArrayList<>();
    final List<PromiseOverdue> overdue = new CopyOnWriteArrayList<>();
    volatile boolean allPending;
    HttpServer server;
    ExecutorService pool;
    Api api;
    DeferredVerifier verifier;

    @BeforeEach
    void start() throws IOException {
        for (int i = 1; i <= 3; i++) {
            int n = i;
            l.append(l.tx(d -> d.put(b("k" + n), b("v" + n))));
        }
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        pool = Executors.newFixedThreadPool(2);
        server.setExecutor(pool);
        server.createContext("/v1/proofs/batch", ex -> {
            try (ex) {
                Dto.ProofBatchRequest req = Json.MAPPER.readValue(ex.getRequestBody(), Dto.ProofBatchRequest.class);
                byte[] body = Json.write(answer(req));
                ex.getResponseHeaders().set("Content-Type", "application/json");
                ex.sendResponseHeaders(200, body.length);
                ex.getResponseBody().write(body);
                batches.incrementAndGet();
            }
        });
        server.start();
        api = new Api(URI.create("http://127.0.0.1:" + server.getAddress().getPort()), "key", null,
                Duration.ofSeconds(30), ClientConfig.DEFAULT_MAX_RESPONSE_BYTES);
        TrustStore store = TrustStore.open(null);
        store.initialize(l.trust(3));
        TrustKeeper keeper = new TrustKeeper(store, api, l.server.publicKey(), TestLedger.SHARD);
        verifier = new DeferredVerifier(api, keeper, new Violations(violations::add), 1000, Duration.ZERO,
                Duration.ofSeconds(30), DEADLINE, 2, ticker::get, overdue::add);
    }

    @AfterEach
    void stop() {
        verifier.close();
        api.close();
        server.stop(0);
        pool.shutdownNow();
    }

    /** What the ledger's server answers; with {@link #allPending}, a server that says PENDING to everything. */
    private Dto.ProofBatchResponse answer(Dto.ProofBatchRequest req) {
        long head = l.digest().blockNo();
        List<Dto.KeysProofDto> proofs = new ArrayList<>();
        boolean ready = false;
        for (Dto.ProofItem i : req.items()) {
            if (allPending || i.block() > head) {
                proofs.add(new Dto.KeysProofDto(i.block(), "PENDING", null, null, null, null));
            } else {
                proofs.add(l.proof(i.block(), i.keys().stream().map(k -> Wire.requiredBytes("k", k)).toList()));
                ready = true;
            }
        }
        List<Dto.AppendOnlyProofDto> ao = ready && head > req.trustedBlock()
                ? List.of(l.appendOnly(req.trustedBlock(), head)) : List.of();
        return new Dto.ProofBatchResponse(proofs, ao, Wire.signedHead(l.head()));
    }

    private void advanceTo(Duration t) {
        ticker.set(t.toNanos());
        verifier.wake();
    }

    /** Waits for the n-th proof batch to be answered and its promise to be back in the queue, judged. */
    private void awaitRounds(int n) {
        await().atMost(Duration.ofSeconds(30)).until(() -> batches.get() >= n);
        await().atMost(Duration.ofSeconds(30)).until(() -> verifier.queued() == 1);
    }

    @Test
    void pendingUntilTheDeadline_isNotJudged_thenPastIt_isOverdue_andABlockWithoutTheWrite_isTheViolation() {
        SignedTransaction t = l.tx(d -> d.put(b("dropped"), b("1")));
        CommitPromise p = l.promise(t, 4, 3, List.of());  // block 4: the shard makes it without this write
        verifier.submit(p, Duration.ZERO);
        int seen = 0;
        for (Duration at : List.of(Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(5),
                DEADLINE.minusMillis(1))) {
            advanceTo(at);
            awaitRounds(++seen);
            seen = batches.get();
            assertFalse(p.outcome().isDone(), "judged at " + at + ", before the deadline " + DEADLINE);
            assertTrue(overdue.isEmpty() && p.overdue().isEmpty(), "overdue at " + at);
        }
        advanceTo(DEADLINE);
        await().atMost(Duration.ofSeconds(30)).until(() -> overdue.size() == 1);
        PromiseOverdue o = overdue.get(0);
        assertEquals(t.txId(), o.txId());
        assertEquals(4, o.block());
        assertEquals(PromiseOverdue.CODE, o.code());
        assertTrue(o.retryable());
        assertTrue(o.lastAnswer().contains("PENDING"), o.lastAnswer());
        assertEquals(List.of(l.head()), o.headsSeen());
        assertEquals(o, p.overdue().orElseThrow());
        assertFalse(p.outcome().isDone(), "overdue is not an outcome: the promise is asked for again");
        assertTrue(violations.isEmpty(), "no evidence, no accusation: " + violations);

        // The shard answers at last, with a block 4 that does not hold the write: that proof is the evidence.
        l.append(l.tx(d -> d.put(b("other"), b("2"))));
        advanceTo(DEADLINE.plus(PromiseOverdue.RETRY_CAP));
        await().atMost(Duration.ofSeconds(30)).until(() -> p.outcome().isDone());
        IntegrityViolation v = violation(p);
        assertEquals(IntegrityViolation.Kind.BAD_PROOF, v.kind(), v.getMessage());
        assertEquals(List.of(t.txId()), v.evidence().txIds());
        assertEquals(4, v.evidence().serverDigest().blockNo());
        assertTrue(v.evidence().proof() != null && v.evidence().serverHead() != null, "the proof and the signed head");
        assertEquals(List.of(v), violations);
        assertEquals(1, overdue.size(), "reported overdue once");
    }

    @Test
    void anOverduePromise_provenLate_verifies_andIsCounted() throws Exception {
        SignedTransaction t = l.tx(d -> d.put(b("late"), b("1")));
        CommitPromise p = l.promise(t, 4, 3, List.of());
        verifier.submit(p, Duration.ZERO);
        advanceTo(DEADLINE);
        await().atMost(Duration.ofSeconds(30)).until(() -> overdue.size() == 1);
        l.append(t);  // a failover kept it from being proven on time; the shard had it all along
        advanceTo(DEADLINE.plus(PromiseOverdue.RETRY_CAP));
        assertEquals(4, p.outcome().get(30, java.util.concurrent.TimeUnit.SECONDS).block());
        assertTrue(violations.isEmpty(), violations.toString());
        assertEquals(1, verifier.stats().overdue());
        assertEquals(1, verifier.stats().overdueProven());
    }

    @Test
    void pendingAtOrBelowAHeldSignedHead_isOverdueAtOnce_notAViolation() throws Exception {
        allPending = true;
        SignedTransaction t = l.tx(d -> d.put(b("k3"), b("v3")));
        CommitPromise p = l.promise(t, 3, 2, List.of());  // the client holds the signed head of block 3
        verifier.submit(p, Duration.ZERO);
        await().atMost(Duration.ofSeconds(30)).until(() -> overdue.size() == 1);
        assertEquals(0, ticker.get(), "no time passed");
        assertTrue(overdue.get(0).lastAnswer().contains("signed block 3"), overdue.get(0).lastAnswer());
        assertFalse(p.outcome().isDone());
        assertTrue(violations.isEmpty(), "an unsigned PENDING proves nothing to a third party");
        allPending = false;  // e.g. the client had reached a replica behind the one that signed
        advanceTo(PromiseOverdue.RETRY_CAP);
        assertEquals(3, p.outcome().get(30, java.util.concurrent.TimeUnit.SECONDS).block());
        assertTrue(violations.isEmpty(), violations.toString());
    }

    @Test
    void aPromiseKeptBeforeItsDeadline_verifies() throws Exception {
        SignedTransaction t = l.tx(d -> d.put(b("late"), b("1")));
        CommitPromise p = l.promise(t, 4, 3, List.of());
        verifier.submit(p, Duration.ZERO);
        awaitRounds(1);
        l.append(t);  // block 4 after all, before the deadline
        advanceTo(DEADLINE.minusMillis(1));
        await().atMost(Duration.ofSeconds(30)).until(() -> p.outcome().isDone());
        assertEquals(4, p.outcome().get().block());
        assertTrue(violations.isEmpty(), violations.toString());
    }

    @Test
    void theQueueIsBounded_andAPlaceIsFreedWhenACheckCompletes() {
        allPending = true;
        assertTrue(verifier.reserve());
        assertTrue(verifier.reserve());
        assertFalse(verifier.reserve(), "capacity 2");
        GlassLedgerException e = verifier.backlog(Duration.ofMillis(100));
        assertEquals(GlassLedgerException.VERIFIER_BACKLOG, e.code());
        assertTrue(e.retryable());
        verifier.unreserve();
        verifier.unreserve();
        // Two promises take both places until their checks complete: overdue (PENDING at signed block 3) keeps
        // them; the proof of block 3, which holds neither write, completes them (violations).
        CommitPromise a = l.promise(l.tx(d -> d.put(b("a"), b("1"))), 3, 3, List.of());
        CommitPromise c = l.promise(l.tx(d -> d.put(b("c"), b("1"))), 3, 3, List.of());
        verifier.submit(a, Duration.ofSeconds(1));
        verifier.submit(c, Duration.ofSeconds(1));
        assertFalse(verifier.reserve(), "two promises waiting");
        advanceTo(Duration.ofSeconds(1));
        await().atMost(Duration.ofSeconds(30)).until(() -> overdue.size() == 2);
        assertFalse(verifier.reserve(), "overdue promises keep their places");
        allPending = false;
        advanceTo(Duration.ofSeconds(1).plus(PromiseOverdue.RETRY_CAP));
        await().atMost(Duration.ofSeconds(30)).until(() -> a.outcome().isDone() && c.outcome().isDone());
        await().atMost(Duration.ofSeconds(30)).until(verifier::reserve);
    }

    private static IntegrityViolation violation(CommitPromise p) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> p.outcome().get());
        return assertInstanceOf(IntegrityViolation.class, e.getCause());
    }
}
