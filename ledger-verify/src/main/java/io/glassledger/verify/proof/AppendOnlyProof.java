package io.glassledger.verify.proof;

import static io.glassledger.verify.format.FormatRule.APPEND_BLOCKS_MISMATCH;
import static io.glassledger.verify.format.FormatRule.APPEND_CONSISTENCY_FROM_ZERO;
import static io.glassledger.verify.format.FormatRule.APPEND_FIRST_ROOT_MISMATCH;
import static io.glassledger.verify.format.FormatRule.APPEND_NOT_FORWARD;
import static io.glassledger.verify.format.FormatRule.APPEND_PATHS_DISAGREE;
import static io.glassledger.verify.format.FormatRule.APPEND_PATH_OVER_128;
import static io.glassledger.verify.format.FormatRule.APPEND_PROOF_TRAILING;
import static io.glassledger.verify.format.FormatRule.APPEND_PROOF_TYPE;
import static io.glassledger.verify.format.FormatRule.APPEND_SECOND_ROOT_MISMATCH;
import static io.glassledger.verify.format.FormatRule.APPEND_UPPER_ROOT_FROM_ZERO;

import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Proves that the ledger at digest d1 (block b1) is a prefix of the ledger at d2 (block b2 &gt; b1).
 *
 * <p>It carries, for block b1, upperRoot1 = root of blocks 0..b1-1, its lower root and body hash, which reproduce
 * d1 and give blockHash1; for block b2, its lower root and body hash; an RFC 9162 consistency proof from size b1 to
 * size b2 (absent when b1 = 0); and the inclusion path of blockHash1 at index b1 in the tree of size b2. Both paths
 * must give the same upperRoot2, which with block b2's lower root and body hash must reproduce d2.
 */
public record AppendOnlyProof(long b1, long b2, Hash upperRoot1, Hash lowerRoot1, Hash bodyHash1, Hash lowerRoot2,
        Hash bodyHash2, List<Hash> consistency, List<Hash> inclusion) {
    public static final int TYPE = 2;
    private static final int MAX_PATH = 128;

    public AppendOnlyProof {
        Objects.requireNonNull(upperRoot1);
        Objects.requireNonNull(lowerRoot1);
        Objects.requireNonNull(bodyHash1);
        Objects.requireNonNull(lowerRoot2);
        Objects.requireNonNull(bodyHash2);
        consistency = List.copyOf(consistency);
        inclusion = List.copyOf(inclusion);
    }

    public byte[] encode() {
        ByteWriter w = new ByteWriter(1024);
        w.u8(TYPE).varint(b1).varint(b2).hash(upperRoot1).hash(lowerRoot1).hash(bodyHash1).hash(lowerRoot2)
                .hash(bodyHash2);
        w.varint(consistency.size());
        consistency.forEach(w::hash);
        w.varint(inclusion.size());
        inclusion.forEach(w::hash);
        return w.toByteArray();
    }

    public static AppendOnlyProof decode(byte[] data) {
        ByteReader r = new ByteReader(data);
        if (r.u8() != TYPE && APPEND_PROOF_TYPE.enforced()) {
            throw new MalformedException("not an append-only proof");
        }
        long b1 = r.varint();
        long b2 = r.varint();
        Hash u1 = r.hash();
        Hash l1 = r.hash();
        Hash body1 = r.hash();
        Hash l2 = r.hash();
        Hash body2 = r.hash();
        List<Hash> cons = readPath(r);
        List<Hash> incl = readPath(r);
        r.expectEnd(APPEND_PROOF_TRAILING);
        return new AppendOnlyProof(b1, b2, u1, l1, body1, l2, body2, cons, incl);
    }

    private static List<Hash> readPath(ByteReader r) {
        int n = r.count(MAX_PATH, Hash.LENGTH, APPEND_PATH_OVER_128);
        List<Hash> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(r.hash());
        }
        return out;
    }

    void verify(Digest d1, Digest d2) throws VerificationException {
        if ((d1.blockNo() != b1 || d2.blockNo() != b2) && APPEND_BLOCKS_MISMATCH.enforced()) {
            throw new VerificationException("proof is for blocks " + b1 + "→" + b2 + ", digests are for "
                    + d1.blockNo() + "→" + d2.blockNo());
        }
        if (b1 >= b2 && APPEND_NOT_FORWARD.enforced()) {
            throw new VerificationException("append-only proof needs b1 < b2");
        }
        Hash r1 = Hashing.digest(b1, lowerRoot1, upperRoot1, bodyHash1);
        if (!r1.equals(d1.root()) && APPEND_FIRST_ROOT_MISMATCH.enforced()) {
            throw new VerificationException("proof does not match the first digest", d1.root(), r1);
        }
        Hash blockHash1 = Hashing.block(b1, lowerRoot1, bodyHash1);
        Hash upper2 = UpperTreeMath.rootFromInclusion(b1, b2, blockHash1, inclusion);
        if (b1 == 0) {
            if (!consistency.isEmpty() && APPEND_CONSISTENCY_FROM_ZERO.enforced()) {
                throw new VerificationException("from block 0 the first upper tree is empty and needs no consistency");
            }
            if (!upperRoot1.isZero() && APPEND_UPPER_ROOT_FROM_ZERO.enforced()) {
                throw new VerificationException("from block 0 the first upper tree is empty");
            }
        } else {
            Hash viaConsistency = UpperTreeMath.rootFromConsistency(b1, b2, upperRoot1, consistency);
            if (!viaConsistency.equals(upper2) && APPEND_PATHS_DISAGREE.enforced()) {
                throw new VerificationException("consistency and inclusion paths disagree", upper2, viaConsistency);
            }
        }
        Hash r2 = Hashing.digest(b2, lowerRoot2, upper2, bodyHash2);
        if (!r2.equals(d2.root()) && APPEND_SECOND_ROOT_MISMATCH.enforced()) {
            throw new VerificationException("proof does not match the second digest", d2.root(), r2);
        }
    }
}
