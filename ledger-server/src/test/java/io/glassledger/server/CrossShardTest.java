package io.glassledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.glassledger.client.ClientConfig;
import io.glassledger.client.CommitPromise;
import io.glassledger.client.GlassLedgerClient;
import io.glassledger.client.GlassLedgerException;
import io.glassledger.client.IntegrityViolation;
import io.glassledger.client.Txn;
import io.glassledger.client.cli.LedgerCli;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.core.txn.TxState;
import io.glassledger.server.shard.Shard;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two shards in this JVM, sharing a certificate and API keys as {@code ./glassledger cluster start} arranges: the
 * SDK routes keys by the shard map, commits across both with two-phase commit, verifies every participant's
 * promise, and catches a lie told by either shard. A stale map version on the client is refused at connect.
 *
 * <p>The pair of shards is started once for the class (three Spring starts, the most of this test's time); each
 * test has keys of its own (a prefix, {@link #ns}), its own clients, state files and proxies,
 * and puts back the peer proxies it redirected. A test that leaves a transaction prepared (locks held for the
 * 10-minute prepare timeout) holds only its own keys.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CrossShardTest {
    /** Shared by the tests, as the shards are: each test names its own files in it. */
    @TempDir
    static Path dir;
    /** What one test opened (clients, proxies), closed after it. */
    final List<AutoCloseable> open = new ArrayList<>();
    final List<IntegrityViolation> violations = new CopyOnWriteArrayList<>();
    final ObjectMapper json = new ObjectMapper();
    TestServer[] shards;
    /** The current test's key prefix: no test sees another's keys, or the locks another left prepared. */
    String ns;
    int tests;

    @BeforeAll
    void startPair() throws Exception {
        shards = startShards();
    }

    @BeforeEach
    void freshTest() {
        ns = "t" + (++tests) + "-";
        violations.clear();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        open.clear();
        for (int n = 0; n < 2; n++) {
            fronts[n].upstream = shards[n].url();  // a test may have cut a shard off from its peer
        }
    }

    @AfterAll
    void stopPair() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {shards == null ? null : shards[1], shards == null ? null : shards[0],
            fronts == null ? null : fronts[1], fronts == null ? null : fronts[0]}) {
            if (c != null) {
                c.close();
            }
        }
    }

    /** The pair of shards, started once for the class ({@link #startPair}). */
    TestServer[] pair() {
        return shards;
    }

    static final String PEER_KEY = "peer-key-of-the-cross-shard-test-0123456789";

    /**
     * Two shards that know each other as peers: shard 0 starts once to make the TLS key and API keys the cluster
     * shares, then both start with a peer list naming a forwarding proxy per shard (its port is known before the
     * shard's own), as the participants of a cross-shard transaction ask its primary for the decision.
     */
    LyingProxy[] fronts;

    TestServer[] startShards() throws Exception {
        Path d0 = dir.resolve("shard-0");
        Path d1 = dir.resolve("shard-1");
        new TestServer(d0, "--glassledger.shard=0", "--glassledger.cluster.shards=2",
                "--glassledger.cluster.map-version=2").close();
        Files.createDirectories(d1.resolve("auth"));
        copyTree(d0.resolve("tls"), d1.resolve("tls"));
        Files.copy(d0.resolve("auth").resolve("api-keys.json"), d1.resolve("auth").resolve("api-keys.json"));
        LyingProxy[] front = fronts = new LyingProxy[] {new LyingProxy(d0.resolve("tls"), null),
            new LyingProxy(d0.resolve("tls"), null)};
        TestServer[] s = new TestServer[2];
        for (int n = 0; n < 2; n++) {
            s[n] = new TestServer(n == 0 ? d0 : d1, "--glassledger.shard=" + n, "--glassledger.cluster.shards=2",
                    "--glassledger.cluster.map-version=2", "--glassledger.cluster.peer-key=" + PEER_KEY,
                    "--glassledger.cluster.prepare-timeout=10m",  // no resolver acts during a test
                    "--glassledger.cluster.peers=" + front[0].url() + "," + front[1].url());
            front[n].upstream = s[n].url();
        }
        return s;
    }

    GlassLedgerClient client(TestServer s0, List<String> urls, String state, Long mapVersion) {
        return client(s0, urls, state, mapVersion, ClientConfig.DEFAULT_REQUEST_TIMEOUT);
    }

    GlassLedgerClient client(TestServer s0, List<String> urls, String state, Long mapVersion, Duration timeout) {
        ClientConfig.Builder b = ClientConfig.builder().requestTimeout(timeout).shards(urls.stream().map(java.net.URI::create).toList())
                .apiKey(s0.apiKey("default")).pinnedCertSha256(s0.fingerprint()).signingKey(key)
                .stateFile(dir.resolve(state)).verifyDelay(Duration.ofMillis(20)).violationHandler(violations::add);
        if (mapVersion != null) {
            b.shardMapVersion(mapVersion);
        }
        GlassLedgerClient c = GlassLedgerClient.connect(b.build());
        open.add(c);
        return c;
    }

    /** One for the class: the shards bind the identity "default" to the first key it signs with. */
    final SigningKey key = SigningKey.generate();

    @Test
    void crossShardTransactionsCommitAtomicallyAndEveryPartIsVerified() throws Exception {
        TestServer[] pair = pair();
        TestServer s0 = pair[0];
        TestServer s1 = pair[1];
        GlassLedgerClient c = client(s0, List.of(s0.url(), s1.url()), "state.json", null);
        String a = keyOn(c, 0);
        String b = keyOn(c, 1);

        CommitPromise p = c.runTransaction(t -> t.put(a, "100").put(b, "0")).promise();
        assertTrue(p.crossShard());
        String firstKey = a.compareTo(b) < 0 ? a : b;  // byte order, as the keys are ASCII
        int primary = c.shardOf(utf8(firstKey));
        assertEquals(List.of(primary, 1 - primary), p.parts().stream().map(x -> x.promise().shard()).toList(),
                "the primary (the shard of the first written key) first");
        var outcome = p.verification().get(30, TimeUnit.SECONDS);
        assertEquals(2, outcome.writesChecked());
        assertTrue(Files.exists(dir.resolve("state.json.shard-0")) && Files.exists(dir.resolve("state.json.shard-1")),
                "one state file per shard");

        // A transfer reads and writes both; a read-only transaction over both sees a consistent total.
        CommitPromise t = c.runTransaction(tx -> {
            List<byte[]> v = tx.getAll(List.of(utf8(a), utf8(b)));
            tx.put(a, Long.toString(Long.parseLong(str(v.get(0))) - 30));
            tx.put(b, Long.toString(Long.parseLong(str(v.get(1))) + 30));
            return null;
        }).promise();
        assertEquals(4, t.verification().get(30, TimeUnit.SECONDS).writesChecked()
                + t.verification().get().readsChecked());
        var ro = c.runTransaction(tx -> tx.getAll(List.of(utf8(a), utf8(b))));
        assertEquals("70", str(ro.value().get(0)));
        assertEquals("30", str(ro.value().get(1)));
        assertEquals(2, ro.promise().verification().get(30, TimeUnit.SECONDS).readsChecked());
        assertEquals("70", c.get(a));
        assertEquals("30", c.get(b));

        // A conflict at one participant aborts the whole transaction at both.
        Txn first = c.begin();
        first.getAll(List.of(utf8(a), utf8(b)));
        first.put(a, "1").put(b, "1");
        c.runTransaction(tx -> tx.put(b, "31")).promise().verification().get(30, TimeUnit.SECONDS);
        GlassLedgerException conflict = assertThrows(GlassLedgerException.class, first::commit);
        assertEquals("conflict", conflict.code());
        assertEquals("70", c.get(a), "nothing of the refused transaction landed on the other shard");
        assertEquals("31", c.get(b));
    }

    /**
     * Issue 34, item 6: {@code ledger-cli tx} with the pair's cluster file reads on one shard and writes on both in
     * one transaction; every participant's promise is verified, the value read among them.
     */
    @Test
    void cliTx_acrossBothShards_everyPartVerified() throws Exception {
        TestServer[] s = pair();
        GlassLedgerClient c = client(s[0], List.of(s[0].url(), s[1].url()), "cli-sdk.json", null);
        String a = keyOn(c, 0);
        String b = keyOn(c, 1);
        c.runTransaction(t -> t.put(a, "10")).promise().verification().get(30, TimeUnit.SECONDS);
        Path cluster = dir.resolve("cli-cluster.properties");
        Files.writeString(cluster, "shards=2\nmap-version=2\nurl.0=" + s[0].url() + "\nurl.1=" + s[1].url()
                + "\npin=" + s[0].fingerprint() + "\n");
        Path keyFile = dir.resolve("cli.key");
        Files.writeString(keyFile, Bytes.of(key.seed()).hex() + "\n");  // the key "default" signs with here
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = LedgerCli.run(new String[] {"--json", "--cluster", cluster.toString(),
            "--api-key", s[0].apiKey("default"), "--key-file", keyFile.toString(), "--state",
            dir.resolve("cli-state.json").toString(), "tx", "get", a, "put", a, "11", "put", b, "1"},
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of());
        assertEquals(0, rc, err.toString(StandardCharsets.UTF_8));
        JsonNode j = json.readTree(out.toString(StandardCharsets.UTF_8));
        assertTrue(j.get("crossShard").asBoolean(), j.toString());
        List<Integer> parts = new ArrayList<>();
        j.get("parts").forEach(p -> parts.add(p.get("shard").asInt()));
        assertEquals(List.of(0, 1), parts.stream().sorted().toList(), j.toString());
        assertEquals(a, j.get("reads").get(0).get("key").asText());
        assertEquals("10", j.get("reads").get(0).get("value").asText(), j.toString());
        assertEquals(2, j.get("writesChecked").asInt(), j.toString());
        assertEquals(1, j.get("readsChecked").asInt(), j.toString());
        assertTrue(Files.exists(dir.resolve("cli-state.json.shard-0"))
                && Files.exists(dir.resolve("cli-state.json.shard-1")), "the CLI trusts both shards");
        assertEquals("11", c.get(a));
        assertEquals("1", c.get(b));
    }

    @Test
    void aParticipantThatIsUnreachableAbortsTheTransactionAndHoldsNothingElsewhere() throws Exception {
        TestServer[] pair = pair();
        TestServer s0 = pair[0];
        TestServer s1 = pair[1];
        // Shard 1 behind a proxy that can lose its upstream: two Spring servers in one JVM share Reactor Netty's
        // event loops, so stopping one would stop both.
        LyingProxy gateway = new LyingProxy(s1.dataDir.resolve("tls"), s1.url());
        open.add(gateway);
        GlassLedgerClient c = client(s0, List.of(s0.url(), gateway.url()), "down.json", null, Duration.ofSeconds(3));
        String a = keyOn(c, 0);
        String b = keyOn(c, 1);
        c.runTransaction(t -> t.put(a, "1").put(b, "1"));
        gateway.upstream = "https://127.0.0.1:1";
        Txn t = c.begin();
        t.put(a, "2").put(b, "2");
        GlassLedgerException down = assertThrows(GlassLedgerException.class, t::commit);
        assertTrue(down.retryable(), down.toString());
        assertEquals("1", str(c.begin().get(utf8(a))), "shard 0 applied nothing");
        gateway.upstream = s1.url();
        // Shard 0 holds no lock for the failed transaction: a new one over the same keys commits.
        CommitPromise p = c.runTransaction(x -> x.put(a, "3").put(b, "3")).promise();
        p.verification().get(30, TimeUnit.SECONDS);
        assertEquals("3", c.get(a));
        assertEquals("3", c.get(b));
    }

    @Test
    void aLieByOneShardFailsTheCrossShardPromise() throws Exception {
        TestServer[] pair = pair();
        TestServer s0 = pair[0];
        TestServer s1 = pair[1];
        LyingProxy proxy = new LyingProxy(s1.dataDir.resolve("tls"), s1.url());
        open.add(proxy);
        GlassLedgerClient c = client(s0, List.of(s0.url(), proxy.url()), "victim.json", 2L);
        String a = keyOn(c, 0);
        String b = keyOn(c, 1);
        proxy.lie = (path, req, resp) -> path.equals("/v1/proofs/batch") ? changeClaims(resp) : null;
        CommitPromise p = c.runTransaction(t -> t.put(a, "1").put(b, "1")).promise();
        ExecutionException e = assertThrows(ExecutionException.class, () -> p.verification().get(30, TimeUnit.SECONDS));
        IntegrityViolation v = assertInstanceOf(IntegrityViolation.class, e.getCause());
        assertTrue(v.evidence().txIds().contains(p.txId()), v.evidence().toString());
        CommitPromise honest = p.parts().stream().filter(x -> x.promise().shard() == 0).findFirst().orElseThrow();
        assertNull(honest.verification().handle((o, err) -> err).get(30, TimeUnit.SECONDS), "shard 0's part verified");
        assertTrue(violations.contains(v));
    }

    @Test
    void aClientWithAnotherMapVersionIsRefusedAtConnect() throws Exception {
        TestServer[] pair = pair();
        TestServer s0 = pair[0];
        TestServer s1 = pair[1];
        GlassLedgerException stale = assertThrows(GlassLedgerException.class,
                () -> client(s0, List.of(s0.url(), s1.url()), "stale.json", 1L));
        assertEquals("stale_shard_map", stale.code());
        GlassLedgerException swapped = assertThrows(GlassLedgerException.class,
                () -> client(s0, List.of(s1.url(), s0.url()), "swapped.json", null));
        assertEquals("wrong_shard", swapped.code());
    }

    /**
     * Issue 16, item 6: the primary commits, then the proxy in front of it answers 500 once. The SDK asks the primary
     * for its state instead of aborting everywhere, and every shard ends up committed.
     */
    @Test
    void primaryCommitsThenItsProxyAnswers500_everyShardCommits() throws Exception {
        TestServer[] s = pair();
        LyingProxy proxy = new LyingProxy(s[0].dataDir.resolve("tls"), s[0].url());
        open.add(proxy);
        GlassLedgerClient c = client(s[0], List.of(proxy.url(), s[1].url()), "500.json", null, Duration.ofSeconds(10));
        String a = keyOn(c, 0);
        String b = "zz-" + keyOn(c, 1, "zz-");  // after a in byte order: shard 0 is the primary
        List<String> failed = new CopyOnWriteArrayList<>();
        proxy.failAfter = path -> path.matches("/v1/tx/[0-9a-f]+/commit") && failed.isEmpty() && failed.add(path)
                ? 500 : 0;

        CommitPromise p = c.runTransaction(t -> t.put(a, "1").put(b, "1")).promise();
        assertEquals(1, failed.size(), "the proxy answered 500 after the primary committed");
        assertEquals(p.txId().hex(), txIdIn(failed.get(0)));
        for (TestServer x : s) {
            assertEquals(TxState.COMMITTED, stateAt(x, p.txId().hex()), "no split: committed at " + x.url());
        }
        p.verification().get(30, TimeUnit.SECONDS);
        assertEquals("1", c.get(a));
        assertEquals("1", c.get(b));
    }

    /**
     * Issue 34: a prepare that gets no vote (here the proxy in front of the participant answers 502 instead of
     * forwarding it, as a load balancer does while a leader is dead) ends as a definite, retryable {@code aborted},
     * never a transport error; {@code runTransaction} runs it again and commits.
     */
    @Test
    void prepareWithoutAVote_isARetryableAbort_andRunTransactionCommitsOnItsRetry() throws Exception {
        TestServer[] s = pair();
        LyingProxy proxy = new LyingProxy(s[1].dataDir.resolve("tls"), s[1].url());
        open.add(proxy);
        GlassLedgerClient c = client(s[0], List.of(s[0].url(), proxy.url()), "novote.json", null,
                Duration.ofSeconds(10));
        String a = keyOn(c, 0);
        String b = "zz-" + keyOn(c, 1, "zz-");
        java.util.concurrent.atomic.AtomicInteger toFail = new java.util.concurrent.atomic.AtomicInteger(1);
        proxy.failBefore = path -> path.equals("/v1/tx/prepare") && toFail.getAndDecrement() > 0 ? 502 : 0;

        Txn t = c.begin();
        t.put(a, "1").put(b, "1");
        GlassLedgerException e = assertThrows(GlassLedgerException.class, t::commit);
        assertEquals(GlassLedgerException.ABORTED, e.code(), e.toString());
        assertTrue(e.retryable(), e.toString());
        assertEquals(TxState.ABORTED, stateAt(s[0], t.txId().hex()), "the abort is recorded at the primary");

        toFail.set(1);
        CommitPromise p = c.runTransaction(x -> x.put(a, "2").put(b, "2")).promise();
        assertTrue(toFail.get() < 0, "the first attempt's prepare got no vote");
        p.verification().get(30, TimeUnit.SECONDS);
        assertEquals("2", c.get(a));
        assertEquals("2", c.get(b));
    }

    /** As above, but every commit answer from the primary is lost: the others commit all the same. */
    @Test
    void primaryCommitsThenItsProxyAlwaysAnswers500_incompleteButNoSplit() throws Exception {
        TestServer[] s = pair();
        LyingProxy proxy = new LyingProxy(s[0].dataDir.resolve("tls"), s[0].url());
        open.add(proxy);
        GlassLedgerClient c = client(s[0], List.of(proxy.url(), s[1].url()), "always500.json", null,
                Duration.ofSeconds(10));
        String a = keyOn(c, 0);
        String b = "zz-" + keyOn(c, 1, "zz-");
        List<String> failed = new CopyOnWriteArrayList<>();
        proxy.failAfter = path -> path.matches("/v1/tx/[0-9a-f]+/commit") && failed.add(path) ? 500 : 0;
        Txn t = c.begin();
        t.put(a, "2").put(b, "2");
        GlassLedgerException e = assertThrows(GlassLedgerException.class, t::commit);
        assertEquals(GlassLedgerException.INCOMPLETE, e.code(), e.toString());
        String txId = txIdIn(failed.get(0));
        for (TestServer x : s) {
            assertEquals(TxState.COMMITTED, stateAt(x, txId), "no split: committed at " + x.url());
        }
        proxy.tellTheTruth();
        assertEquals("2", c.get(a));
        assertEquals("2", c.get(b));
    }

    /**
     * The proxy in front of the primary also lies that the primary aborted: the other participant asks the primary
     * itself and commits, and the SDK, told so, reports outcome_unknown rather than an abort.
     */
    @Test
    void primaryCommitsAndItsProxyClaimsAnAbort_noSplitAndNoFalseAbort() throws Exception {
        TestServer[] s = pair();
        LyingProxy proxy = new LyingProxy(s[0].dataDir.resolve("tls"), s[0].url());
        open.add(proxy);
        GlassLedgerClient c = client(s[0], List.of(proxy.url(), s[1].url()), "claims.json", null,
                Duration.ofSeconds(10));
        String a = keyOn(c, 0);
        String b = "zz-" + keyOn(c, 1, "zz-");
        List<String> failed = new CopyOnWriteArrayList<>();
        proxy.failAfter = path -> path.matches("/v1/tx/[0-9a-f]+/commit") && failed.add(path) ? 500 : 0;
        proxy.lie = (path, req, resp) -> path.matches("/v1/tx/[0-9a-f]+") ? resp.replace("COMMITTED", "ABORTED")
                : null;
        Txn t = c.begin();
        t.put(a, "6").put(b, "6");
        GlassLedgerException e = assertThrows(GlassLedgerException.class, t::commit);
        assertEquals(GlassLedgerException.OUTCOME_UNKNOWN, e.code(), e.toString());
        String txId = txIdIn(failed.get(0));
        for (TestServer x : s) {
            assertEquals(TxState.COMMITTED, stateAt(x, txId), "no split: committed at " + x.url());
        }
    }

    /**
     * The primary never hears the commit (the proxy answers 500 without forwarding it), and the SDK cannot record an
     * abort there either (the proxy refuses it: 400): the SDK reports outcome_unknown and tells no one else; the other participant refuses a commit its primary has not decided,
     * follows the primary's abort, and the resolvers release everything.
     */
    @Test
    void undecidedAtThePrimary_outcomeUnknown_andAParticipantRefusesToCommit() throws Exception {
        TestServer[] s = pair();
        LyingProxy proxy = new LyingProxy(s[0].dataDir.resolve("tls"), s[0].url());
        open.add(proxy);
        GlassLedgerClient c = client(s[0], List.of(proxy.url(), s[1].url()), "unknown.json", null,
                Duration.ofSeconds(10));
        String a = keyOn(c, 0);
        String b = "zz-" + keyOn(c, 1, "zz-");
        List<String> lost = new CopyOnWriteArrayList<>();
        proxy.failBefore = path -> path.matches("/v1/tx/[0-9a-f]+/commit") && lost.add(path) ? 500
                : path.matches("/v1/tx/[0-9a-f]+/abort") ? 400 : 0;
        Txn t = c.begin();
        t.put(a, "3").put(b, "3");
        GlassLedgerException e = assertThrows(GlassLedgerException.class, t::commit);
        assertEquals(GlassLedgerException.OUTCOME_UNKNOWN, e.code(), e.toString());
        String txId = txIdIn(lost.get(0));
        assertEquals(TxState.PREPARED, stateAt(s[1], txId), "the SDK told the other participant nothing");

        String apiKey = s[0].apiKey("default");
        Https at1 = new Https(s[1].url(), s[1].fingerprint());
        Https.Response early = at1.post("/v1/tx/" + txId + "/commit", apiKey, "");
        assertEquals(409, early.status(), early.text());
        assertEquals("undecided", early.body().get("code").asText(), early.text());
        assertTrue(early.body().get("retryable").asBoolean(), early.text());
        assertTrue(stateAt(s[1], txId) != TxState.COMMITTED, "a participant commits only what the primary decided");

        Https at0 = new Https(s[0].url(), s[0].fingerprint());
        assertEquals(200, at0.post("/v1/tx/" + txId + "/abort", apiKey, "").status(),
                "the client aborts at the primary");
        Https.Response late = at1.post("/v1/tx/" + txId + "/commit", apiKey, "");
        assertEquals(409, late.status(), late.text());
        assertEquals("already_decided", late.body().get("code").asText(), late.text());
        assertEquals(TxState.ABORTED, stateAt(s[1], txId), "the participant followed its primary's abort");
        assertEquals(TxState.ABORTED, stateAt(s[0], txId));

        proxy.tellTheTruth();
        c.runTransaction(x -> x.put(a, "4").put(b, "4")).promise().verification().get(30, TimeUnit.SECONDS);
        assertEquals("4", c.get(b), "no key is left locked");
    }

    /**
     * Issue 34: the primary never hears the commit (the proxy answers 500 without forwarding it) and holds the
     * transaction prepared: the SDK records an abort there and tells the other participant, so the application gets a
     * definite, retryable {@code aborted}, and {@code runTransaction} commits on its retry.
     */
    @Test
    void commitLostBeforeThePrimary_isAbortedThere_aDefiniteRetryableAbort() throws Exception {
        TestServer[] s = pair();
        LyingProxy proxy = new LyingProxy(s[0].dataDir.resolve("tls"), s[0].url());
        open.add(proxy);
        GlassLedgerClient c = client(s[0], List.of(proxy.url(), s[1].url()), "lostcommit.json", null,
                Duration.ofSeconds(10));
        String a = keyOn(c, 0);
        String b = "zz-" + keyOn(c, 1, "zz-");
        java.util.concurrent.atomic.AtomicInteger toLose = new java.util.concurrent.atomic.AtomicInteger(1);
        proxy.failBefore = path -> path.matches("/v1/tx/[0-9a-f]+/commit") && toLose.getAndDecrement() > 0 ? 500 : 0;
        Txn t = c.begin();
        t.put(a, "6").put(b, "6");
        GlassLedgerException e = assertThrows(GlassLedgerException.class, t::commit);
        assertEquals(GlassLedgerException.ABORTED, e.code(), e.toString());
        assertTrue(e.retryable(), e.toString());
        for (TestServer x : s) {
            assertEquals(TxState.ABORTED, stateAt(x, t.txId().hex()), "aborted at " + x.url());
        }
        toLose.set(1);
        CommitPromise p = c.runTransaction(x -> x.put(a, "7").put(b, "7")).promise();
        p.verification().get(30, TimeUnit.SECONDS);
        assertEquals("7", c.get(b));
    }

    /**
     * A participant whose primary cannot be asked refuses the commit as retryable and changes nothing (the SDK could
     * neither commit nor abort at the primary: the proxy lost the one and refused the other).
     */
    @Test
    void aParticipantThatCannotAskItsPrimaryRefusesToCommit() throws Exception {
        TestServer[] s = pair();
        LyingProxy proxy = new LyingProxy(s[0].dataDir.resolve("tls"), s[0].url());
        open.add(proxy);
        GlassLedgerClient c = client(s[0], List.of(proxy.url(), s[1].url()), "noprimary.json", null,
                Duration.ofSeconds(10));
        String a = keyOn(c, 0);
        String b = "zz-" + keyOn(c, 1, "zz-");
        List<String> lost = new CopyOnWriteArrayList<>();
        proxy.failBefore = path -> path.matches("/v1/tx/[0-9a-f]+/commit") && lost.add(path) ? 500
                : path.matches("/v1/tx/[0-9a-f]+/abort") ? 400 : 0;
        Txn t = c.begin();
        t.put(a, "5").put(b, "5");
        assertThrows(GlassLedgerException.class, t::commit);
        String txId = txIdIn(lost.get(0));
        // Shard 1 reaches shard 0 through fronts[0] (pair()): it now leads nowhere.
        fronts[0].upstream = "https://127.0.0.1:1";
        Https.Response r = new Https(s[1].url(), s[1].fingerprint()).post("/v1/tx/" + txId + "/commit",
                s[0].apiKey("default"), "");
        assertEquals(503, r.status(), r.text());
        assertEquals("primary_unreachable", r.body().get("code").asText(), r.text());
        assertTrue(r.body().get("retryable").asBoolean(), r.text());
        assertEquals(TxState.PREPARED, stateAt(s[1], txId), "nothing changed at the participant");
    }

    private static TxState stateAt(TestServer s, String txIdHex) throws Exception {
        return s.bean(Shard.class).engine().status(Bytes.fromHex(txIdHex)).get(30, TimeUnit.SECONDS);
    }

    private static String txIdIn(String path) {
        return path.substring("/v1/tx/".length(), path.lastIndexOf('/'));
    }

    /** A key of this test's (after {@code prefix}) that shard {@code shard} owns. */
    private String keyOn(GlassLedgerClient c, int shard, String prefix) {
        for (int i = 0; ; i++) {
            if (c.shardOf(utf8(prefix + ns + "acct-" + i)) == shard) {
                return ns + "acct-" + i;
            }
        }
    }

    private String keyOn(GlassLedgerClient c, int shard) {
        return keyOn(c, shard, "");
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String str(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private String changeClaims(String resp) {
        try {
            ObjectNode root = (ObjectNode) json.readTree(resp);
            for (var p : root.get("proofs")) {
                if (p.get("claims") instanceof ArrayNode claims) {
                    for (var cl : claims) {
                        ((ObjectNode) cl).put("value", Base64.getEncoder().encodeToString(utf8("999999")));
                    }
                }
            }
            return json.writeValueAsString(root);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Issue 34: {@code ledger-cli} given one shard's URL of a 2-shard cluster says to give the cluster instead, with
     * the usage exit status; given the cluster file, the same put commits; admin commands act on the cluster too
     * (with the cluster's directory a key holds at every member; this pair shares its key file, as the launcher's
     * shards did before the directory).
     */
    @Test
    void ledgerCli_urlOfOneShard_saysToUseTheCluster_exit2_theClusterFileWorks_adminToo() throws Exception {
        TestServer[] s = pair();
        java.util.Map<String, String> env = java.util.Map.of();
        // The admin identity writes too, and has registered no signing key here (the others sign as default).
        String[] common = {"--api-key", s[0].apiKey("admin"), "--pin", s[0].fingerprint(), "--key-file",
            dir.resolve(ns + "cli.key").toString(), "--state", dir.resolve(ns + "cli-state.json").toString()};
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        int rc = io.glassledger.client.cli.LedgerCli.run(concat(common, "--url", s[0].url(), "put", ns + "k", "v"),
                new java.io.PrintStream(out, true, StandardCharsets.UTF_8),
                new java.io.PrintStream(err, true, StandardCharsets.UTF_8), env);
        String said = err.toString(StandardCharsets.UTF_8);
        assertEquals(2, rc, said);
        assertTrue(said.contains("--cluster") && said.contains("serves shard 0 of 2"), said);

        Path cluster = dir.resolve(ns + "cluster.properties");
        Files.writeString(cluster, "shards=2\nmap-version=2\nurl.0=" + s[0].url() + "\nurl.1=" + s[1].url()
                + "\npin=" + s[0].fingerprint() + "\n");
        out.reset();
        err.reset();
        rc = io.glassledger.client.cli.LedgerCli.run(concat(common, "--cluster", cluster.toString(), "put", ns + "k",
                "v"), new java.io.PrintStream(out, true, StandardCharsets.UTF_8),
                new java.io.PrintStream(err, true, StandardCharsets.UTF_8), env);
        assertEquals(0, rc, err.toString(StandardCharsets.UTF_8));

        out.reset();
        err.reset();
        rc = io.glassledger.client.cli.LedgerCli.run(new String[] {"--cluster", cluster.toString(), "--api-key",
            s[0].apiKey("admin"), "admin", "list-keys"}, new java.io.PrintStream(out, true, StandardCharsets.UTF_8),
                new java.io.PrintStream(err, true, StandardCharsets.UTF_8), env);
        assertEquals(0, rc, err.toString(StandardCharsets.UTF_8));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("default"), out.toString(StandardCharsets.UTF_8));
    }

    private static String[] concat(String[] head, String... tail) {
        String[] all = java.util.Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, all, head.length, tail.length);
        return all;
    }

    private static void copyTree(Path from, Path to) throws Exception {
        try (var s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path q = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(q);
                } else {
                    Files.copy(p, q);
                }
            }
        }
    }
}
