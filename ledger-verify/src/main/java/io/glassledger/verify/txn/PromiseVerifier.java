package io.glassledger.verify.txn;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.verify.proof.AppendOnlyProof;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.KeyClaim;
import io.glassledger.verify.proof.ProofVerifier;
import io.glassledger.verify.proof.VerificationException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Client-side check of a promise (GlassDB §3.3.3, deferred verification): the shard's new digest extends the
 * client's trusted digest (append-only), and every write of the transaction is in the promised block with the value
 * written. Pure: no I/O, no RocksDB.
 */
public final class PromiseVerifier {
    private PromiseVerifier() {
    }

    /** A promise and the transaction it was given for. */
    public record Claim(Promise promise, Transaction tx) {
    }

    /**
     * @param trusted    the client's last verified digest of this shard
     * @param appendOnly proof from {@code trusted} to {@code proof.digest()}; null only if they are the same block
     * @return the digest the client may trust from now on
     */
    public static Digest verify(Digest trusted, Promise promise, Transaction tx, BlockProof proof,
                                AppendOnlyProof appendOnly) throws VerificationException {
        return verifyAll(trusted, List.of(new Claim(promise, tx)), proof, appendOnly);
    }

    /**
     * Checks many promises of one block against one batched proof: the proof and the append-only step are checked
     * once, then each transaction's writes against the claims, so the cost is linear in the number of promises.
     * A put must be in the block with the value written; a delete must leave the key absent in the block's state
     * (a delete of a key already absent leaves no entry, FORMAT §6).
     */
    public static Digest verifyAll(Digest trusted, List<Claim> promises, BlockProof proof,
                                   AppendOnlyProof appendOnly) throws VerificationException {
        if (promises.isEmpty()) {
            throw new VerificationException("no promises to verify");
        }
        Map<Bytes, KeyClaim> claims = claimsByKey(proof);
        Set<Bytes> written = new HashSet<>();
        for (Claim pc : promises) {
            Promise promise = pc.promise();
            Transaction tx = pc.tx();
            if (!promise.txId().equals(tx.txId()) || promise.shard() != tx.shard()) {
                throw new VerificationException("promise is for another transaction");
            }
            if (tx.isReadOnly()) {
                throw new VerificationException("a read-only transaction has no block to verify");
            }
            if (proof.blockNo() != promise.blockNo()) {
                throw new VerificationException("proof is for block " + proof.blockNo() + ", promise for "
                        + promise.blockNo());
            }
            for (Mutation m : tx.writes()) {
                KeyClaim c = claims.get(m.key());
                if (c == null) {
                    throw new VerificationException("proof does not cover written key " + m.key());
                }
                boolean ok = m.isDelete() ? c.isAbsent() : !c.isAbsent() && c.value().equals(m.value());
                if (!ok) {
                    throw new VerificationException("block " + promise.blockNo() + " holds another value for "
                            + m.key());
                }
                if (!m.isDelete() && !written.add(m.key())) {
                    throw new VerificationException("two promises of block " + promise.blockNo() + " write "
                            + m.key() + ": a block holds one version of a key");
                }
            }
        }
        Digest next = advance(trusted, proof, appendOnly);
        // Verifies every claim (absences included) against the block's lower root; puts must carry this block's
        // version, so an older copy of the same value does not pass.
        ProofVerifier.verifyWrittenAt(next, proof.blockNo(), proof.claims(), written, proof.proof());
        return next;
    }

    /**
     * A value the client read in a transaction: {@code value} (null: absent) at {@code version} (0: never written).
     */
    public record Read(Bytes key, Bytes value, long version) {
    }

    /**
     * Where each read of a committed transaction is checked (GlassDB §3.3.3, read set): in the state of block
     * max(version, served block). A read served from data newer than the served digest must be that version there;
     * a read of an older version must still be the current one at the served digest, so a stale read (a newer
     * version was already in a block when the shard acknowledged) fails. Groups reads by that block.
     */
    public static Map<Long, List<Read>> readsByBlock(Promise promise, List<Read> reads) {
        Map<Long, List<Read>> out = new java.util.TreeMap<>();
        for (Read r : reads) {
            long at = Math.max(r.version(), promise.served().blockNo());
            out.computeIfAbsent(at, b -> new java.util.ArrayList<>()).add(r);
        }
        return out;
    }

    /**
     * Checks reads against one keys proof of block {@code proof.blockNo()} (reads grouped by {@link #readsByBlock}):
     * each read key has the value read and exactly the version read.
     *
     * @return the digest the client may trust from now on
     */
    public static Digest verifyReads(Digest trusted, List<Read> reads, BlockProof proof, AppendOnlyProof appendOnly)
            throws VerificationException {
        if (reads.isEmpty()) {
            throw new VerificationException("no reads to verify");
        }
        Map<Bytes, KeyClaim> claims = claimsByKey(proof);
        Map<Bytes, Long> versions = new HashMap<>();
        for (Read r : reads) {
            KeyClaim c = claims.get(r.key());
            if (c == null) {
                throw new VerificationException("proof does not cover read key " + r.key());
            }
            boolean ok = r.value() == null ? c.isAbsent() : !c.isAbsent() && c.value().equals(r.value());
            if (!ok) {
                throw new VerificationException("block " + proof.blockNo() + " holds another value for read key "
                        + r.key());
            }
            Long earlier = versions.put(r.key(), r.version());
            if (earlier != null && earlier != r.version()) {
                throw new VerificationException("two versions read of " + r.key() + " checked at one block");
            }
        }
        Digest next = advance(trusted, proof, appendOnly);
        ProofVerifier.verifyVersions(next, proof.blockNo(), proof.claims(), versions, proof.proof());
        return next;
    }

    private static Map<Bytes, KeyClaim> claimsByKey(BlockProof proof) throws VerificationException {
        Map<Bytes, KeyClaim> claims = new HashMap<>();
        for (KeyClaim c : proof.claims()) {
            if (claims.put(c.key(), c) != null) {
                throw new VerificationException("proof claims key " + c.key() + " twice");
            }
        }
        return claims;
    }

    private static Digest advance(Digest trusted, BlockProof proof, AppendOnlyProof appendOnly)
            throws VerificationException {
        Digest next = proof.digest();
        if (next.blockNo() < trusted.blockNo()) {
            throw new VerificationException("proof digest at block " + next.blockNo()
                    + " is older than the trusted digest at " + trusted.blockNo());
        }
        if (next.blockNo() == trusted.blockNo()) {
            if (!next.equals(trusted)) {
                throw new VerificationException("two different digests for block " + next.blockNo() + ": a fork");
            }
        } else {
            if (appendOnly == null) {
                throw new VerificationException("an append-only proof is needed from block " + trusted.blockNo());
            }
            ProofVerifier.verifyAppendOnly(trusted, next, appendOnly);
        }
        return next;
    }
}
