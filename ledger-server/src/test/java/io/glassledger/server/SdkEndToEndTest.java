package io.glassledger.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.glassledger.client.ClientConfig;
import io.glassledger.client.CommitPromise;
import io.glassledger.client.GlassLedgerClient;
import io.glassledger.client.GlassLedgerException;
import io.glassledger.client.IntegrityViolation;
import io.glassledger.client.ValueProof;
import io.glassledger.client.VerificationOutcome;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.Version;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Applications' view over real HTTPS: the SDK against an in-JVM server on a random port. Transactions, promises and
 * deferred verification, history and trusted state across restarts; and a server that lies (a man in the middle
 * holding its TLS key, {@link LyingProxy}) is caught every time: a stale value, a wrong value, a forked digest.
 */
class SdkEndToEndTest {
    @TempDir
    Path dir;
    final List<AutoCloseable> open = new ArrayList<>();
    final List<IntegrityViolation> violations = new CopyOnWriteArrayList<>();
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

    TestServer server(String name) {
        return keep(new TestServer(dir.resolve(name)));
    }

    GlassLedgerClient client(TestServer s, String url, Duration delay, String state) {
        return keep(GlassLedgerClient.connect(ClientConfig.builder().url(url).apiKey(s.apiKey("default"))
                .pinnedCertSha256(s.fingerprint()).signingKey(key).stateFile(dir.resolve(state))
                .verifyDelay(delay).violationHandler(violations::add).build()));
    }

