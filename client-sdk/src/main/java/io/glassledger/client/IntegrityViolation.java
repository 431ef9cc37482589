package io.glassledger.client;

import io.glassledger.api.Wire;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.KeyClaim;
import io.glassledger.verify.proof.SignedHead;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The server (or whoever answered in its name) broke the ledger's guarantees: a proof that does not verify, a fork,
 * a changed server key, a signed head whose signature fails, or a server that lost blocks it had proven. Carries
 * the evidence (what the client trusted, what the server answered, the proof bytes and the failing claims), so it
 * can be shown to an auditor or a third party. Raised only on such evidence: a shard that is unavailable, lagging or
 * failing over (no answer, {@code replica_behind}, {@code PENDING} past a promise's deadline) makes a promise
 * {@link PromiseOverdue overdue}, which accuses no one (docs/API.md "Violations and overdue promises").
 *
 * <p>Unchecked because it leaves through futures and callbacks; it is never swallowed: every violation also reaches
 * the configured {@link ClientConfig#violationHandler()} exactly once.
 */
public final class IntegrityViolation extends RuntimeException {
    /** What went wrong. */
    public enum Kind {
        /** A keys, history or promise proof does not verify against the digest it came with. */
        BAD_PROOF,
        /** Two digests of one block differ, or a digest is not an append-only extension of a trusted one. */
        FORK,
        /** The server's Ed25519 key or shard is not the one pinned on first use. */
        SERVER_IDENTITY,
        /** A signed head whose signature does not verify under the pinned server key. */
        BAD_SIGNATURE,
        /** The server denies having a block the client already trusts (409 stale_digest, or an unknown block). */
        STALE_DIGEST,
        /**
         * A promise that breaks the commit rules (wrong transaction, no block for a transaction that writes, served
         * below the trusted digest), two promises of one block that put one key, or promises a proof shows cannot
         * all hold. A promise merely not proven by its deadline is not a violation but {@link PromiseOverdue}.
         */
        BROKEN_PROMISE,
        /**
         * A read of the latest value answered with the state of a block older than the digest it was proven against:
         * a valid proof of an old value, served as the current one.
         */
        STALE_READ,
        /** An auditor holds a digest inconsistent with the client's. */
        AUDIT
    }

    /**
     * The evidence. Nullable fields are absent when the failure did not get that far.
     *
     * @param trusted         the digest the client trusted when it checked
     * @param trustedHead     the newest signed head the client holds for that trust (at or before {@code trusted})
     * @param serverDigest    the digest the server's answer was checked against
     * @param serverHead      the signed head the server sent with the answer
     * @param proof           the keys or history proof, base64
     * @param appendOnlyProof the append-only proof to {@code serverDigest}, base64
     * @param claims          the claims that failed (key, value or null for absent)
     * @param txIds           the transactions whose promises are affected
     * @param headsSeen       other signed heads of the server that bear on it, oldest first (a broken promise: the
     *                        heads the client had seen when it gave up)
     */
    public record Evidence(Kind kind, String message, int shard, Digest trusted, SignedHead trustedHead,
                           Digest serverDigest, SignedHead serverHead, String proof, String appendOnlyProof,
                           List<KeyClaim> claims, List<Bytes> txIds, List<SignedHead> headsSeen) {
        public Evidence {
            claims = claims == null ? List.of() : List.copyOf(claims);
            txIds = txIds == null ? List.of() : List.copyOf(txIds);
            headsSeen = headsSeen == null ? List.of() : List.copyOf(headsSeen);
        }

        /** The evidence as JSON-ready values, in the wire forms of docs/API.md (base64 bytes, hex hashes). */
        public Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("kind", kind.name());
            m.put("message", message);
            m.put("shard", shard);
            m.put("trusted", trusted == null ? null : Wire.digest(trusted));
            m.put("trustedHead", trustedHead == null ? null : Wire.signedHead(trustedHead));
            m.put("serverDigest", serverDigest == null ? null : Wire.digest(serverDigest));
            m.put("serverHead", serverHead == null ? null : Wire.signedHead(serverHead));
            m.put("proof", proof);
            m.put("appendOnlyProof", appendOnlyProof);
            List<Map<String, String>> cs = new ArrayList<>();
            for (KeyClaim c : claims) {
                Map<String, String> cm = new LinkedHashMap<>();
                cm.put("key", Wire.b64(c.key()));
                cm.put("value", Wire.b64(c.value()));
                cs.add(cm);
            }
            m.put("claims", cs);
            m.put("txIds", txIds.stream().map(Bytes::hex).toList());
            m.put("headsSeen", headsSeen.stream().map(Wire::signedHead).toList());
            return m;
        }
    }

    private final Evidence evidence;
    private final transient AtomicBoolean reported = new AtomicBoolean();

    public IntegrityViolation(Evidence evidence, Throwable cause) {
        super(evidence.kind() + ": " + evidence.message(), cause);
        this.evidence = evidence;
    }

    public Evidence evidence() {
        return evidence;
    }

    public Kind kind() {
        return evidence.kind();
    }

    /** True the first time only: the handler hears of each violation once, whichever path reports it first. */
    boolean markReported() {
        return reported.compareAndSet(false, true);
    }

    static Builder builder(Kind kind, String message) {
        return new Builder(kind, message);
    }

    /** Gathers evidence as a check proceeds. */
    static final class Builder {
        private final Kind kind;
        private final String message;
        private int shard;
        private Digest trusted;
        private SignedHead trustedHead;
        private Digest serverDigest;
        private SignedHead serverHead;
        private String proof;
        private String appendOnlyProof;
        private List<KeyClaim> claims = List.of();
        private List<Bytes> txIds = List.of();
        private List<SignedHead> headsSeen = List.of();
        private Throwable cause;

        private Builder(Kind kind, String message) {
            this.kind = kind;
            this.message = message;
        }

        Builder trust(TrustedState s) {
            if (s != null) {
                shard = s.shard();
                trusted = s.digest();
                trustedHead = s.signedHead();
            }
            return this;
        }

        Builder shard(int v) {
            shard = v;
            return this;
        }

        Builder serverDigest(Digest v) {
            serverDigest = v;
            return this;
        }

        Builder serverHead(SignedHead v) {
            serverHead = v;
            return this;
        }

        Builder proof(byte[] v) {
            proof = Wire.b64(v);
            return this;
        }

        Builder appendOnlyProof(byte[] v) {
            appendOnlyProof = Wire.b64(v);
            return this;
        }

        Builder claims(List<KeyClaim> v) {
            claims = v;
            return this;
        }

        Builder txIds(List<Bytes> v) {
            txIds = v;
            return this;
        }

        Builder headsSeen(List<SignedHead> v) {
            headsSeen = v;
            return this;
        }

        Builder cause(Throwable v) {
            cause = v;
            return this;
        }

        IntegrityViolation build() {
            return new IntegrityViolation(new Evidence(kind, message, shard, trusted, trustedHead, serverDigest,
                    serverHead, proof, appendOnlyProof, claims, txIds, headsSeen), cause);
        }
    }
}
