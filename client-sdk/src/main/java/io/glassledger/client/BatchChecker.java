package io.glassledger.client;

import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.proof.AppendOnlyProof;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.KeyClaim;
import io.glassledger.verify.proof.KeysProof;
import io.glassledger.verify.proof.ProofVerifier;
import io.glassledger.verify.proof.SignedHead;
import io.glassledger.verify.proof.VerificationException;
import io.glassledger.verify.txn.BlockProof;
import io.glassledger.verify.txn.PromiseVerifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Checks the answers to one round's proof batches against the items asked for, with no I/O: each READY proof against
 * its own digest
 * (writes with {@link PromiseVerifier#verifyAll}, reads with {@link PromiseVerifier#verifyReads}), and the append-only
 * proof from the trust the request was made from to that digest. What is left is to make those digests trusted,
 * which may need the network ({@link TrustKeeper#adopt}). Promises checked together that fail are re-checked one
 * by one, so a violation is pinned on the promises it concerns.
 */
final class BatchChecker {
    /** What one round found for one promise. A promise with several checks is verified only if all succeed. */
    static final class Result {
        IntegrityViolation violation;
        GlassLedgerException error;
        boolean pending;
        /** The newest block the server answered PENDING for, or -1. */
        long pendingBlock = -1;
        Digest digest;
        int writes;
        int reads;

        void fail(IntegrityViolation v) {
            if (violation == null) {
                violation = v;
            }
        }
    }

    /** A digest some proofs were checked against, the proof linking it to the request's trust, and who used it. */
    record Link(Digest digest, AppendOnlyProof fromBase, Set<CommitPromise> users) {
    }

    private final TrustedState base;
    private final Map<CommitPromise, Result> results = new IdentityHashMap<>();
    private final TreeMap<Long, Link> links = new TreeMap<>();
    private final List<SignedHead> heads = new ArrayList<>();

    /** @param base the trust the requests were made from ({@code trustedBlock}) */
    BatchChecker(TrustedState base) {
        this.base = base;
    }

    /** Per-promise results so far (identity map). */
    Map<CommitPromise, Result> results() {
        return results;
    }

    /** The digests proofs were checked against, by block, with the append-only proof from the base to each. */
    TreeMap<Long, Link> links() {
        return links;
    }

    /** The verified signed heads of the answers. */
    List<SignedHead> heads() {
        return heads;
    }

    /**
     * Checks one answer to a batch of {@code items}; may be called for several batches of one round.
     *
     * @throws GlassLedgerException {@code bad_response} when the answer does not match the request at all
     * @throws IntegrityViolation   when the signed head is not the pinned server's
     */
    void check(List<ProofBatchPlanner.Item> items, Dto.ProofBatchResponse resp) {
        if (resp == null || resp.proofs() == null || resp.proofs().size() != items.size()) {
            throw GlassLedgerException.badResponse("a proof batch of " + items.size() + " items answered "
                    + (resp == null || resp.proofs() == null ? "no" : resp.proofs().size()) + " proofs", null);
        }
        SignedHead head = TrustKeeper.checkHead(resp.head(), base.serverKey(), base.shard(), base);
        heads.add(head);
        Map<Long, Dto.AppendOnlyProofDto> aoByTo = new HashMap<>();
        if (resp.appendOnly() != null) {
            for (Dto.AppendOnlyProofDto a : resp.appendOnly()) {
                if (a != null && a.to() != null) {
                    aoByTo.put(a.to().block(), a);
                }
            }
        }
        for (int i = 0; i < items.size(); i++) {
            ProofBatchPlanner.Item item = items.get(i);
            Set<CommitPromise> users = new LinkedHashSet<>();
            item.writes().forEach(w -> users.add(w.promise()));
            item.reads().forEach(r -> users.add(r.promise()));
            users.forEach(p -> results.computeIfAbsent(p, x -> new Result()));
            checkItem(head, item, resp.proofs().get(i), aoByTo, users);
        }
    }

    private void checkItem(SignedHead head, ProofBatchPlanner.Item item, Dto.KeysProofDto dto,
                           Map<Long, Dto.AppendOnlyProofDto> aoByTo, Set<CommitPromise> users) {
        if (dto != null && "PENDING".equals(dto.status())) {
            users.forEach(p -> {
                Result r = results.get(p);
                r.pending = true;
                r.pendingBlock = Math.max(r.pendingBlock, item.block());
            });
            return;
        }
        Digest d;
        List<KeyClaim> claims;
        byte[] proofBytes;
        try {
            if (dto == null || !"READY".equals(dto.status())) {
                throw new Wire.BadWireException("proofs.status", "neither READY nor PENDING");
            }
            d = Wire.digest("proofs.digest", dto.digest());
            claims = Wire.claims("proofs.claims", dto.claims());
            proofBytes = Wire.base64("proofs.proof", dto.proof());
        } catch (Wire.BadWireException e) {
            GlassLedgerException g = GlassLedgerException.badResponse("proof of block " + item.block() + ": "
                    + e.getMessage(), e);
            users.forEach(p -> results.get(p).error = g);
            return;
        }
        Evidence ev = new Evidence(base, head, d, proofBytes);
        KeysProof kp;
        try {
            kp = KeysProof.decode(proofBytes);
            if (kp.blockNo() != item.block() || dto.block() != item.block()) {
                throw new VerificationException("asked for block " + item.block() + ", got a proof of block "
                        + kp.blockNo());
            }
        } catch (MalformedException | IllegalArgumentException | VerificationException e) {
            users.forEach(p -> results.get(p).fail(ev.violation(IntegrityViolation.Kind.BAD_PROOF,
                    "proof of block " + item.block() + ": " + e.getMessage(), p, e)));
            return;
        }
        AppendOnlyProof ao;
        try {
            ao = link(d, aoByTo.get(d.blockNo()), ev);
        } catch (LinkFailure f) {
            users.forEach(p -> results.get(p).fail(ev.violation(f.kind, f.getMessage(), p, f.getCause())));
            return;
        }
        BlockProof bp = new BlockProof(kp.blockNo(), d, claims, kp);
        Set<CommitPromise> ok = new LinkedHashSet<>(users);
        if (!item.writes().isEmpty()) {
            List<PromiseVerifier.Claim> all = item.writes().stream()
                    .map(w -> new PromiseVerifier.Claim(w.promise().promise(), w.part())).toList();
            verifyGroup(all, c -> PromiseVerifier.verifyAll(d, c, bp, null),
                    item.writes().stream().map(ProofBatchPlanner.WriteCheck::promise).toList(), ev, ok);
        }
        if (!item.reads().isEmpty()) {
            verifyGroup(item.reads(), rs -> PromiseVerifier.verifyReads(d, reads(rs), bp, null),
                    item.reads().stream().map(ProofBatchPlanner.ReadCheck::promise).toList(), ev, ok);
        }
        for (ProofBatchPlanner.WriteCheck w : item.writes()) {
            count(results.get(w.promise()), d).writes += w.part().writes().size();
        }
        for (ProofBatchPlanner.ReadCheck r : item.reads()) {
            count(results.get(r.promise()), d).reads += r.reads().size();
        }
        Link prev = links.get(d.blockNo());
        if (prev != null && !prev.digest().equals(d)) {
            for (CommitPromise p : union(prev.users(), users)) {
                results.get(p).fail(ev.violation(IntegrityViolation.Kind.FORK, "two different digests for block "
                        + d.blockNo() + " in one answer: " + prev.digest() + " and " + d, p, null));
            }
            return;
        }
        Set<CommitPromise> linked = prev == null ? new LinkedHashSet<>() : prev.users();
        linked.addAll(ok);
        links.put(d.blockNo(), new Link(d, ao, linked));
    }

    private static Set<CommitPromise> union(Set<CommitPromise> a, Set<CommitPromise> b) {
        Set<CommitPromise> u = new LinkedHashSet<>(a);
        u.addAll(b);
        return u;
    }

    private static Result count(Result r, Digest d) {
        if (r.digest == null || r.digest.blockNo() < d.blockNo()) {
            r.digest = d;
        }
        return r;
    }

    private static List<PromiseVerifier.Read> reads(List<ProofBatchPlanner.ReadCheck> checks) {
        List<PromiseVerifier.Read> out = new ArrayList<>();
        checks.forEach(c -> out.addAll(c.reads()));
        return out;
    }

    private interface Check<T> {
        void verify(List<T> group) throws VerificationException;
    }

    /**
     * Verifies a group at once; if that fails, each member alone, and the members that fail alone are the violators.
     * If every member passes alone, the group is inconsistent as a whole (two promises of a block writing one key, two
     * versions of one key read at one block), and all of them are.
     */
    private <T> void verifyGroup(List<T> group, Check<T> check, List<CommitPromise> owners, Evidence ev,
                                 Set<CommitPromise> ok) {
        try {
            check.verify(group);
            return;
        } catch (VerificationException whole) {
            boolean anyAlone = false;
            for (int i = 0; i < group.size(); i++) {
                try {
                    check.verify(List.of(group.get(i)));
                } catch (VerificationException e) {
                    anyAlone = true;
                    CommitPromise p = owners.get(i);
                    results.get(p).fail(ev.violation(IntegrityViolation.Kind.BAD_PROOF, e.getMessage(), p, e));
                    ok.remove(p);
                }
            }
            if (!anyAlone) {
                for (CommitPromise p : owners) {
                    results.get(p).fail(ev.violation(IntegrityViolation.Kind.BROKEN_PROMISE, whole.getMessage(), p,
                            whole));
                    ok.remove(p);
                }
            }
        }
    }

    /**
     * The append-only proof from the request's trust to {@code d}, checked; null when {@code d} is that trust, or
     * when the answer carries none.
     */
    private AppendOnlyProof link(Digest d, Dto.AppendOnlyProofDto dto, Evidence ev)
            throws LinkFailure {
        Digest t = base.digest();
        if (d.blockNo() < t.blockNo()) {
            throw new LinkFailure(IntegrityViolation.Kind.STALE_DIGEST, "proof digest " + d
                    + " is older than the trusted block " + t.blockNo() + " the request named", null);
        }
        if (d.blockNo() == t.blockNo()) {
            if (!d.equals(t)) {
                throw new LinkFailure(IntegrityViolation.Kind.FORK, "two different digests for block "
                        + d.blockNo(), null);
            }
            return null;
        }
        if (dto == null || dto.proof() == null) {
            return null;  // not evidence of anything: adoption fetches the link (TrustKeeper.adopt)
        }
        try {
            byte[] bytes = java.util.Base64.getDecoder().decode(dto.proof());
            ev.appendOnly = bytes;
            AppendOnlyProof p = AppendOnlyProof.decode(bytes);
            ProofVerifier.verifyAppendOnly(t, d, p);
            return p;
        } catch (MalformedException | IllegalArgumentException | VerificationException e) {
            throw new LinkFailure(IntegrityViolation.Kind.FORK, "proof digest " + d
                    + " is not an append-only extension of the trusted digest: " + e.getMessage(), e);
        }
    }

    private static final class LinkFailure extends Exception {
        final IntegrityViolation.Kind kind;

        LinkFailure(IntegrityViolation.Kind kind, String message, Throwable cause) {
            super(message, cause);
            this.kind = kind;
        }
    }

    /** The evidence common to one item's violations. */
    private static final class Evidence {
        final TrustedState base;
        final SignedHead head;
        final Digest digest;
        final byte[] proof;
        byte[] appendOnly;

        Evidence(TrustedState base, SignedHead head, Digest digest, byte[] proof) {
            this.base = base;
            this.head = head;
            this.digest = digest;
            this.proof = proof;
        }

        IntegrityViolation violation(IntegrityViolation.Kind kind, String message, CommitPromise p, Throwable cause) {
            IntegrityViolation.Builder b = IntegrityViolation.builder(kind, "tx " + p.txId().hex() + ": " + message)
                    .trust(base).serverHead(head).serverDigest(digest).proof(proof).claims(p.claims())
                    .txIds(List.of(p.txId())).cause(cause);
            if (appendOnly != null) {
                b.appendOnlyProof(appendOnly);
            }
            return b.build();
        }
    }
}
