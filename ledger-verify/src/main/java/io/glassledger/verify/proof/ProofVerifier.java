package io.glassledger.verify.proof;

import static io.glassledger.verify.format.FormatRule.CLAIM_NOT_FOUND;
import static io.glassledger.verify.format.FormatRule.PROOF_NOT_AT_CLAIMED_BLOCK;
import static io.glassledger.verify.format.FormatRule.PROOF_NOT_AT_DIGEST_BLOCK;

import io.glassledger.verify.hash.Bytes;
import java.util.List;

/**
 * The verifier. Each method needs only the proof, the claim and a trusted digest; it returns nothing and throws
 * {@link VerificationException} on any failure, including a claim that no entry could hold (an oversized key or
 * value). The {@code byte[]} overloads also turn malformed proof bytes into a {@link VerificationException}.
 * Pure: no I/O, no state.
 */
public final class ProofVerifier {
    private ProofVerifier() {
    }

    /** {@code key} has {@code value} as its latest value at {@code trusted}. */
    public static void verifyCurrentValue(Digest trusted, Bytes key, Bytes value, KeysProof proof)
            throws VerificationException {
        requireHead(trusted, proof);
        requireFound(proof.verify(trusted, List.of(KeyClaim.present(key, value))));
    }

    /** {@code key} has no value (never written, or deleted) at {@code trusted}. */
    public static void verifyNonExistence(Digest trusted, Bytes key, KeysProof proof) throws VerificationException {
        requireHead(trusted, proof);
        proof.verify(trusted, List.of(KeyClaim.absent(key)));
    }

    /** {@code key} had {@code value} in the state at block {@code blockNo} of the ledger that {@code trusted} names. */
    public static void verifyInclusion(Digest trusted, long blockNo, Bytes key, Bytes value, KeysProof proof)
            throws VerificationException {
        requireBlock(blockNo, proof);
        requireFound(proof.verify(trusted, List.of(KeyClaim.present(key, value))));
    }

    /** Every claim holds in the state at block {@code blockNo}. */
    public static void verifyBatch(Digest trusted, long blockNo, List<KeyClaim> claims, KeysProof proof)
            throws VerificationException {
        requireBlock(blockNo, proof);
        proof.verify(trusted, claims);
    }

    /**
     * Every claim holds in the state at block {@code blockNo}, and each key of {@code writtenAt} was written
     * (put, or deleted for an absent claim) in that very block: its entry's version is {@code blockNo}. This is what
     * a promise promises.
     */
    public static void verifyWrittenAt(Digest trusted, long blockNo, List<KeyClaim> claims,
                                       java.util.Set<Bytes> writtenAt, KeysProof proof) throws VerificationException {
        requireBlock(blockNo, proof);
        io.glassledger.verify.entry.Entry[] found = proof.verify(trusted, claims);
        int matched = 0;
        for (int i = 0; i < found.length; i++) {
            if (!writtenAt.contains(claims.get(i).key())) {
                continue;
            }
            matched++;
            if (found[i] == null || found[i].version() != blockNo) {
                throw new VerificationException("key " + claims.get(i).key() + " was not written in block " + blockNo);
            }
        }
        if (matched != writtenAt.size()) {
            throw new VerificationException("the proof does not cover every written key");
        }
    }

    /**
     * Every claim holds in the state at block {@code blockNo}, and each key of {@code versions} has exactly that
     * version there: the block that wrote its entry (a tombstone's for a deleted key), or 0 for a key with no entry
     * at all. A client checks the values it read this way: right value, and not an older copy of it.
     */
    public static void verifyVersions(Digest trusted, long blockNo, List<KeyClaim> claims,
                                      java.util.Map<Bytes, Long> versions, KeysProof proof)
            throws VerificationException {
        requireBlock(blockNo, proof);
        io.glassledger.verify.entry.Entry[] found = proof.verify(trusted, claims);
        int matched = 0;
        for (int i = 0; i < found.length; i++) {
            Long v = versions.get(claims.get(i).key());
            if (v == null) {
                continue;
            }
            matched++;
            long actual = found[i] == null ? 0 : found[i].version();
            if (actual != v) {
                throw new VerificationException("key " + claims.get(i).key() + " has version " + actual + " in block "
                        + blockNo + ", expected " + v);
            }
        }
        if (matched != versions.size()) {
            throw new VerificationException("the proof does not cover every key whose version is claimed");
        }
    }

