package io.glassledger.client;

import io.glassledger.verify.format.Format;
import io.glassledger.api.Dto;
import io.glassledger.api.PinnedTrustManager;
import io.glassledger.api.Wire;
import io.glassledger.verify.crypto.Ed25519;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.proof.SignedHead;
import io.glassledger.verify.txn.Promise;
import io.glassledger.verify.txn.PromiseVerifier;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.Transaction;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The client's connection to one shard: its HTTPS API, what it said at connect, the trust kept for it (its own state
 * file), and its background verifier. A cluster client holds one per shard.
 */
final class ShardLink {
    final int shard;
    final URI url;
    final Api api;
    final Dto.ServerInfo info;
    final TrustKeeper trust;
    final DeferredVerifier verifier;
    final Proofs proofs;
    final long clockOffsetMillis;

    private ShardLink(int shard, URI url, Api api, Dto.ServerInfo info, TrustKeeper trust, DeferredVerifier verifier,
                      long clockOffsetMillis) {
        this.shard = shard;
        this.url = url;
        this.api = api;
        this.info = info;
        this.trust = trust;
        this.verifier = verifier;
        this.proofs = new Proofs(api, trust);
        this.clockOffsetMillis = clockOffsetMillis;
    }

    /**
     * Reads {@code /v1/info}, checks the server serves {@code expectedShard}, loads the shard's state file, pins the
     * server key on first use (a different key later is a violation), registers the client's public key, and
     * trusts the signed head if nothing is trusted yet.
     */
    static ShardLink connect(ClientConfig config, int expectedShard, SigningKey key, Violations violations) {
        URI url = config.shards().get(expectedShard);
        Api api = new Api(config.replicas(expectedShard), config.apiKey(), config.pinnedCertSha256() == null ? null
                : PinnedTrustManager.sslContext(config.pinnedCertSha256()), config.requestTimeout(),
                config.maxResponseBytes());
        try {
            long before = System.currentTimeMillis();
            Dto.ServerInfo info = Violations.join(api.get("/v1/info", Dto.ServerInfo.class));
            long offset = info.serverTimeMillis() - (before + System.currentTimeMillis()) / 2;
            if (info.format() != null && !Format.ID.equals(info.format())) {
                throw new GlassLedgerException("unsupported_format", 0, false, "the server's ledger format is "
                        + info.format() + ", this client verifies " + Format.ID);
            }
            int shards = info.shards() == null ? 1 : info.shards();
            if (info.shard() != expectedShard || shards != config.shards().size()) {
                throw new GlassLedgerException("wrong_shard", 0, false, url + " serves shard " + info.shard() + " of "
                        + shards + ", but the configuration lists it as shard " + expectedShard + " of "
                        + config.shards().size());
            }
            Bytes serverKey;
            try {
                serverKey = Wire.hex("serverKey", info.serverKey(), Ed25519.PUBLIC_KEY_BYTES);
            } catch (Wire.BadWireException e) {
                throw GlassLedgerException.badResponse("/v1/info: " + e.getMessage(), e);
            }
            TrustStore store = TrustStore.open(config.stateFile(expectedShard));
            TrustedState known = store.current();
            if (known != null && (!known.serverKey().equals(serverKey) || known.shard() != info.shard())) {
                throw IntegrityViolation.builder(IntegrityViolation.Kind.SERVER_IDENTITY, "the server at "
                                + url + " presents key " + serverKey.hex() + " for shard " + info.shard()
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
            Duration stated = info.persistIntervalMillis() == null ? null
                    : Duration.ofMillis(info.persistIntervalMillis());
            DeferredVerifier verifier = new DeferredVerifier(api, keeper, violations,
                    GlassLedgerClient.maxKeys(info),
                    info.maxProofItems() == null ? DeferredVerifier.DEFAULT_MAX_ITEMS : info.maxProofItems(),
                    info.maxResponseBytes() == null ? DeferredVerifier.DEFAULT_MAX_RESPONSE_BYTES
                            : info.maxResponseBytes(), config.proofWait(), config.requestTimeout(),
                    config.promiseDeadline(stated), config.maxUnverifiedPromises(), System::nanoTime,
                    config.overdueHandler());
            return new ShardLink(expectedShard, url, api, info, keeper, verifier, offset);
        } catch (RuntimeException e) {
            api.close();
            throw e;
        }
    }

    /** The cluster's map version, as this server states it (1 for a server that predates shard maps). */
    long mapVersion() {
        return info.mapVersion() == null ? 1 : info.mapVersion();
    }

    int shards() {
        return info.shards() == null ? 1 : info.shards();
    }

    /** Checks a promise as given for {@code signed}, offers its served digest, and queues it for verification. */
    CommitPromise accept(String path, SignedTransaction signed, List<PromiseVerifier.Read> reads, Dto.PromiseDto dto,
                         TrustedState before, ClientConfig config) {
        Promise p;
        try {
            p = new Promise(Wire.hex("txId", dto.txId(), Transaction.TX_ID_BYTES), dto.shard(), dto.block(),
                    Wire.digest("served", dto.served()));
        } catch (Wire.BadWireException e) {
            throw GlassLedgerException.badResponse(path + ": " + e.getMessage(), e);
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

    CompletableFuture<Dto.PromiseDto> commit(SignedTransaction signed, boolean waitPersisted) {
        Dto.CommitRequest req = new Dto.CommitRequest(Wire.b64(signed.record()), waitPersisted ? Boolean.TRUE : null);
        if (!replicated()) {
            return api.post("/v1/tx/commit", req, Dto.PromiseDto.class);
        }
        long deadline = System.nanoTime() + api.timeout().toNanos();
        return api.post("/v1/tx/commit", req, Dto.PromiseDto.class).exceptionallyCompose(e -> settle(signed, req, e,
                deadline, 0));
    }

    private boolean replicated() {
        return api.replicas() > 1;
    }

    /** Answers that leave a commit's outcome open: the leader failed mid-commit, or no answer arrived at all. */
    private static boolean outcomeOpen(Throwable e) {
        Throwable c = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
        return c instanceof GlassLedgerException g && (GlassLedgerException.OUTCOME_UNKNOWN.equals(g.code())
                || GlassLedgerException.TRANSPORT.equals(g.code()) || "duplicate".equals(g.code()));
    }

    /**
     * A commit to a replicated shard whose outcome is open: asks the leader (found again by {@link Api}) for the
     * transaction's status. Committed: its promise, as if the commit had answered. Unknown to the leader: the
     * leader has applied everything its group committed before its term, so the transaction never will commit, and
     * it is sent again (the same signed bytes: if an earlier copy did arrive after all, the shard refuses this one
     * as a duplicate and the status answers). Bounded by the request timeout and 8 rounds.
     */
    private CompletableFuture<Dto.PromiseDto> settle(SignedTransaction signed, Dto.CommitRequest req, Throwable e,
                                                     long deadline, int round) {
        if (!outcomeOpen(e) || round >= 8 || System.nanoTime() > deadline) {
            return CompletableFuture.failedFuture(e);
        }
        String path = "/v1/tx/" + signed.txId().hex();
        return api.get(path, Dto.TxStateDto.class).handle((st, err) -> {
            if (err != null) {
                return settle(signed, req, e, deadline, round + 1);  // no leader answers yet: ask again
            }
            if ("COMMITTED".equals(st.state()) && st.promise() != null) {
                return CompletableFuture.completedFuture(st.promise());
            }
            if ("UNKNOWN".equals(st.state())) {
                return api.post("/v1/tx/commit", req, Dto.PromiseDto.class).exceptionallyCompose(again ->
                        settle(signed, req, again, deadline, round + 1));
            }
            return CompletableFuture.<Dto.PromiseDto>failedFuture(new GlassLedgerException(
                    GlassLedgerException.OUTCOME_UNKNOWN, 0, false, "tx " + signed.txId().hex() + " is "
                    + st.state() + " at shard " + shard + "'s leader, which gives no promise for it"));
        }).thenCompose(f -> f);
    }

    CompletableFuture<Dto.TxStateDto> prepare(SignedTransaction signed) {
        return api.post("/v1/tx/prepare", new Dto.PrepareRequest(Wire.b64(signed.record())), Dto.TxStateDto.class);
    }

    CompletableFuture<Dto.PromiseDto> decideCommit(Bytes txId) {
        return api.post("/v1/tx/" + txId.hex() + "/commit", null, Dto.PromiseDto.class);
    }

    CompletableFuture<Dto.TxStateDto> decideAbort(Bytes txId) {
        return api.post("/v1/tx/" + txId.hex() + "/abort", null, Dto.TxStateDto.class);
    }

    CompletableFuture<Dto.TxStateDto> status(Bytes txId) {
        return api.get("/v1/tx/" + txId.hex(), Dto.TxStateDto.class);
    }

    void close() {
        verifier.close();
        api.close();
    }
}
