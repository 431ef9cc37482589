package io.glassledger.client;

import io.glassledger.api.Dto;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.SignedHead;
import io.glassledger.verify.proof.Version;
import io.glassledger.verify.shard.ShardMap;
import io.glassledger.verify.txn.PromiseVerifier;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.Transaction;
import io.glassledger.verify.txn.TxnDraft;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A client of a GlassLedger server, or of a cluster of shards, over HTTPS (docs/API.md). It routes each key to its
 * shard by the shard map, signs transactions with the client's Ed25519 key (one part per shard, committed with
 * two-phase commit when there are several: {@link TwoPhaseCommit}), checks every promise in the background (one
 * {@link DeferredVerifier} per shard), and answers {@link #get}, {@link #history} and {@link #head} only after their
 * proofs verified against a digest that extends what it trusts of that shard ({@link TrustedState}, kept in the
 * state file of the shard). Anything that fails to verify is an {@link IntegrityViolation}, thrown (or failing the
 * future) and handed to the configured handler.
 *
 * <p>Every operation has a blocking form and an {@code ...Async} form; blocking forms throw what the future would
 * fail with, unwrapped. Thread-safe; {@link Txn}s are not.
 */
public final class GlassLedgerClient implements AutoCloseable {
    /** Keys per request when the server does not say (docs/API.md, Limits). */
    static final int DEFAULT_MAX_KEYS = 10_000;

    private final ClientConfig config;
    private final List<ShardLink> links;
    private final ShardMap map;
    private final List<Api> auditors;
    private final SigningKey signingKey;
    private final Violations violations;

    private GlassLedgerClient(ClientConfig config, List<ShardLink> links, ShardMap map, SigningKey signingKey,
                              Violations violations) {
        this.config = config;
        this.links = List.copyOf(links);
        this.map = map;
        this.signingKey = signingKey;
        this.violations = violations;
        List<Api> as = new java.util.ArrayList<>();
        for (int i = 0; i < config.auditors().size(); i++) {
            as.add(new Api(config.auditors().get(i), null, config.auditorPins().isEmpty() ? null
                    : io.glassledger.api.PinnedTrustManager.sslContext(config.auditorPins().get(i)),
                    config.requestTimeout(), config.maxResponseBytes()));
        }
        this.auditors = List.copyOf(as);
        if (!auditors.isEmpty() && !config.auditInterval().isZero()) {
            auditTimer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "glassledger-audit");
                t.setDaemon(true);
                return t;
            });
            long every = config.auditInterval().toMillis();
            // A violation reaches the handler through auditAsync; anything else (an auditor down) waits for the next.
            auditTimer.scheduleWithFixedDelay(() -> auditAsync().exceptionally(e -> null), every, every,
                    TimeUnit.MILLISECONDS);
        } else {
            auditTimer = null;
        }
    }

    private final java.util.concurrent.ScheduledExecutorService auditTimer;

    /**
     * Connects to every shard of the configuration: reads each one's {@code /v1/info}, checks that they agree on
     * the shard map (and with {@link ClientConfig#shardMapVersion()} if set), loads each shard's state file, pins
     * each server key on first use (a different key later is a violation), registers the client's public key, and
     * trusts each signed head if nothing is trusted yet for that shard.
     */
    public static GlassLedgerClient connect(ClientConfig config) {
        SigningKey key;
        try {
            key = config.signingKey() != null ? config.signingKey() : KeyFile.loadOrCreate(config.keyFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or create key file " + config.keyFile(), e);
        }
        Violations violations = new Violations(config.violationHandler());
        List<ShardLink> links = new ArrayList<>();
        try {
            for (int i = 0; i < config.shards().size(); i++) {
                links.add(ShardLink.connect(config, i, key, violations));
            }
            long version = links.get(0).mapVersion();
            for (ShardLink l : links) {
                if (l.mapVersion() != version) {
                    throw new GlassLedgerException("stale_shard_map", 0, false, "shard " + l.shard + " at " + l.url
                            + " uses shard map version " + l.mapVersion() + ", shard 0 uses " + version);
                }
            }
            if (config.shardMapVersion() != null && config.shardMapVersion() != version) {
                throw new GlassLedgerException("stale_shard_map", 0, false, "configured for shard map version "
                        + config.shardMapVersion() + ", but the cluster's is " + version);
            }
            links.forEach(l -> l.api.routeWith(version));
            return new GlassLedgerClient(config, links, new ShardMap(version, links.size()), key, violations);
        } catch (RuntimeException e) {
            links.forEach(ShardLink::close);
            IntegrityViolation v = Violations.find(e);
            if (v != null) {
                violations.report(v);
            }
            throw e;
        }
    }

    // ------------------------------------------------------------------ transactions

    /** Starts a transaction (locally: no request). */
    public Txn begin() {
        return Violations.join(beginAsync());
    }

    /**
     * Local: a transaction is the client's until it commits (GlassDB §3.2.1), so starting one costs no request. Its
     * id carries the server's clock as measured at connect, which keeps it inside the shard's replay window even
     * when this machine's clock is off. The digest it will be served is checked when its promise is.
     */
    public CompletableFuture<Txn> beginAsync() {
        long serverNow = System.currentTimeMillis() + links.get(0).clockOffsetMillis;
        return CompletableFuture.completedFuture(new Txn(this, Transaction.newTxId(serverNow)));
    }

    /**
     * Runs {@code body} in a transaction and commits it, again with fresh reads on {@code conflict} or
     * {@code overloaded}, up to {@link ClientConfig#maxRetries()} times with exponential backoff. {@code body} may
     * run more than once, so it should do nothing outside the transaction.
     */
    public <T> TxnResult<T> runTransaction(Function<Txn, T> body) {
        for (int attempt = 0; ; attempt++) {
            try {
                Txn txn = begin();
                T value = body.apply(txn);
                return new TxnResult<>(value, txn.commit());
            } catch (GlassLedgerException e) {
                if (!retriable(e) || attempt >= config.maxRetries()) {
                    throw e;
                }
                try {
                    Thread.sleep(backoffMillis(attempt, e));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /** {@link #runTransaction} with an asynchronous body. */
    public <T> CompletableFuture<TxnResult<T>> runTransactionAsync(Function<Txn, CompletableFuture<T>> body) {
        return attempt(body, 0);
    }

    private <T> CompletableFuture<TxnResult<T>> attempt(Function<Txn, CompletableFuture<T>> body, int n) {
        return beginAsync()
                .thenCompose(txn -> body.apply(txn).thenCompose(v -> txn.commitAsync()
                        .thenApply(p -> new TxnResult<>(v, p))))
                .handle((r, err) -> {
                    if (err == null) {
                        return CompletableFuture.completedFuture(r);
                    }
                    Throwable t = Violations.unwrap(err);
                    if (t instanceof GlassLedgerException g && retriable(g) && n < config.maxRetries()) {
                        return CompletableFuture.runAsync(() -> { },
                                        CompletableFuture.delayedExecutor(backoffMillis(n, g), TimeUnit.MILLISECONDS))
                                .thenCompose(x -> attempt(body, n + 1));
                    }
                    return CompletableFuture.<TxnResult<T>>failedFuture(t);
                })
                .thenCompose(f -> f);
    }

    private static boolean retriable(GlassLedgerException e) {
        return "conflict".equals(e.code()) || "overloaded".equals(e.code())
                || GlassLedgerException.VERIFIER_BACKLOG.equals(e.code())
                || GlassLedgerException.ABORTED.equals(e.code());
    }

    private static long backoffMillis(int attempt, GlassLedgerException e) {
        long ms = Math.min(1000, 10L << Math.min(attempt, 7));
        ms = ms / 2 + ThreadLocalRandom.current().nextLong(ms / 2 + 1);
        return e.retryAfter() == null ? ms : Math.max(ms, e.retryAfter().toMillis());
    }

    /**
     * Commits what {@link Txn} collected: one-phase at the one shard involved, or two-phase commit across several
     * (GlassDB §3.3.2) coordinated here, with the decision recorded at the primary participant first.
     */
    CompletableFuture<CommitPromise> commit(Bytes txId, List<PromiseVerifier.Read> reads,
                                            SortedMap<Bytes, Bytes> writes) {
        TreeMap<Integer, TxnDraft> drafts = new TreeMap<>();
        Map<Integer, List<PromiseVerifier.Read>> readsOf = new HashMap<>();
        int primary = writes.isEmpty() ? shardOf(reads.stream().map(PromiseVerifier.Read::key)
                .min(Bytes::compareTo).orElseThrow()) : shardOf(writes.firstKey());
        java.util.TreeSet<Integer> involved = new java.util.TreeSet<>();
        reads.forEach(r -> involved.add(shardOf(r.key())));
        writes.keySet().forEach(k -> involved.add(shardOf(k)));
        List<Integer> participants = new ArrayList<>();
        participants.add(primary);
        involved.stream().filter(p -> p != primary).forEach(participants::add);
        for (int p : participants) {
            drafts.put(p, new TxnDraft(signingKey, p, participants, txId));
            readsOf.put(p, new ArrayList<>());
        }
        for (PromiseVerifier.Read r : reads) {
            int p = shardOf(r.key());
            drafts.get(p).read(r.key(), r.version());
            readsOf.get(p).add(r);
        }
        writes.forEach((k, v) -> {
            TxnDraft d = drafts.get(shardOf(k));
            if (v == null) {
                d.delete(k);
            } else {
                d.put(k, v);
            }
        });
        Map<Integer, SignedTransaction> signed = new TreeMap<>();
        for (var e : drafts.entrySet()) {
            signed.put(e.getKey(), e.getValue().sign());
        }
        // Each participant's verifier must have room for the promise before anything is sent (its queue is bounded).
        List<DeferredVerifier> reserved = new ArrayList<>();
        for (int p : participants) {
            DeferredVerifier v = links.get(p).verifier;
            if (!v.reserve()) {
                reserved.forEach(DeferredVerifier::unreserve);
                return CompletableFuture.failedFuture(v.backlog(config.verifyDelay()));
            }
            reserved.add(v);
        }
        CompletableFuture<CommitPromise> f;
        try {
            f = participants.size() == 1
                    ? onePhase(links.get(primary), signed.get(primary), readsOf.get(primary))
                    : new TwoPhaseCommit(this, txId, participants, signed, readsOf).run();
        } catch (RuntimeException e) {
            reserved.forEach(DeferredVerifier::unreserve);
            throw e;
        }
        f = f.whenComplete((p, err) -> reserved.forEach(DeferredVerifier::unreserve));
        if (config.verifyDelay().isZero()) {
            f = f.thenCompose(p -> p.outcome().thenApply(o -> p));
        }
        return violations.watch(f);
    }

    private CompletableFuture<CommitPromise> onePhase(ShardLink link, SignedTransaction signed,
                                                      List<PromiseVerifier.Read> reads) {
        boolean wait = config.verifyDelay().isZero();
        TrustedState before = link.trust.current();
        return link.commit(signed, wait).thenApply(dto -> link.accept("/v1/tx/commit", signed, reads, dto, before,
                config));
    }

    /** The check of a promise: the same outcome the background verifier completes. */
    public CompletableFuture<VerificationOutcome> verify(CommitPromise promise) {
        return promise.verification();
    }

    // ------------------------------------------------------------------ verified reads

    /**
     * The current value of {@code key} (null: none), proven in the state of the latest persisted block: the block of
     * the very digest the proof leads to, which is not older than anything this client trusted when it asked. An
     * answer from an older block is {@link IntegrityViolation.Kind#STALE_READ}.
     */
    public byte[] get(byte[] key) {
        return Violations.join(getAsync(key));
    }

    public String get(String key) {
        byte[] v = get(key.getBytes(StandardCharsets.UTF_8));
        return v == null ? null : new String(v, StandardCharsets.UTF_8);
    }

    /** The value of {@code key} in the state of block {@code atBlock} (null: none), proven. */
    public byte[] get(byte[] key, long atBlock) {
        return Violations.join(getAsync(key, atBlock));
    }

    public CompletableFuture<byte[]> getAsync(byte[] key) {
        return violations.watch(proofs(key).value(key(key), null).thenApply(GlassLedgerClient::bytes));
    }

    public CompletableFuture<byte[]> getAsync(byte[] key, long atBlock) {
        if (atBlock < 0) {
            throw new IllegalArgumentException("negative block");
        }
        return violations.watch(proofs(key).value(key(key), atBlock).thenApply(GlassLedgerClient::bytes));
    }

    /**
     * The value of {@code key} in the state of {@code atBlock} (null: the latest persisted block) with its proof and
     * the digest it was verified against, which is now part of the trusted chain. No signed head: see {@link #prove}.
     */
    public ValueProof getProof(byte[] key, Long atBlock) {
        return Violations.join(getProofAsync(key, atBlock));
    }

    public CompletableFuture<ValueProof> getProofAsync(byte[] key, Long atBlock) {
        return violations.watch(proofs(key).value(key(key), atBlock));
    }

    /**
     * A value with everything that proves it: the claim, the keys proof, its digest (now part of the trusted chain)
     * and the signed head; what {@code ledger-cli prove} saves. When the digest trusted before the call is older
     * than the proof's, the file also links it to the proof's digest (its trusted part).
     */
    public ValueProof prove(byte[] key, Long atBlock) {
        return Violations.join(proveAsync(key, atBlock));
    }

    public CompletableFuture<ValueProof> proveAsync(byte[] key, Long atBlock) {
        ShardLink link = link(key(key));
        TrustedState t0 = link.trust.current();
        Digest before = t0 == null ? null : t0.digest();
        return violations.watch(link.proofs.value(key(key), atBlock).thenCompose(p -> headAsync(link.shard)
                .thenCompose(h -> link.proofs.withHead(p, h)))
                .thenCompose(p -> link.proofs.withTrusted(p, before)));
    }

    /**
     * One page of {@code POST /v1/scan} on {@code shard}: live keys in {@code [from, to)} (null: unbounded) in the
     * state of {@code atBlock} (null: the latest persisted block), at most {@code limit}. <b>Not verified:</b> the API
     * has no proof of a range; a caller that needs the values proven asks {@link #getProof} for each key at the
     * page's block (what {@code ledger-cli scan} does), which proves each value but not that no key is missing.
     */
    public io.glassledger.api.Dto.ScanResponse scanUnverified(int shard, byte[] from, byte[] to, int limit,
                                                              Long atBlock) {
        java.util.Base64.Encoder b64 = java.util.Base64.getEncoder();
        return Violations.join(shardLink(shard).api.post("/v1/scan", new io.glassledger.api.Dto.ScanRequest(
                from == null ? null : b64.encodeToString(from), to == null ? null : b64.encodeToString(to), limit,
                atBlock), io.glassledger.api.Dto.ScanResponse.class));
    }

    /** The last {@code n} versions of {@code key}, newest first (a deletion has a null value), proven. */
    public List<Version> history(byte[] key, int n) {
        return Violations.join(historyAsync(key, n));
    }

    public CompletableFuture<List<Version>> historyAsync(byte[] key, int n) {
        if (n < 1) {
            throw new IllegalArgumentException("n must be positive");
        }
        return violations.watch(proofs(key).history(key(key), n));
    }

    // ------------------------------------------------------------------ trust

    /** The trusted digest of shard 0, the only shard of a single server (no request). */
    public Digest digest() {
        return digest(0);
    }

    /** The trusted digest of {@code shard} (no request). */
    public Digest digest(int shard) {
        return shardLink(shard).trust.current().digest();
    }

    /** Everything trusted about shard 0: server key, digest, signed head (no request). */
    public TrustedState trustedState() {
        return trustedState(0);
    }

    public TrustedState trustedState(int shard) {
        return shardLink(shard).trust.current();
    }

    /** Fetches shard 0's signed head, verifies it, and moves trust to it with an append-only proof. */
    public SignedHead head() {
        return head(0);
    }

    public SignedHead head(int shard) {
        return Violations.join(headAsync(shard));
    }

    public CompletableFuture<SignedHead> headAsync() {
        return headAsync(0);
    }

    public CompletableFuture<SignedHead> headAsync(int shard) {
        return violations.watch(shardLink(shard).proofs.head());
    }

    /**
     * Sends the trusted state to every configured auditor ({@code POST <auditor>/v1/audit}, body {@link AuditRequest},
     * no API key). Completes when all answered 2xx; an auditor answering a problem with code {@code fork} or
     * {@code inconsistent} is an {@link IntegrityViolation}, any other failure a {@link GlassLedgerException}.
     */
    public void audit() {
        Violations.join(auditAsync());
    }

    public CompletableFuture<Void> auditAsync() {
        List<CompletableFuture<Object>> answers = new ArrayList<>();
        for (ShardLink link : links) {
            TrustedState s = link.trust.current();
            AuditRequest body = AuditRequest.of(s);
            auditOne(s, body, answers);
        }
        return violations.watch(CompletableFuture.allOf(answers.toArray(new CompletableFuture<?>[0])));
    }

    private void auditOne(TrustedState s, AuditRequest body, List<CompletableFuture<Object>> answers) {
        for (Api a : auditors) {
            answers.add(a.post("/v1/audit", body, Object.class).exceptionally(err -> {
                Throwable t = Violations.unwrap(err);
                if (t instanceof GlassLedgerException g
                        && ("fork".equals(g.code()) || "inconsistent".equals(g.code()))) {
                    throw IntegrityViolation.builder(IntegrityViolation.Kind.AUDIT, "auditor " + a.base()
                            + " disagrees: " + g.detail()).trust(s).cause(g).build();
                }
                throw t instanceof RuntimeException r ? r : new IllegalStateException(t);
            }));
        }
    }

    /** Proof bytes and claims the background verifiers (one per shard) have received, summed. */
    public VerifierStats verifierStats() {
        return links.stream().map(l -> l.verifier.stats()).reduce(VerifierStats::plus).orElseThrow();
    }

    /** Promises queued for checking; for tests and metrics. */
    public int pendingVerifications() {
        return links.stream().mapToInt(l -> l.verifier.queued()).sum();
    }

    /** The shard of a single server (0 in a cluster: see {@link #shardOf}). */
    public int shard() {
        return links.get(0).shard;
    }

    /** Shards in the map this client routes with. */
    public int shards() {
        return links.size();
    }

    /** The shard map this client routes with. */
    public ShardMap shardMap() {
        return map;
    }

    /** The shard that holds {@code key}. */
    public int shardOf(byte[] key) {
        return shardOf(key(key));
    }

    int shardOf(Bytes key) {
        return map.shardOf(key);
    }

    /** Shard 0's server key (see {@link #trustedState(int)} for the others). */
    public Bytes serverKey() {
        return trustedState(0).serverKey();
    }

    public Bytes publicKey() {
        return signingKey.publicKey();
    }

    /** Stops the background verifier; promises not yet verified fail with {@code closed}. */
    @Override
    public void close() {
        if (auditTimer != null) {
            auditTimer.shutdownNow();
        }
        links.forEach(ShardLink::close);
        auditors.forEach(Api::close);
    }

    // ------------------------------------------------------------------ for Txn

    ShardLink link(Bytes key) {
        return links.get(map.shardOf(key));
    }

    ShardLink shardLink(int shard) {
        if (shard < 0 || shard >= links.size()) {
            throw new IllegalArgumentException("no shard " + shard + " in a map of " + links.size());
        }
        return links.get(shard);
    }

    ClientConfig config() {
        return config;
    }

    private Proofs proofs(byte[] key) {
        return link(key(key)).proofs;
    }

    long maxValueBytes() {
        long m = Entry.MAX_VALUE_BYTES;
        for (ShardLink l : links) {
            if (l.info.maxValueBytes() > 0) {
                m = Math.min(m, l.info.maxValueBytes());
            }
        }
        return m;
    }

    static int maxKeys(Dto.ServerInfo info) {
        return info.maxKeysPerRequest() > 0 ? info.maxKeysPerRequest() : DEFAULT_MAX_KEYS;
    }

    private static byte[] bytes(ValueProof p) {
        return p.value() == null ? null : p.value().toByteArray();
    }

    static Bytes key(byte[] key) {
        if (key == null || key.length == 0 || key.length > Entry.MAX_KEY_BYTES) {
            throw new IllegalArgumentException("a key is 1.." + Entry.MAX_KEY_BYTES + " bytes");
        }
        return Bytes.of(key);
    }
}
