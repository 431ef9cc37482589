package io.glassledger.client;

import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.KeyClaim;
import io.glassledger.verify.proof.KeysProof;
import io.glassledger.verify.proof.ProofVerifier;
import io.glassledger.verify.proof.SignedHead;
import io.glassledger.verify.proof.VerificationException;
import io.glassledger.verify.proof.Version;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Verified reads outside transactions: a keys proof, a history proof or a signed head is checked against the digest
 * it came with, and that digest is then linked to the trusted chain ({@link TrustKeeper#adopt}); only then is the
 * answer returned. The server's latest digest never goes back, so one older than what the client already trusted
 * when it asked is a violation too ({@code STALE_DIGEST}).
 */
final class Proofs {
    private final Api api;
    private final TrustKeeper trust;

    Proofs(Api api, TrustKeeper trust) {
        this.api = api;
        this.trust = trust;
    }

    /**
     * {@code POST /v1/proofs/keys} for one key; {@code atBlock} null: the latest persisted block, which must be the
     * block of the digest the proof leads to ({@link IntegrityViolation.Kind#STALE_READ} otherwise), and not older
     * than what the client trusted when it asked ({@code STALE_DIGEST}). So a latest read is at most as old as the
     * newest head the server signs for it, and never older than any head the client had seen.
     */
    CompletableFuture<ValueProof> value(Bytes key, Long atBlock) {
        TrustedState t0 = trust.current();
        return api.post("/v1/proofs/keys", new Dto.ProveKeysRequest(List.of(Wire.b64(key)), atBlock),
                Dto.KeysProofDto.class).thenCompose(dto -> {
                    if (dto != null && "PENDING".equals(dto.status())) {
                        throw new GlassLedgerException(GlassLedgerException.PENDING, 0, true,
                                "block " + atBlock + " is not persisted yet");
                    }
                    Digest d;
                    List<KeyClaim> claims;
                    byte[] proof;
                    try {
                        if (dto == null || !"READY".equals(dto.status())) {
                            throw new Wire.BadWireException("status", "neither READY nor PENDING");
                        }
                        d = Wire.digest("digest", dto.digest());
                        claims = Wire.claims("claims", dto.claims());
                        proof = Wire.base64("proof", dto.proof());
                    } catch (Wire.BadWireException e) {
                        throw GlassLedgerException.badResponse("/v1/proofs/keys: " + e.getMessage(), e);
                    }
                    // "Latest" is the state of the digest's own block: a valid proof of an older block against a
                    // newer digest would pass off an old value as the current one.
                    long block = atBlock == null ? d.blockNo() : atBlock;
                    notBehind(t0, d.blockNo(), d, null);
                    if (atBlock == null && dto.block() != block) {
                        throw IntegrityViolation.builder(IntegrityViolation.Kind.STALE_READ, "a read of the latest "
                                        + "value of " + key + " answered the state of block " + dto.block()
                                        + ", proven against the newer digest " + d)
                                .trust(t0).serverDigest(d).proof(proof).claims(claims).build();
                    }
                    KeyClaim mine = null;
                    try {
                        KeysProof kp = KeysProof.decode(proof);
                        if (kp.blockNo() != block || dto.block() != block) {
                            throw new VerificationException("asked for block " + block + ", got a proof of block "
                                    + kp.blockNo());
                        }
                        ProofVerifier.verifyBatch(d, block, claims, kp);
                        for (KeyClaim c : claims) {
                            if (c.key().equals(key)) {
                                mine = c;
                            }
                        }
                        if (mine == null) {
                            throw new VerificationException("the proof makes no claim about key " + key);
                        }
                    } catch (MalformedException | IllegalArgumentException | VerificationException e) {
                        throw IntegrityViolation.builder(IntegrityViolation.Kind.BAD_PROOF, "keys proof of "
                                        + key + " at block " + block + ": " + e.getMessage())
                                .trust(t0).serverDigest(d).proof(proof).claims(claims).cause(e).build();
                    }
                    SignedHead signed = signedHeadOf(dto.head(), d, "/v1/proofs/keys");
                    ValueProof vp = new ValueProof(t0.shard(), key, mine.value(), block, claims, d, Bytes.wrap(proof),
                            null, null);
                    return trust.adopt(d, null, signed).thenApply(s -> vp);
                });
    }

    /** {@code p} with the signed head {@code h} (at or after its digest) and the append-only proof between them. */
    CompletableFuture<ValueProof> withHead(ValueProof p, SignedHead h) {
        if (h.digest().equals(p.digest())) {
            return CompletableFuture.completedFuture(p.withHead(h, null));
        }
        return trust.fetchAppendOnly(p.digest().blockNo(), h.digest().blockNo()).thenApply(ao -> {
            try {
                ProofVerifier.verifyAppendOnly(p.digest(), h.digest(), ao);
            } catch (VerificationException e) {
                throw IntegrityViolation.builder(IntegrityViolation.Kind.FORK, "the signed head does not extend the "
                                + "proof's digest: " + e.getMessage())
                        .trust(trust.current()).serverDigest(p.digest()).serverHead(h).appendOnlyProof(ao.encode())
                        .cause(e).build();
            }
            return p.withHead(h, Bytes.wrap(ao.encode()));
        });
    }

    /**
     * {@code p} with a trusted part: when {@code before}, the digest trusted before {@code p} was checked, is older
     * than {@code p}'s digest, the append-only proof from it to that digest, so that whoever holds {@code before}
     * can check the file extends it. Unchanged otherwise.
     */
    CompletableFuture<ValueProof> withTrusted(ValueProof p, Digest before) {
        if (before == null || before.blockNo() >= p.digest().blockNo()) {
            return CompletableFuture.completedFuture(p);
        }
        return trust.fetchAppendOnly(before.blockNo(), p.digest().blockNo()).thenApply(ao -> {
            try {
                ProofVerifier.verifyAppendOnly(before, p.digest(), ao);
            } catch (VerificationException e) {
                throw IntegrityViolation.builder(IntegrityViolation.Kind.FORK, "the proof's digest does not extend "
                                + "the digest trusted before: " + e.getMessage())
                        .trust(trust.current()).serverDigest(p.digest()).appendOnlyProof(ao.encode()).cause(e)
                        .build();
            }
            return p.withTrusted(new ValueProof.Trusted(before, Bytes.wrap(ao.encode())));
        });
    }

    /**
     * The signed head that came with an answer: checked under the pinned key, and it must sign the very digest the
     * proof was checked against, so that trust reached through the answer has the server's signature behind it.
     * Null when the server sent none (older servers).
     */
    private SignedHead signedHeadOf(Dto.SignedHeadDto dto, Digest d, String path) {
        if (dto == null) {
            return null;
        }
        SignedHead h = trust.checkHead(dto);
        if (!h.digest().equals(d)) {
            throw IntegrityViolation.builder(IntegrityViolation.Kind.BAD_SIGNATURE, path + " answered a proof against "
                            + d + " with a signed head of " + h.digest())
                    .trust(trust.current()).serverDigest(d).serverHead(h).build();
        }
        return h;
    }

    /** {@code POST /v1/history}. */
    CompletableFuture<List<Version>> history(Bytes key, int n) {
        TrustedState t0 = trust.current();
        return api.post("/v1/history", new Dto.HistoryRequest(Wire.b64(key), n), Dto.HistoryResponse.class)
                .thenCompose(dto -> {
                    Digest d;
                    List<Version> versions;
                    byte[] proof;
                    try {
                        if (dto == null || !key.equals(Wire.requiredBytes("key", dto.key()))
                                || dto.versions() == null) {
                            throw new Wire.BadWireException("key", "another key, or no versions");
                        }
                        d = Wire.digest("digest", dto.digest());
                        versions = Wire.versions("versions", dto.versions());
                        proof = Wire.base64("proof", dto.proof());
                    } catch (Wire.BadWireException e) {
                        throw GlassLedgerException.badResponse("/v1/history: " + e.getMessage(), e);
                    }
                    notBehind(t0, d.blockNo(), d, null);
                    try {
                        ProofVerifier.verifyHistory(d, key, n, versions, proof);
                    } catch (VerificationException e) {
                        throw IntegrityViolation.builder(IntegrityViolation.Kind.BAD_PROOF, "history of " + key
                                        + ": " + e.getMessage())
                                .trust(t0).serverDigest(d).proof(proof)
                                .claims(versions.stream().map(v -> new KeyClaim(key, v.value())).toList()).cause(e)
                                .build();
                    }
                    SignedHead signed = signedHeadOf(dto.head(), d, "/v1/history");
                    return trust.adopt(d, null, signed).thenApply(s -> List.copyOf(versions));
                });
    }

    /** {@code GET /v1/head}: verified against the pinned key, and trusted once linked. */
    CompletableFuture<SignedHead> head() {
        TrustedState t0 = trust.current();
        return api.get("/v1/head", Dto.SignedHeadDto.class).thenCompose(dto -> {
            SignedHead h = trust.checkHead(dto);
            notBehind(t0, h.digest().blockNo(), h.digest(), h);
            return trust.adopt(h.digest(), null, h).thenApply(s -> h);
        });
    }

    /**
     * {@code latest}: the block the server answered as its latest persisted one. For a replicated shard an older
     * one is a replica's lag (each persists at its own pace, and the client may have learnt a newer head from
     * another), not evidence of anything: a retryable {@code replica_behind}.
     */
    private void notBehind(TrustedState t0, long latest, Digest d, SignedHead h) {
        if (latest < t0.digest().blockNo() && api.replicas() > 1) {
            throw new GlassLedgerException("replica_behind", 0, true, "the replica answered block " + latest
                    + " as its latest, older than the trusted block " + t0.digest().blockNo() + ": ask again");
        }
        if (latest < t0.digest().blockNo()) {
            throw IntegrityViolation.builder(IntegrityViolation.Kind.STALE_DIGEST, "the server's latest block "
                            + latest + " is older than block " + t0.digest().blockNo() + ", which it had already shown")
                    .trust(t0).serverDigest(d).serverHead(h).build();
        }
    }
}
