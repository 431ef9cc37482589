package io.glassledger.auditor;

import io.glassledger.verify.block.BlockSpec;
import io.glassledger.verify.format.Format;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
import io.glassledger.core.audit.BlockAudit;
import io.glassledger.core.audit.RecentTxIds;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.block.Block;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.SignedHead;
import io.glassledger.verify.proof.VerificationException;
import io.glassledger.core.store.RocksDbNodeStore;
import io.glassledger.verify.txn.SignedTransaction;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Audits one shard (GlassDB's VerifyBlock and VerifyDigest). Its own ledger in {@code <data>/shard-N/ledger} starts
 * from the shard's genesis block and grows only by re-executing the shard's blocks: each block's signed
 * transactions are checked (signature, registered client key, this shard), their writes applied, and the resulting
 * block hash and digest compared with the shard's. The shard's signed head must then sign exactly the digest the
 * auditor computed. The first violation halts the shard's audit (the two histories can no longer be compared block
 * by block) and is kept with its evidence ({@link ShardEvidence}). The server key is pinned at the first contact, in
 * {@code state.json}, with the last signed head verified, so a restart resumes where it stopped.
 */
final class ShardAuditor implements AutoCloseable {
    /** State kept across restarts. */
    record State(String serverKey, Dto.SignedHeadDto lastHead) {
    }

    /** A sample of how far the audit trailed the shard's head. */
    record LagSample(long atMillis, long lag) {
    }

    private static final int LAG_SAMPLES = 600;

    final int shard;
    private final ShardHttp http;
    private final ShardEvidence evidence;
    private final Path dir;
    private final ObjectMapper json;
    private final ViolationLog violations;
    private RocksDbNodeStore store;
    private volatile Ledger ledger;
    private volatile Bytes serverKey;
    private volatile SignedHead lastHead;
    private volatile long serverHead = -1;
    private volatile String halted;
    private final ShardContact contact;
    private final Map<Bytes, String> registered = new ConcurrentHashMap<>();
    private final boolean fixedKeys;
    private final AtomicLong blocksVerified = new AtomicLong();
    private final AtomicLong writesApplied = new AtomicLong();
    private final ArrayDeque<LagSample> lag = new ArrayDeque<>();
    private final int spotCheckEvery;
    private final Limits limits;
    /** Ids of recently audited blocks, against replays; rebuilt from the audited ledger when it is opened. */
    private RecentTxIds recent;
    private long rounds;
    /** The catch-up a client's audit started, shared by the audits that arrive while it runs. */
    private final Object catchUpLock = new Object();
    /** Held for a whole poll round (network calls included): rounds never overlap. */
    private final Object pollLock = new Object();
    private java.util.concurrent.CompletableFuture<Void> catchUp;
    private long lastCatchUpNanos;

    /**
     * How much work others can make this auditor do.
     *
     * @param catchUps            where audit-started catch-ups run (the shard's poll thread: one at a time)
     * @param catchUpInterval     at most one audit-started catch-up per this interval
     * @param catchUpWait         how long an audit waits for the catch-up before answering {@code pending}
     * @param maxClientKeys       the most client keys taken from the shard's list
     */
    record Limits(java.util.concurrent.Executor catchUps, java.time.Duration catchUpInterval,
                  java.time.Duration catchUpWait, int maxClientKeys, java.time.Duration replayWindow) {
    }

