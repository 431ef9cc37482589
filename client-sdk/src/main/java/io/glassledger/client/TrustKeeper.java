package io.glassledger.client;

import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.proof.AppendOnlyProof;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.ProofVerifier;
import io.glassledger.verify.proof.SignedHead;
import io.glassledger.verify.proof.VerificationException;
import java.util.concurrent.CompletableFuture;

/**
 * Connects what the server shows to what the client trusts, fetching append-only proofs as needed: a newer digest
 * becomes trusted once a proof from the trusted one verifies (when trust moved on while a request was in flight,
 * the link is fetched again from the new trust); an older one is checked with a proof from it to the trusted one, so
 * a digest off the trusted chain is caught even though trust does not move back.
 */
final class TrustKeeper {
    private final TrustStore store;
    private final Api api;
    private final Bytes serverKey;
    private final int shard;

    TrustKeeper(TrustStore store, Api api, Bytes serverKey, int shard) {
        this.store = store;
        this.api = api;
        this.serverKey = serverKey;
        this.shard = shard;
        // Another process sharing the state file may have moved it: its digest and ours are linked through the server.
        store.linkWith((from, to) -> Violations.join(fetchAppendOnly(from, to)));
    }

    TrustedState current() {
        return store.current();
    }

    TrustStore store() {
        return store;
    }

    /**
     * Decodes a signed head from the server and checks it is this shard's, signed by the pinned key.
     *
     * @throws IntegrityViolation     if it is not
     * @throws GlassLedgerException   {@code bad_response} if it does not decode
     */
    SignedHead checkHead(Dto.SignedHeadDto dto) {
        return checkHead(dto, serverKey, shard, store.current());
    }

    /** {@link #checkHead(Dto.SignedHeadDto)} for a given pinned key and shard; {@code trust} is for the evidence. */
    static SignedHead checkHead(Dto.SignedHeadDto dto, Bytes serverKey, int shard, TrustedState trust) {
        SignedHead h;
        try {
            h = Wire.signedHead("head", dto);
        } catch (Wire.BadWireException e) {
            throw GlassLedgerException.badResponse("signed head: " + e.getMessage(), e);
        }
        if (h.shard() != shard || !h.serverKey().equals(serverKey)) {
            throw IntegrityViolation.builder(IntegrityViolation.Kind.SERVER_IDENTITY, "signed head of shard "
                            + h.shard() + " by key " + h.serverKey().hex() + ", pinned: shard " + shard + ", key "
                            + serverKey.hex())
                    .trust(trust).shard(shard).serverHead(h).build();
        }
        if (VERIFIED_HEADS.containsKey(h)) {
            return h;
        }
        try {
            h.verify(serverKey);
        } catch (VerificationException e) {
            throw IntegrityViolation.builder(IntegrityViolation.Kind.BAD_SIGNATURE, e.getMessage())
                    .trust(trust).shard(shard).serverHead(h).cause(e).build();
        }
        if (VERIFIED_HEADS.size() >= MAX_VERIFIED_HEADS) {
            VERIFIED_HEADS.clear();
        }
        VERIFIED_HEADS.put(h, Boolean.TRUE);
        return h;
    }

    /**
     * Signed heads whose signature verified, by their whole content: shard, digest, timestamp, server key and
     * signature bytes. Whether a signature verifies depends on nothing else, so a head answered again (every answer
     * of a block carries its head) is not verified again: an Ed25519 verification costs about 55 µs of CPU. A head
     * that differs in any byte is a different key here and is verified. Cleared when full.
     */
    private static final java.util.concurrent.ConcurrentHashMap<SignedHead, Boolean> VERIFIED_HEADS =
            new java.util.concurrent.ConcurrentHashMap<>();
    private static final int MAX_VERIFIED_HEADS = 1024;

    /**
     * Checks a verified signed head against trust without fetching anything: at the trusted block it must name the
     * trusted digest (and is then kept as the trust's signed head); other blocks are left for {@link #adopt}.
     */
    void observe(SignedHead h) {
        store.offer(h.digest(), null, h);
    }

    /**
     * Makes {@code d} part of the trusted chain: trusted if newer, checked against trust if the same or older.
     *
     * @param proof an append-only proof to {@code d} the caller already has (from the trust it started from), or null
     * @param head  the verified signed head naming {@code d}, or null
     * @return the trusted state afterwards; fails with {@link IntegrityViolation} if {@code d} is off the chain
     */
    CompletableFuture<TrustedState> adopt(Digest d, AppendOnlyProof proof, SignedHead head) {
        TrustStore.Offer o;
        try {
            o = store.offer(d, proof, head);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        TrustedState cur = store.current();
        return switch (o) {
            case ADVANCED, SAME -> CompletableFuture.completedFuture(cur);
            case NEEDS_LINK -> fetchAppendOnly(cur.digest().blockNo(), d.blockNo())
                    .thenCompose(p -> adopt(d, p, head));
            case OLDER -> fetchAppendOnly(d.blockNo(), cur.digest().blockNo()).thenApply(p -> {
                try {
                    ProofVerifier.verifyAppendOnly(d, cur.digest(), p);
                } catch (VerificationException e) {
                    throw IntegrityViolation.builder(IntegrityViolation.Kind.FORK, "digest " + d
                                    + " is not a prefix of the trusted digest: " + e.getMessage())
                            .trust(cur).serverDigest(d).serverHead(head).appendOnlyProof(p.encode()).cause(e).build();
                }
                return cur;
            });
        };
    }

    /**
     * {@code GET /v1/proofs/append-only}. A server that denies a block it has shown or that the client trusts
     * ({@code unknown_block}, {@code stale_digest}) has lost or rewritten history: a violation.
     */
    CompletableFuture<AppendOnlyProof> fetchAppendOnly(long from, long to) {
        return api.get("/v1/proofs/append-only?from=" + from + "&to=" + to, Dto.AppendOnlyProofDto.class)
                .handle((dto, err) -> {
                    if (err != null) {
                        Throwable t = Violations.unwrap(err);
                        if (t instanceof GlassLedgerException g
                                && ("unknown_block".equals(g.code()) || "stale_digest".equals(g.code()))) {
                            throw IntegrityViolation.builder(IntegrityViolation.Kind.STALE_DIGEST, "the server denies "
                                            + "a block it has shown (append-only proof " + from + " → " + to + "): "
                                            + g.detail())
                                    .trust(store.current()).cause(g).build();
                        }
                        throw t instanceof RuntimeException r ? r : new IllegalStateException(t);
                    }
                    return decodeAppendOnly(dto == null ? null : dto.proof(), from, to);
                });
    }

    /** Decodes an append-only proof; bytes that do not decode are a failed proof, not a transport problem. */
    AppendOnlyProof decodeAppendOnly(String b64, long from, long to) {
        byte[] bytes;
        try {
            bytes = Wire.base64("appendOnly.proof", b64);
        } catch (Wire.BadWireException e) {
            throw GlassLedgerException.badResponse(e.getMessage(), e);
        }
        try {
            AppendOnlyProof p = AppendOnlyProof.decode(bytes);
            if (p.b1() != from || p.b2() != to) {
                throw new MalformedException("proof is for blocks " + p.b1() + " → " + p.b2());
            }
            return p;
        } catch (MalformedException | IllegalArgumentException e) {
            throw IntegrityViolation.builder(IntegrityViolation.Kind.FORK, "append-only proof " + from + " → " + to
                            + " does not decode: " + e.getMessage())
                    .trust(store.current()).appendOnlyProof(bytes).cause(e).build();
        }
    }
}
