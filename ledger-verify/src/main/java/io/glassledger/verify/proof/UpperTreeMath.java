package io.glassledger.verify.proof;

import static io.glassledger.verify.format.FormatRule.CONSISTENCY_EMPTY;
import static io.glassledger.verify.format.FormatRule.CONSISTENCY_FIRST_ROOT_MISMATCH;
import static io.glassledger.verify.format.FormatRule.CONSISTENCY_SIZES;
import static io.glassledger.verify.format.FormatRule.CONSISTENCY_TOO_LONG;
import static io.glassledger.verify.format.FormatRule.CONSISTENCY_TOO_SHORT;
import static io.glassledger.verify.format.FormatRule.INCLUSION_INDEX_OUT_OF_RANGE;
import static io.glassledger.verify.format.FormatRule.INCLUSION_PATH_TOO_LONG;
import static io.glassledger.verify.format.FormatRule.INCLUSION_PATH_TOO_SHORT;

import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import java.util.List;

/**
 * Verification for the upper tree: an RFC 9162 (RFC 6962) Merkle tree over block hashes, indexed by block number,
 * whose leaf is the block hash itself and whose interior node is H(0x31 || left || right). The empty tree's root
 * is {@link Hash#ZERO}. Algorithms follow RFC 9162 §2.1.3.2 and §2.1.4.2.
 */
public final class UpperTreeMath {
    private UpperTreeMath() {
    }

    /** The root implied by an inclusion path of {@code leaf} at {@code index} in a tree of {@code size} leaves. */
    public static Hash rootFromInclusion(long index, long size, Hash leaf, List<Hash> path)
            throws VerificationException {
        if ((index < 0 || index >= size) && INCLUSION_INDEX_OUT_OF_RANGE.enforced()) {
            throw new VerificationException("leaf index " + index + " outside tree of size " + size);
        }
        long fn = index;
        long sn = size - 1;
        Hash r = leaf;
        for (Hash p : path) {
            if (sn == 0 && INCLUSION_PATH_TOO_LONG.enforced()) {
                throw new VerificationException("inclusion path too long");
            }
            if ((fn & 1) == 1 || fn == sn) {
                r = Hashing.upperInner(p, r);
                if ((fn & 1) == 0) {
                    while ((fn & 1) == 0 && fn != 0) {
                        fn >>= 1;
                        sn >>= 1;
                    }
                }
            } else {
                r = Hashing.upperInner(r, p);
            }
            fn >>= 1;
            sn >>= 1;
        }
        if (sn != 0 && INCLUSION_PATH_TOO_SHORT.enforced()) {
            throw new VerificationException("inclusion path too short");
        }
        return r;
    }

    /**
     * Checks a consistency proof from a tree of {@code size1} leaves with root {@code root1} to one of
     * {@code size2} leaves, 0 &lt; size1 &lt; size2, and returns the second root it implies.
     */
    public static Hash rootFromConsistency(long size1, long size2, Hash root1, List<Hash> proof)
            throws VerificationException {
        if ((size1 <= 0 || size1 >= size2) && CONSISTENCY_SIZES.enforced()) {
            throw new VerificationException("consistency needs 0 < size1 < size2, got " + size1 + ", " + size2);
        }
        if (proof.isEmpty() && CONSISTENCY_EMPTY.enforced()) {
            throw new VerificationException("empty consistency proof");
        }
        java.util.ArrayList<Hash> path = new java.util.ArrayList<>(proof.size() + 1);
        if (Long.bitCount(size1) == 1) {
            path.add(root1);
        }
        path.addAll(proof);
        long fn = size1 - 1;
        long sn = size2 - 1;
        while ((fn & 1) == 1) {
            fn >>= 1;
            sn >>= 1;
        }
        Hash fr = path.get(0);
        Hash sr = path.get(0);
        for (int i = 1; i < path.size(); i++) {
            Hash c = path.get(i);
            if (sn == 0 && CONSISTENCY_TOO_LONG.enforced()) {
                throw new VerificationException("consistency proof too long");
            }
            if ((fn & 1) == 1 || fn == sn) {
                fr = Hashing.upperInner(c, fr);
                sr = Hashing.upperInner(c, sr);
                if ((fn & 1) == 0) {
                    while ((fn & 1) == 0 && fn != 0) {
                        fn >>= 1;
                        sn >>= 1;
                    }
                }
            } else {
                sr = Hashing.upperInner(sr, c);
            }
            fn >>= 1;
            sn >>= 1;
        }
        if (sn != 0 && CONSISTENCY_TOO_SHORT.enforced()) {
            throw new VerificationException("consistency proof too short");
        }
        if (!fr.equals(root1) && CONSISTENCY_FIRST_ROOT_MISMATCH.enforced()) {
            throw new VerificationException("consistency proof does not match the first tree", root1, fr);
        }
        return sr;
    }
}