    /**
     * @param clientKeys the accepted client keys; null: those the shard lists, refreshed as new keys appear
     * @param contact    when the shard last answered ({@code http} reports its answers there) and the last error
     */
    ShardAuditor(int shard, ShardHttp http, Path dir, ObjectMapper json, ViolationLog violations, int spotCheckEvery,
                 Map<Bytes, String> clientKeys, Limits limits, ShardContact contact) {
        this.contact = contact;
        this.spotCheckEvery = spotCheckEvery;
        this.limits = limits;
        this.fixedKeys = clientKeys != null;
        if (fixedKeys) {
            registered.putAll(clientKeys);
        }
        this.shard = shard;
        this.http = http;
        this.evidence = new ShardEvidence(http, limits.replayWindow());
        this.dir = dir;
        this.json = json;
        this.violations = violations;
        try {
            Files.createDirectories(dir);
            Path state = dir.resolve("state.json");
            if (Files.exists(state)) {
                State s = json.readValue(state.toFile(), State.class);
                serverKey = s.serverKey() == null ? null : Bytes.fromHex(s.serverKey());
                lastHead = s.lastHead() == null ? null : Wire.signedHead("lastHead", s.lastHead());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (Violation v : violations.of(shard)) {
            halted = v.kind() + " at block " + v.block() + ": " + v.detail();
        }
    }

    /**
     * One round: the shard's signed head, every block up to it re-executed, and the head's digest compared.
     * Rounds run one at a time ({@code pollLock}); this object's monitor guards only the audited state (the ledger
     * as blocks are applied, violations, a peer's pending head), never a network call of the round, so a client's
     * audit or a peer's gossip is answered from the state as it is, however slow the shard is to answer a round.
     */
    void poll() {
        synchronized (pollLock) {
            pollRound();
        }
    }

    private void pollRound() {
        if (halted != null) {
            return;
        }
        try {
            SignedHead head = Wire.signedHead("head", http.get("/v1/head", Dto.SignedHeadDto.class));
            if (!checkHead(head)) {
                return;
            }
            serverHead = head.digest().blockNo();
            openLedger();
            catchUp(serverHead);
            if (halted == null && ledger.head().block().number() == serverHead) {
                Digest mine = ledger.digest();
                if (!mine.equals(head.digest())) {
                    violation(serverHead, "digest_mismatch", "the shard signed digest " + head.digest()
                            + " for a block whose re-execution gives " + mine, Map.of("signedHead",
                            Wire.signedHead(head), "auditorDigest", Wire.digest(mine)));
                    return;
                }
                lastHead = head;
                saveState();
            }
            synchronized (this) {
                SignedHead pending = pendingPeerHead;
                if (halted == null && pending != null
                        && pending.digest().blockNo() <= ledger.head().block().number()) {
                    pendingPeerHead = null;
                    compareWithPeer(pending, pendingPeerFrom);
                }
            }
            if (halted == null && ++rounds % spotCheckEvery == 0) {
                spotCheck();
            }
            sampleLag();
            contact.roundSucceeded();
        } catch (IOException | RuntimeException e) {
            contact.failed(ShardContact.describe(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A head must be this shard's, signed by the pinned server key (pinned now if this is the first contact). */
    private boolean checkHead(SignedHead head) throws IOException {
        if (head.shard() != shard) {
            contact.failed("the server at " + http.base() + " serves shard " + head.shard() + ", not " + shard);
            return false;
        }
        if (serverKey == null) {
            serverKey = head.serverKey();
            saveState();
        }
        try {
            head.verify(serverKey);
        } catch (VerificationException e) {
            violation(head.digest().blockNo(), "bad_head", "a signed head that does not verify under the pinned "
                    + "server key " + serverKey.hex() + ": " + e.getMessage(), Map.of("signedHead",
                    Wire.signedHead(head)));
            return false;
        }
        if (lastHead != null && head.digest().blockNo() < lastHead.digest().blockNo()) {
            violation(head.digest().blockNo(), "not_append_only", "the shard signed block "
                    + lastHead.digest().blockNo() + " and now signs an older head " + head.digest().blockNo(),
                    Map.of("earlierSignedHead", Wire.signedHead(lastHead), "laterSignedHead", Wire.signedHead(head)));
            return false;
        }
        return true;
    }

    private void openLedger() throws IOException, InterruptedException {
        if (ledger != null) {
            return;
        }
        RocksDbNodeStore opened = new RocksDbNodeStore(dir.resolve("ledger"), true, 64L << 20);
        synchronized (this) {
            store = opened;
            if (store.blockCount() > 0) {
                Ledger l = Ledger.open(store, 64L << 20);
                recent = RecentTxIds.rebuild(l, limits.replayWindow().toMillis());
                ledger = l;
                return;
            }
        }
        // The shard's genesis block fixes the format and tree parameters; the auditor makes its own and compares.
        Dto.BlockDto g = http.get("/v1/blocks/0", Dto.BlockDto.class);
        Block theirs = Block.decode(0, Wire.requiredBytes("record", g.record()).toByteArray());
        Bytes tree = theirs.meta().get("tree");
        Bytes format = theirs.meta().get("format");
        if (tree == null || !Bytes.utf8(Format.ID).equals(format)) {
            throw new IllegalStateException("shard " + shard + " has a genesis block of format "
                    + (format == null ? "(none)" : "\"" + format.utf8String() + "\"")
                    + (tree == null ? " without tree parameters" : "") + "; this auditor verifies " + Format.ID);
        }
        Ledger l = Ledger.openOrCreate(store, TreeParams.decode(tree.toByteArray()), theirs.timestamp(), 64L << 20);
        if (!l.block(0).hash().equals(theirs.hash())) {
            throw new IllegalStateException("shard " + shard + "'s genesis block is not one this auditor can rebuild");
        }
        synchronized (this) {
            recent = new RecentTxIds(limits.replayWindow().toMillis());
            ledger = l;
        }
    }

    /**
     * Fetches one block verified earlier, at random, and compares it with the auditor's own: a shard that rewrites
     * an old block in place (its later digests untouched) is caught when that block is drawn, and as every block is
     * drawn sooner or later, no rewrite stays unseen.
     */
    private void spotCheck() throws IOException, InterruptedException {
        long audited = ledger.head().block().number();
        if (audited < 1) {
            return;
        }
        long n = 1 + java.util.concurrent.ThreadLocalRandom.current().nextLong(audited);
        Dto.BlockDto dto = http.get("/v1/blocks/" + n, Dto.BlockDto.class);
        Block mine = ledger.block(n);
        String why = null;
        try {
            Block theirs = Block.decode(n, Wire.requiredBytes("record", dto.record()).toByteArray());
            if (!theirs.hash().equals(mine.hash())) {
                why = "block " + n + " now hashes to " + theirs.hash().hex() + "; it hashed to " + mine.hash().hex()
                        + " when this auditor verified it";
            } else {
                List<SignedTransaction> txs = new ArrayList<>();
                for (String rec : dto.transactions()) {
                    txs.add(SignedTransaction.decode(Wire.requiredBytes("transactions", rec)));
                }
                Bytes served = BlockSpec.of(theirs.timestamp(), txs).transactions();
                if (!served.equals(ledger.blockTransactions(n))) {
                    why = "block " + n + " now carries other signed transactions than when this auditor verified it";
                }
            }
        } catch (RuntimeException e) {
            why = "block " + n + ", verified earlier, no longer decodes: " + e.getMessage();
        }
        if (why != null) {
            Map<String, Object> ev = evidence.block(dto, serverKey);
            ev.put("auditorBlockHash", mine.hash().hex());
            ev.put("auditorDigest", Wire.digest(ledger.digest(n)));
            violation(n, "rewritten_block", why, ev);
        }
    }

    private void catchUp(long target) throws IOException, InterruptedException {
        for (long n = ledger.head().block().number() + 1; n <= target && halted == null; n++) {
            verifyBlock(n);
        }
    }

    /** VerifyBlock: signatures, registered keys, re-execution, block hash and digest. */
    private void verifyBlock(long n) throws IOException, InterruptedException {
        Dto.BlockDto dto = http.get("/v1/blocks/" + n, Dto.BlockDto.class);
        Block theirs;
        List<SignedTransaction> txs = new ArrayList<>();
        try {
            if (dto.number() != n) {
                throw new IllegalArgumentException("asked for block " + n + ", got " + dto.number());
            }
            theirs = Block.decode(n, Wire.requiredBytes("record", dto.record()).toByteArray());
            for (String rec : dto.transactions()) {
                txs.add(SignedTransaction.decode(Wire.requiredBytes("transactions", rec)));
            }
        } catch (RuntimeException e) {
            violation(n, "bad_block", "block " + n + " does not decode: " + e.getMessage(),
                    evidence.block(dto, serverKey));
            return;
        }
        if (!fixedKeys && txs.stream().anyMatch(t -> !registered.containsKey(t.tx().clientKey()))) {
            refreshRegistrations();  // a key registered since the last block
        }
        BlockAudit.Outcome o;
        Digest d;
        synchronized (this) {  // the ledger changes here only, under the monitor that answers read
            o = BlockAudit.replay(ledger, shard, theirs, txs, registered::containsKey, recent);
            d = ledger.digest();
        }
        if (!o.ok()) {
            Map<String, Object> ev = evidence.block(dto, serverKey);
            if (o.mine() != null) {
                ev.put("auditorLowerRoot", o.mine().lowerRoot().hex());
                ev.put("auditorBlockHash", o.mine().hash().hex());
            }
            evidence.outcome(n, o, ev);
            violation(n, o.kind(), o.detail(), ev);
            return;
        }
        if (dto.digest() != null && !d.equals(Wire.digest("digest", dto.digest()))) {
            Map<String, Object> ev = evidence.block(dto, serverKey);
            ev.put("auditorDigest", Wire.digest(d));
            violation(n, "digest_mismatch", "block " + n + " re-executed gives digest " + d + "; the shard says "
                    + dto.digest().hash(), ev);
            return;
        }
        blocksVerified.incrementAndGet();
        writesApplied.addAndGet(o.writes());
    }

    private void refreshRegistrations() throws IOException, InterruptedException {
        List<Dto.ClientKeyDto> listed = http.get("/v1/clients", new TypeReference<List<Dto.ClientKeyDto>>() { });
        if (listed.size() > limits.maxClientKeys()) {
            // Not a violation (a large deployment is not a lie), but no more memory than configured either.
            throw new IOException("shard " + shard + " lists " + listed.size() + " client keys, over "
                    + "glassledger.auditor.max-client-keys (" + limits.maxClientKeys() + ")");
        }
        for (Dto.ClientKeyDto c : listed) {
            registered.put(Bytes.fromHex(c.publicKey()), c.clientId());
        }
    }

    /**
     * GlassDB's Audit(digest, block_no) from a client: catch up if the client is ahead, then compare. A signed head
     * that contradicts the auditor's history is a fork, kept as evidence; without a valid signature the claim is
     * only the client's word ({@code inconsistent}).
     */
    AuditAnswer check(Dto.AuditRequest r) {
        AuditAnswer first = answer(r, false);
        if (first != BEHIND) {
            return first;
        }
        awaitCatchUp();
        return answer(r, true);
    }

    /** A marker: the client is ahead of the audit, and a catch-up may answer it. */
    private static final AuditAnswer BEHIND = new AuditAnswer("behind", null, null);

    /**
     * Starts a catch-up for a client's audit unless one is running (then waits for that one) or one started less
     * than {@code catchUpInterval} ago (then answers at once): however many audits arrive, a shard does at most one
     * audit-started catch-up per interval, on its own poll thread, never on the caller's.
     */
    private void awaitCatchUp() {
        java.util.concurrent.CompletableFuture<Void> f;
        synchronized (catchUpLock) {
            f = catchUp;
            if (f == null || f.isDone()) {
                long now = System.nanoTime();
                if (f != null && now - lastCatchUpNanos < limits.catchUpInterval().toNanos()) {
                    return;
                }
                lastCatchUpNanos = now;
                try {
                    f = java.util.concurrent.CompletableFuture.runAsync(this::poll, limits.catchUps());
                } catch (java.util.concurrent.RejectedExecutionException e) {
                    return;  // shutting down
                }
                catchUp = f;
            }
        }
        try {
            f.get(limits.catchUpWait().toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
            // answered pending: the client asks again later
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private synchronized AuditAnswer answer(Dto.AuditRequest r, boolean afterCatchUp) {
        Digest claimed = Wire.digest("hash", new Dto.DigestDto(r.block(), r.hash()));
        SignedHead signed = null;
        if (r.signedHead() != null) {
            signed = Wire.signedHead("signedHead", r.signedHead());
            try {
                if (serverKey == null || signed.shard() != shard) {
                    throw new VerificationException("not this shard's head");
                }
                signed.verify(serverKey);
            } catch (VerificationException e) {
                return new AuditAnswer("bad_signed_head", "the signed head does not verify under shard " + shard
                        + "'s key: " + e.getMessage(), null);
            }
        }
        if ((ledger == null || claimed.blockNo() > ledger.head().block().number()) && !afterCatchUp
                && halted == null) {
            return BEHIND;
        }
        if (ledger == null || claimed.blockNo() > ledger.head().block().number()) {
            if (halted != null) {
                return new AuditAnswer("halted", "the audit of shard " + shard + " stopped: " + halted, null);
            }
            if (signed != null && signed.digest().blockNo() > serverHead && serverHead >= 0) {
                violation(signed.digest().blockNo(), "not_append_only", "the shard signed block "
                        + signed.digest().blockNo() + " for a client but now serves only up to " + serverHead,
                        Map.of("clientSignedHead", Wire.signedHead(signed)));
                return new AuditAnswer("fork", "shard " + shard + " signed a head it no longer serves", null);
            }
            return new AuditAnswer("pending", "the auditor has verified shard " + shard + " up to block "
                    + (ledger == null ? -1 : ledger.head().block().number()), null);
        }
        Digest mine = ledger.digest(claimed.blockNo());
        if (mine.equals(claimed)) {
            return new AuditAnswer(null, null, mine);
        }
        if (signed != null && signed.digest().equals(claimed)) {
            violation(claimed.blockNo(), "fork", "the shard signed digest " + claimed + " for a client; its history "
                    + "as re-executed by this auditor has " + mine,
                    evidence.fork("clientSignedHead", signed, mine, lastHead, serverKey));
            return new AuditAnswer("fork", "shard " + shard + " showed this client a forked history: block "
                    + claimed.blockNo() + " is " + mine.root().hex() + " here", mine);
        }
        return new AuditAnswer("inconsistent", "block " + claimed.blockNo() + " of shard " + shard + " is "
                + mine.root().hex() + " here, not " + claimed.root().hex() + " (no signed head to attribute it)", mine);
    }

    /**
     * GlassDB's Gossip: another auditor's latest verified head of this shard. It must verify under the pinned key
     * and lie on this auditor's history; a head beyond it is kept and checked once the audit gets there.
     *
     * @return null if consistent (or not yet comparable), else the violation kind
     */
    synchronized String gossip(SignedHead peer, Gossip.Origin from) {
        if (halted != null || serverKey == null || peer.shard() != shard) {
            return null;
        }
        try {
            peer.verify(serverKey);
        } catch (VerificationException e) {
            return "bad_signed_head";  // the peer's problem (or a forgery): not evidence against the shard
        }
        if (ledger == null || peer.digest().blockNo() > ledger.head().block().number()) {
            SignedHead held = pendingPeerHead;
            if (held == null || held.digest().blockNo() < peer.digest().blockNo()) {
                pendingPeerHead = peer;
                pendingPeerFrom = from;
            }
            return null;
        }
        return compareWithPeer(peer, from);
    }

    private String compareWithPeer(SignedHead peer, Gossip.Origin from) {
        Digest mine = ledger.digest(peer.digest().blockNo());
        if (mine.equals(peer.digest())) {
            return null;
        }
        Map<String, Object> ev = evidence.fork("peerSignedHead", peer, mine, lastHead, serverKey);
        ev.put("peer", from.peer());
        ev.put("peerKey", from.key());
        ev.put("peerGossip", from.message());  // the peer's signed message: who reported the other head, provably
        violation(peer.digest().blockNo(), "fork", "auditor " + from.peer() + " verified digest " + peer.digest()
                + ", signed by the shard; this auditor's re-executed history has " + mine, ev);
        return "fork";
    }

    private SignedHead pendingPeerHead;
    private Gossip.Origin pendingPeerFrom;

    /** The outcome of a client's audit request: {@code problem} null means the digest is on this history. */
    record AuditAnswer(String problem, String detail, Digest auditorDigest) {
    }

    /** Records the first violation only: after it the audit is halted, and later ones are its consequences. */
    private synchronized void violation(long block, String kind, String detail, Map<String, Object> evidence) {
        if (halted != null) {
            return;
        }
        // Recorded before the shard is marked halted: a status read in between must not show a halt without its
        // violation (seen under load: the violation's fsync is slow).
        violations.report(new Violation(shard, block, kind, detail, System.currentTimeMillis(), evidence));
        halted = kind + " at block " + block + ": " + detail;
    }

    private void sampleLag() {
        synchronized (lag) {
            lag.addLast(new LagSample(System.currentTimeMillis(), lag()));
            while (lag.size() > LAG_SAMPLES) {
                lag.removeFirst();
            }
        }
    }

    private void saveState() throws IOException {
        Path tmp = dir.resolve("state.json.tmp");
        Files.write(tmp, json.writeValueAsBytes(new State(serverKey == null ? null : serverKey.hex(),
                lastHead == null ? null : Wire.signedHead(lastHead))));
        Files.move(tmp, dir.resolve("state.json"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    long auditedBlock() {
        Ledger l = ledger;
        return l == null ? -1 : l.head().block().number();
    }

    long lag() {
        return serverHead < 0 ? 0 : Math.max(0, serverHead - auditedBlock());
    }

    long blocksVerified() {
        return blocksVerified.get();
    }

    long writesApplied() {
        return writesApplied.get();
    }

    SignedHead lastHead() {
        return lastHead;
    }

    long serverHead() {
        return serverHead;
    }

    String halted() {
        return halted;
    }

    /** When the shard last answered, whether that is too long ago, and the last error. */
    ShardContact.Report contact() {
        return contact.report(halted == null);
    }

    String url() {
        return http.base().toString();
    }

    List<Violation> violations() {
        return violations.of(shard);
    }

    List<LagSample> lagSamples() {
        synchronized (lag) {
            return List.copyOf(lag);
        }
    }

    @Override
    public void close() {
        synchronized (pollLock) {  // not in the middle of a round
            synchronized (this) {
                if (store != null) {
                    store.close();
                }
            }
        }
    }
}