    /**
     * Every claim holds in the state at block {@code blockNo}; returns, per claim, the entry proven there (null for a
     * key with no entry), whose version and tombstone flag the caller may then compare (an auditor's evidence of a
     * stale read does).
     */
    public static io.glassledger.verify.entry.Entry[] verifiedEntries(Digest trusted, long blockNo,
                                                                    List<KeyClaim> claims, KeysProof proof)
            throws VerificationException {
        requireBlock(blockNo, proof);
        return proof.verify(trusted, claims);
    }

    /** The ledger at {@code older} is a prefix of the ledger at {@code newer}, a later block. */
    public static void verifyAppendOnly(Digest older, Digest newer, AppendOnlyProof proof)
            throws VerificationException {
        proof.verify(older, newer);
    }

    /**
     * {@code versions} are the last versions of {@code key} at {@code trusted}, newest first: {@code limit} of them,
     * or fewer when the key has no more.
     */
    public static void verifyHistory(Digest trusted, Bytes key, int limit, List<Version> versions,
            HistoryProof proof) throws VerificationException {
        proof.verify(trusted, key, limit, versions);
    }

    public static void verifyCurrentValue(Digest trusted, Bytes key, Bytes value, byte[] proof)
            throws VerificationException {
        verifyCurrentValue(trusted, key, value, ProofVerifier.<KeysProof>decode(proof, b -> KeysProof.decode(b)));
    }

    public static void verifyNonExistence(Digest trusted, Bytes key, byte[] proof) throws VerificationException {
        verifyNonExistence(trusted, key, ProofVerifier.<KeysProof>decode(proof, b -> KeysProof.decode(b)));
    }

    public static void verifyInclusion(Digest trusted, long blockNo, Bytes key, Bytes value, byte[] proof)
            throws VerificationException {
        verifyInclusion(trusted, blockNo, key, value, ProofVerifier.<KeysProof>decode(proof, b -> KeysProof.decode(b)));
    }

    public static void verifyBatch(Digest trusted, long blockNo, List<KeyClaim> claims, byte[] proof)
            throws VerificationException {
        verifyBatch(trusted, blockNo, claims, ProofVerifier.<KeysProof>decode(proof, b -> KeysProof.decode(b)));
    }

    public static void verifyAppendOnly(Digest older, Digest newer, byte[] proof) throws VerificationException {
        verifyAppendOnly(older, newer, ProofVerifier.<AppendOnlyProof>decode(proof, b -> AppendOnlyProof.decode(b)));
    }

    public static void verifyHistory(Digest trusted, Bytes key, int limit, List<Version> versions, byte[] proof)
            throws VerificationException {
        verifyHistory(trusted, key, limit, versions, ProofVerifier.<HistoryProof>decode(proof, b -> HistoryProof.decode(b)));
    }

    private static <T> T decode(byte[] proof, java.util.function.Function<byte[], T> decoder)
            throws VerificationException {
        try {
            return decoder.apply(proof);
        } catch (io.glassledger.verify.codec.MalformedException e) {
            throw new VerificationException("malformed proof: " + e.getMessage());
        }
    }

    private static void requireHead(Digest trusted, KeysProof proof) throws VerificationException {
        if (proof.blockNo() != trusted.blockNo() && PROOF_NOT_AT_DIGEST_BLOCK.enforced()) {
            throw new VerificationException("current-value proof is for block " + proof.blockNo()
                    + ", digest is at block " + trusted.blockNo());
        }
    }

    private static void requireBlock(long blockNo, KeysProof proof) throws VerificationException {
        if (proof.blockNo() != blockNo && PROOF_NOT_AT_CLAIMED_BLOCK.enforced()) {
            throw new VerificationException("proof is for block " + proof.blockNo() + ", claim is for " + blockNo);
        }
    }

    private static void requireFound(io.glassledger.verify.entry.Entry[] found) throws VerificationException {
        for (io.glassledger.verify.entry.Entry e : found) {
            if (e == null && CLAIM_NOT_FOUND.enforced()) {
                throw new VerificationException("claimed key is not in the tree");
            }
        }
    }
}
