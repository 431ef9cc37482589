package io.glassledger.client;

import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
import io.glassledger.core.crypto.Ed25519;
import io.glassledger.core.crypto.SigningKey;
import io.glassledger.core.hash.Bytes;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.core.postree.Entry;
import io.glassledger.core.proof.Digest;
import io.glassledger.core.proof.SignedHead;
import io.glassledger.core.proof.Version;
import io.glassledger.core.txn.Promise;
import io.glassledger.core.txn.PromiseVerifier;
import io.glassledger.core.txn.SignedTransaction;
import io.glassledger.core.txn.Transaction;
import io.glassledger.core.txn.TxnDraft;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A client of one GlassLedger shard over HTTPS (docs/API.md). It signs transactions with the client's Ed25519 key,
 * checks every promise in the background ({@link DeferredVerifier}), and answers {@link #get}, {@link #history} and
 * {@link #head} only after their proofs verified against a digest that extends what it trusts ({@link TrustedState},
 * kept in the state file). Anything that fails to verify is an {@link IntegrityViolation}, thrown (or failing the
 * future) and handed to the configured handler.
 *
 * <p>Every operation has a blocking form and an {@code ...Async} form; blocking forms throw what the future would
 * fail with, unwrapped. Thread-safe; {@link Txn}s are not.
 */
public final class GlassLedgerClient implements AutoCloseable {
    /** Keys per request when the server does not say (docs/API.md, Limits). */
    static final int DEFAULT_MAX_KEYS = 10_000;

    private final ClientConfig config;
    private final Api api;
    private final List<Api> auditors;
    private final SigningKey signingKey;
    private final Dto.ServerInfo info;
    private final TrustKeeper trust;
    private final Violations violations;
    private final DeferredVerifier verifier;
    private final Proofs proofs;
    private volatile long clockOffsetMillis;

    private GlassLedgerClient(ClientConfig config, Api api, SigningKey signingKey, Dto.ServerInfo info,
                              TrustKeeper trust, Violations violations, long clockOffsetMillis) {
        this.config = config;
        this.api = api;
        this.signingKey = signingKey;
        this.info = info;
        this.trust = trust;
        this.violations = violations;
        this.clockOffsetMillis = clockOffsetMillis;
        this.auditors = config.auditors().stream()
                .map(u -> new Api(u, null, null, config.requestTimeout())).toList();
        this.verifier = new DeferredVerifier(api, trust, violations, maxKeys(info), config.proofWait(),
                config.requestTimeout());
        this.proofs = new Proofs(api, trust);
    }

    /**
     * Connects: reads {@code /v1/info}, loads the state file, pins the server key on first use (a different key
     * later is a violation), registers the client's public key, and trusts the signed head if nothing is trusted yet.
     */
    public static GlassLedgerClient connect(ClientConfig config) {
        SigningKey key;
        try {
            key = config.signingKey() != null ? config.signingKey() : KeyFile.loadOrCreate(config.keyFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or create key file " + config.keyFile(), e);
        }
        Api api = new Api(config.url(), config.apiKey(), config.pinnedCertSha256() == null ? null
                : PinnedTrustManager.sslContext(config.pinnedCertSha256()), config.requestTimeout());
        Violations violations = new Violations(config.violationHandler());
        try {
            long before = System.currentTimeMillis();
            Dto.ServerInfo info = Violations.join(api.get("/v1/info", Dto.ServerInfo.class));
            long offset = info.serverTimeMillis() - (before + System.currentTimeMillis()) / 2;
            if (info.format() != null && !Ledger.FORMAT.equals(info.format())) {
                throw new GlassLedgerException("unsupported_format", 0, false, "the server's ledger format is "
                        + info.format() + ", this client verifies " + Ledger.FORMAT);
            }
            Bytes serverKey;
            try {
                serverKey = Wire.hex("serverKey", info.serverKey(), Ed25519.PUBLIC_KEY_BYTES);
            } catch (Wire.BadWireException e) {
                throw GlassLedgerException.badResponse("/v1/info: " + e.getMessage(), e);
            }
            TrustStore store = TrustStore.open(config.stateFile());
            TrustedState known = store.current();
            if (known != null && (!known.serverKey().equals(serverKey) || known.shard() != info.shard())) {
                throw IntegrityViolation.builder(IntegrityViolation.Kind.SERVER_IDENTITY, "the server at "
                                + config.url() + " presents key " + serverKey.hex() + " for shard " + info.shard()
                                + "; the state file pins key " + known.serverKey().hex() + " for shard "
                                + known.shard())
                        .trust(known).build();
            }
            Violations.join(api.post("/v1/clients/key", new Dto.RegisterKeyRequest(key.publicKey().hex()),
                    Dto.ClientDto.class));
            TrustKeeper keeper = new TrustKeeper(store, api, serverKey, info.shard());
            if (known == null) {
                SignedHead head = keeper.checkHead(Violations.join(api.get("/v1/head", Dto.SignedHeadDto.class)));
                store.initialize(new TrustedState(serverKey, info.shard(), head.digest(), head));
            }
            return new GlassLedgerClient(config, api, key, info, keeper, violations, offset);
        } catch (RuntimeException e) {
            api.close();
            IntegrityViolation v = Violations.find(e);
            if (v != null) {
                violations.report(v);
            }
            throw e;
        }
    }

    // ------------------------------------------------------------------ transactions

    /** Starts a transaction ({@code POST /v1/tx/begin}). */
    public Txn begin() {
        return Violations.join(beginAsync());
    }

    /**
     * Local: a transaction is the client's until it commits (GlassDB §3.2.1), so starting one costs no request. Its
     * id carries the server's clock as measured at connect, which keeps it inside the shard's replay window even
     * when this machine's clock is off. The digest it will be served is checked when its promise is.
     */
    public CompletableFuture<Txn> beginAsync() {
        long serverNow = System.currentTimeMillis() + clockOffsetMillis;
        return CompletableFuture.completedFuture(new Txn(this, new TxnDraft(signingKey, info.shard(), serverNow)));
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
        return "conflict".equals(e.code()) || "overloaded".equals(e.code());
    }

    private static long backoffMillis(int attempt, GlassLedgerException e) {
        long ms = Math.min(1000, 10L << Math.min(attempt, 7));
        ms = ms / 2 + ThreadLocalRandom.current().nextLong(ms / 2 + 1);
        return e.retryAfter() == null ? ms : Math.max(ms, e.retryAfter().toMillis());
    }

    /** Sends a signed transaction; called by {@link Txn}. */
    CompletableFuture<CommitPromise> commit(SignedTransaction signed, List<PromiseVerifier.Read> reads) {
        boolean wait = config.verifyDelay().isZero();
        TrustedState before = trust.current();
        Dto.CommitRequest req = new Dto.CommitRequest(Wire.b64(signed.record()), wait ? Boolean.TRUE : null);
        CompletableFuture<CommitPromise> f = api.post("/v1/tx/commit", req, Dto.PromiseDto.class)
                .thenApply(dto -> accept(signed, reads, dto, before));
        if (wait) {
            f = f.thenCompose(p -> p.outcome().thenApply(o -> p));
        }
        return violations.watch(f);
    }

    private CommitPromise accept(SignedTransaction signed, List<PromiseVerifier.Read> reads, Dto.PromiseDto dto,
                                 TrustedState before) {
        Promise p;
        try {
            p = new Promise(Wire.hex("txId", dto.txId(), Transaction.TX_ID_BYTES), dto.shard(), dto.block(),
                    Wire.digest("served", dto.served()));
        } catch (Wire.BadWireException e) {
            throw GlassLedgerException.badResponse("/v1/tx/commit: " + e.getMessage(), e);
        }
        Transaction tx = signed.tx();
        String broken = !p.txId().equals(tx.txId()) || p.shard() != tx.shard()
                ? "the promise is for another transaction"
                : p.blockNo() < 0 ? "negative block"
                : !tx.isReadOnly() && p.blockNo() == 0 ? "a transaction that writes was promised no block"
                : p.served().blockNo() < before.digest().blockNo() ? "served digest " + p.served()
                        + " is older than the trusted block " + before.digest().blockNo()
                : null;
        if (broken != null) {
            throw IntegrityViolation.builder(IntegrityViolation.Kind.BROKEN_PROMISE, broken).trust(before)
                    .serverDigest(p.served()).txIds(List.of(tx.txId())).build();
        }
        trust.store().offer(p.served(), null, null);  // a different digest at the trusted block is a fork
        CommitPromise cp = new CommitPromise(p, signed, reads, System.nanoTime());
        verifier.submit(cp, config.verifyDelay());
        return cp;
    }

    /** The check of a promise: the same outcome the background verifier completes. */
    public CompletableFuture<VerificationOutcome> verify(CommitPromise promise) {
        return promise.verification();
    }

    // ------------------------------------------------------------------ verified reads

    /** The current value of {@code key} (null: none), proven at the latest persisted block. */
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
        return violations.watch(proofs.value(key(key), null).thenApply(GlassLedgerClient::bytes));
    }

    public CompletableFuture<byte[]> getAsync(byte[] key, long atBlock) {
        if (atBlock < 0) {
            throw new IllegalArgumentException("negative block");
        }
        return violations.watch(proofs.value(key(key), atBlock).thenApply(GlassLedgerClient::bytes));
    }

    /**
     * The value of {@code key} in the state of {@code atBlock} (null: the latest persisted block) with its proof and
     * the digest it was verified against, which is now part of the trusted chain. No signed head: see {@link #prove}.
     */
    public ValueProof getProof(byte[] key, Long atBlock) {
        return Violations.join(getProofAsync(key, atBlock));
    }

    public CompletableFuture<ValueProof> getProofAsync(byte[] key, Long atBlock) {
        return violations.watch(proofs.value(key(key), atBlock));
    }

    /**
     * A value with everything that proves it: the claim, the keys proof, its digest (now part of the trusted chain)
     * and the signed head; what {@code ledger-cli prove} saves.
     */
    public ValueProof prove(byte[] key, Long atBlock) {
        return Violations.join(proveAsync(key, atBlock));
    }

    public CompletableFuture<ValueProof> proveAsync(byte[] key, Long atBlock) {
        return violations.watch(proofs.value(key(key), atBlock).thenCompose(p -> headAsync()
                .thenCompose(h -> proofs.withHead(p, h))));
    }

    /** The last {@code n} versions of {@code key}, newest first (a deletion has a null value), proven. */
    public List<Version> history(byte[] key, int n) {
        return Violations.join(historyAsync(key, n));
    }

    public CompletableFuture<List<Version>> historyAsync(byte[] key, int n) {
        if (n < 1) {
            throw new IllegalArgumentException("n must be positive");
        }
        return violations.watch(proofs.history(key(key), n));
    }

    // ------------------------------------------------------------------ trust

    /** The trusted digest (no request). */
    public Digest digest() {
        return trust.current().digest();
    }

    /** Everything trusted about the shard: server key, digest, signed head (no request). */
    public TrustedState trustedState() {
        return trust.current();
    }

    /** Fetches the signed head, verifies it, and moves trust to it with an append-only proof. */
    public SignedHead head() {
        return Violations.join(headAsync());
    }

    public CompletableFuture<SignedHead> headAsync() {
        return violations.watch(proofs.head());
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
        TrustedState s = trust.current();
        AuditRequest body = AuditRequest.of(s);
        List<CompletableFuture<Object>> answers = new ArrayList<>();
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
        return violations.watch(CompletableFuture.allOf(answers.toArray(new CompletableFuture<?>[0])));
    }

    /** Promises queued for checking; for tests and metrics. */
    /** Proof bytes and claims the background verifier has received. */
    public VerifierStats verifierStats() {
        return verifier.stats();
    }

    public int pendingVerifications() {
        return verifier.queued();
    }

    public int shard() {
        return info.shard();
    }

    public Bytes serverKey() {
        return trust.current().serverKey();
    }

    public Bytes publicKey() {
        return signingKey.publicKey();
    }

    /** Stops the background verifier; promises not yet verified fail with {@code closed}. */
    @Override
    public void close() {
        verifier.close();
        api.close();
        auditors.forEach(Api::close);
    }

    // ------------------------------------------------------------------ for Txn

    Api api() {
        return api;
    }

    long maxValueBytes() {
        return info.maxValueBytes() > 0 ? info.maxValueBytes() : Entry.MAX_VALUE_BYTES;
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