    static byte[] u(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void transactionsPromisesAndDeferredVerification() throws Exception {
        TestServer s = server("a");
        GlassLedgerClient c = client(s, s.url(), Duration.ofMillis(50), "state.json");
        CommitPromise p1 = c.runTransaction(t -> t.put("alice", "100").put("bob", "50")).promise();
        VerificationOutcome o1 = p1.verification().get(30, TimeUnit.SECONDS);
        assertEquals(p1.block(), o1.block());
        assertEquals(2, o1.writesChecked());

        // Read-modify-write: the reads are verified too.
        CommitPromise p2 = c.runTransaction(t -> {
            int a = Integer.parseInt(t.get("alice"));
            int b = Integer.parseInt(t.get("bob"));
            t.put("alice", Integer.toString(a - 30)).put("bob", Integer.toString(b + 30));
            return null;
        }).promise();
        VerificationOutcome o2 = c.verify(p2).get(30, TimeUnit.SECONDS);
        assertEquals(2, o2.readsChecked());
        assertEquals(2, o2.writesChecked());

        // Verified reads, at the head and at a block, and history.
        assertEquals("70", c.get("alice"));
        assertArrayEquals(u("100"), c.get(u("alice"), p1.block()));
        List<Version> h = c.history(u("alice"), 5);
        assertEquals(List.of("70", "100"), h.stream().map(v -> new String(v.value().toByteArray(),
                StandardCharsets.UTF_8)).toList());
        assertEquals(List.of(p2.block(), p1.block()), h.stream().map(Version::blockNo).toList());

        // A conflicting transaction is refused with a retryable code, and changes nothing.
        var t1 = c.begin();
        t1.get("alice");
        // Verified: so its block is persisted before the verified read below, which reads the persisted head.
        c.runTransaction(t -> t.put("alice", "1")).promise().verification().get(30, TimeUnit.SECONDS);
        t1.put("alice", "2");
        GlassLedgerException e = assertThrows(GlassLedgerException.class, t1::commit);
        assertEquals("conflict", e.code());
        assertTrue(e.retryable());
        assertEquals("1", c.get("alice"));

        // Delay 0: commit returns after its promise verified.
        GlassLedgerClient now = client(s, s.url(), Duration.ZERO, "state0.json");
        CommitPromise p3 = now.runTransaction(t -> t.put("carol", "7")).promise();
        assertTrue(p3.verification().isDone() && !p3.verification().isCompletedExceptionally());
        assertTrue(violations.isEmpty(), violations.toString());
    }

    @Test
    void prove_trustedDigestOlderThanTheProof_fillsTheTrustedPart() throws Exception {
        TestServer s = server("a");
        GlassLedgerClient c = client(s, s.url(), Duration.ZERO, "state.json");
        c.runTransaction(t -> t.put("k", "1"));
        Digest before = c.digest();
        GlassLedgerClient other = client(s, s.url(), Duration.ZERO, "other.json");
        other.runTransaction(t -> t.put("k", "2"));
        other.runTransaction(t -> t.put("j", "3"));
        assertEquals(before, c.digest(), "nothing else moved this client's trust");

        ValueProof p = c.prove(u("k"), null);
        assertTrue(p.digest().blockNo() > before.blockNo());
        assertNotNull(p.trusted(), "the trusted digest is older than the proof's: the file links them");
        assertEquals(before, p.trusted().digest());
        ValueProof file = ValueProof.fromJson(p.toJson());
        file.verify(c.serverKey(), before);
        assertArrayEquals(u("2"), file.value().toByteArray());

        // Trust now stands at the proof's digest: a second proof has nothing older to link.
        assertNull(c.prove(u("k"), null).trusted());
        assertTrue(violations.isEmpty(), violations.toString());
    }

    @Test
    void trustedStateSurvivesARestartOfClientAndServer() throws Exception {
        TestServer s = server("a");
        GlassLedgerClient c = client(s, s.url(), Duration.ofMillis(20), "state.json");
        CommitPromise p = c.runTransaction(t -> t.put("k", "v")).promise();
        p.verification().get(30, TimeUnit.SECONDS);
        long trusted = c.digest().blockNo();
        assertTrue(trusted >= p.block());
        c.close();
        s.restart();
        GlassLedgerClient again = client(s, s.url(), Duration.ofMillis(20), "state.json");
        assertTrue(again.digest().blockNo() >= trusted, "trust went back after a restart");
        assertEquals("v", again.get("k"));
        // Trust reached through a verified read has the server's signature behind it.
        assertEquals(again.digest(), again.trustedState().signedHead().digest());
        assertTrue(Files.readString(dir.resolve("state.json")).contains(again.serverKey().hex()));
        assertTrue(violations.isEmpty(), violations.toString());
    }

    @Test
    void aServerReturningAStaleValueIsCaught() throws Exception {
        TestServer s = server("a");
        LyingProxy proxy = keep(new LyingProxy(s.dataDir.resolve("tls"), s.url()));
        GlassLedgerClient honest = client(s, s.url(), Duration.ZERO, "honest.json");
        honest.runTransaction(t -> t.put("price", "10"));
        // Record the answer to a current-value proof of "price" while it is 10.
        List<String> recorded = new CopyOnWriteArrayList<>();
        proxy.lie((path, req, resp) -> {
            if (path.equals("/v1/proofs/keys")) {
                recorded.add(resp);
            }
            return null;
        });
        GlassLedgerClient victim = client(s, proxy.url(), Duration.ZERO, "victim.json");
        assertEquals("10", victim.get("price"));
        assertEquals(1, recorded.size());
        honest.runTransaction(t -> t.put("price", "99"));
        victim.head();  // the victim learns the newer head
        // Now the server answers with the old proof: an old value, proven at an old digest.
        proxy.lie((path, req, resp) -> path.equals("/v1/proofs/keys") ? recorded.get(0) : null);
        IntegrityViolation v = assertThrows(IntegrityViolation.class, () -> victim.get("price"));
        assertNotNull(v.evidence());
        assertTrue(violations.contains(v), "the violation reached the handler");
        // Once the server tells the truth again, the victim reads the current value.
        proxy.tellTheTruth();
        assertEquals("99", victim.get("price"));
    }

    @Test
    void aServerReturningAWrongValueIsCaughtInReadsAndPromises() throws Exception {
        TestServer s = server("a");
        LyingProxy proxy = keep(new LyingProxy(s.dataDir.resolve("tls"), s.url()));
        GlassLedgerClient victim = client(s, proxy.url(), Duration.ofMillis(20), "victim.json");
        victim.runTransaction(t -> t.put("balance", "100")).promise().verification().get(30, TimeUnit.SECONDS);

        // A proof answered with a signed head of another digest.
        String oldHead = json.writeValueAsString(json.readTree(https(s).get("/v1/head", s.apiKey("default")).body()
                .toString()));
        victim.runTransaction(t -> t.put("balance", "101")).promise().verification().get(30, TimeUnit.SECONDS);
        proxy.lie((path, req, resp) -> path.equals("/v1/proofs/keys") ? withHead(resp, oldHead) : null);
        IntegrityViolation signed = assertThrows(IntegrityViolation.class, () -> victim.get("balance"));
        assertEquals(IntegrityViolation.Kind.BAD_SIGNATURE, signed.kind(), signed.getMessage());

        // A verified read whose claimed value was changed.
        proxy.lie((path, req, resp) -> path.equals("/v1/proofs/keys") ? changeClaims(resp) : null);
        IntegrityViolation read = assertThrows(IntegrityViolation.class, () -> victim.get("balance"));
        assertEquals(IntegrityViolation.Kind.BAD_PROOF, read.kind());

        // A promise whose batch proof claims another value: the promise fails with the violation.
        proxy.lie((path, req, resp) -> path.equals("/v1/proofs/batch") ? changeClaims(resp) : null);
        CommitPromise p = victim.runTransaction(t -> t.put("balance", "200")).promise();
        ExecutionException e = assertThrows(ExecutionException.class, () -> p.verification().get(30, TimeUnit.SECONDS));
        IntegrityViolation v = assertInstanceOf(IntegrityViolation.class, e.getCause());
        assertTrue(v.evidence().txIds().contains(p.txId()), v.evidence().toString());
        assertTrue(violations.contains(v));

        // A transaction read whose value was changed (version kept): caught by the deferred check of the reads.
        proxy.lie((path, req, resp) -> path.equals("/v1/get") ? changeValues(resp) : null);
        CommitPromise r = victim.runTransaction(t -> {
            t.get("balance");
            t.put("other", "1");
            return null;
        }).promise();
        proxy.tellTheTruth();
        ExecutionException re = assertThrows(ExecutionException.class, () -> r.verification().get(30,
                TimeUnit.SECONDS));
        assertInstanceOf(IntegrityViolation.class, re.getCause());
    }

    @Test
    void aForkedHistoryIsCaught() throws Exception {
        TestServer a = server("a");
        GlassLedgerClient setup = client(a, a.url(), Duration.ZERO, "setup.json");
        setup.runTransaction(t -> t.put("shared", "1"));
        setup.close();
        a.close();
        copy(dir.resolve("a"), dir.resolve("b"));
        a.start();
        TestServer b = server("b");  // the same keys and certificate, the same history so far
        LyingProxy proxy = keep(new LyingProxy(a.dataDir.resolve("tls"), a.url()));
        GlassLedgerClient victim = client(a, proxy.url(), Duration.ZERO, "victim.json");
        assertEquals("1", victim.get("shared"));

        // The histories diverge: A commits one thing, B another, at the same block numbers.
        GlassLedgerClient onA = client(a, a.url(), Duration.ZERO, "onA.json");
        GlassLedgerClient onB = client(b, b.url(), Duration.ZERO, "onB.json");
        onA.runTransaction(t -> t.put("shared", "A"));
        onB.runTransaction(t -> t.put("shared", "B"));
        onB.runTransaction(t -> t.put("more", "B"));
        victim.head();
        long trusted = victim.digest().blockNo();

        // The operator now serves the victim from B.
        proxy.upstream = b.url();
        IntegrityViolation v = assertThrows(IntegrityViolation.class, () -> {
            victim.head();
            victim.get("shared");
        });
        assertTrue(v.kind() == IntegrityViolation.Kind.FORK || v.kind() == IntegrityViolation.Kind.BAD_PROOF,
                v.kind() + ": " + v.getMessage());
        assertTrue(violations.contains(v));
        assertTrue(victim.digest().blockNo() >= trusted, "trust never moves back");
    }

    private String changeClaims(String resp) {
        try {
            ObjectNode root = (ObjectNode) json.readTree(resp);
            List<ObjectNode> proofs = new ArrayList<>();
            if (root.has("proofs")) {
                root.get("proofs").forEach(p -> proofs.add((ObjectNode) p));
            } else {
                proofs.add(root);
            }
            for (ObjectNode p : proofs) {
                if (p.get("claims") instanceof ArrayNode claims) {
                    for (var c : claims) {
                        ((ObjectNode) c).put("value", Base64.getEncoder().encodeToString(u("999999")));
                    }
                }
            }
            return json.writeValueAsString(root);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private String withHead(String resp, String head) {
        try {
            ObjectNode root = (ObjectNode) json.readTree(resp);
            root.set("head", json.readTree(head));
            return json.writeValueAsString(root);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Https https(TestServer s) throws Exception {
        return new Https(s.url(), s.fingerprint());
    }

    private String changeValues(String resp) {
        try {
            ObjectNode root = (ObjectNode) json.readTree(resp);
            for (var item : root.get("items")) {
                ((ObjectNode) item).put("value", Base64.getEncoder().encodeToString(u("12345")));
            }
            return json.writeValueAsString(root);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void copy(Path from, Path to) throws Exception {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path q = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(q);
                } else if (!p.getFileName().toString().equals("LOCK")) {
                    Files.copy(p, q);
                }
            }
        }
    }
}
