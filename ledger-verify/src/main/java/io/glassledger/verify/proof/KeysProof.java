package io.glassledger.verify.proof;

import static io.glassledger.verify.format.FormatRule.ANCHOR_FORM_UNKNOWN;
import static io.glassledger.verify.format.FormatRule.KEYS_BLOCK_AFTER_DIGEST;
import static io.glassledger.verify.format.FormatRule.KEYS_PROOF_TRAILING;
import static io.glassledger.verify.format.FormatRule.KEYS_PROOF_TYPE;
import static io.glassledger.verify.format.FormatRule.KEYS_ROOT_MISMATCH;
import static io.glassledger.verify.format.FormatRule.OLDER_FORM_AT_DIGEST_BLOCK;
import static io.glassledger.verify.format.FormatRule.TAIL_FORM_FOR_OLDER_BLOCK;
import static io.glassledger.verify.format.FormatRule.UPPER_PATH_OVER_64;

import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import io.glassledger.verify.entry.Entry;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Proves the values (or absence) of one or more keys in the state at block {@code blockNo}, against a digest at
 * block d &gt;= blockNo. It backs the current-value (blockNo == d), non-existence, inclusion and batched proofs.
 *
 * <p>The lower proof gives block blockNo's lower root. The anchor takes it to the digest root
 * H(0x20 || d || lowerRoot(d) || H(0x21 || upperRoot(d) || bodyHash(d))):
 * <ul>
 *   <li>{@link AtDigest} (blockNo == d): the tail H(0x21 || ...) alone, one hash;</li>
 *   <li>{@link Older} (blockNo &lt; d): block blockNo's body hash, which gives its block hash; that block hash's
 *       RFC 9162 inclusion path at index blockNo in the upper tree of size d, which gives upperRoot(d); and block
 *       d's lower root and body hash.</li>
 * </ul>
 */
public record KeysProof(long blockNo, Anchor anchor, LowerProof lower) {
    public static final int TYPE = 1;
    /** The smallest encoding: type, a one-byte block number, form 00, the tail, and the empty tree's lower proof. */
    static final int MIN_ENCODED_BYTES = 3 + 32 + 1;
    private static final int MAX_PATH = 64;

    /** How the proven block's lower root reaches the digest. */
    public sealed interface Anchor permits AtDigest, Older {
    }

    /** The proven block is the digest's block; tail = H(0x21 || upperRoot(d) || bodyHash(d)). */
    public record AtDigest(Hash tail) implements Anchor {
        public AtDigest {
            Objects.requireNonNull(tail);
        }
    }

    /** The proven block is older than the digest's block d. */
    public record Older(Hash bodyHash, List<Hash> upperPath, Hash digestLowerRoot, Hash digestBodyHash)
            implements Anchor {
        public Older {
            Objects.requireNonNull(bodyHash);
            Objects.requireNonNull(digestLowerRoot);
            Objects.requireNonNull(digestBodyHash);
            upperPath = List.copyOf(upperPath);
            if (upperPath.size() > MAX_PATH && UPPER_PATH_OVER_64.enforced()) {
                throw new IllegalArgumentException("upper path longer than " + MAX_PATH);
            }
        }
    }

    public KeysProof {
        Objects.requireNonNull(anchor);
        Objects.requireNonNull(lower);
    }

    public byte[] encode() {
        ByteWriter w = new ByteWriter(1024);
        encode(w);
        return w.toByteArray();
    }

    void encode(ByteWriter w) {
        w.u8(TYPE).varint(blockNo);
        if (anchor instanceof AtDigest a) {
            w.u8(0).hash(a.tail());
        } else {
            Older o = (Older) anchor;
            w.u8(1).hash(o.bodyHash()).varint(o.upperPath().size());
            for (Hash h : o.upperPath()) {
                w.hash(h);
            }
            w.hash(o.digestLowerRoot()).hash(o.digestBodyHash());
        }
        lower.encode(w);
    }

    public static KeysProof decode(byte[] data) {
        ByteReader r = new ByteReader(data);
        KeysProof p = decode(r);
        r.expectEnd(KEYS_PROOF_TRAILING);
        return p;
    }

    static KeysProof decode(ByteReader r) {
        if (r.u8() != TYPE && KEYS_PROOF_TYPE.enforced()) {
            throw new MalformedException("not a keys proof");
        }
        long blockNo = r.varint();
        int form = r.u8();
        Anchor anchor;
        if (form != 0 && form != 1 && ANCHOR_FORM_UNKNOWN.enforced()) {
            throw new MalformedException("unknown anchor form " + form);
        }
        if (form == 0) {
            anchor = new AtDigest(r.hash());
        } else {
            Hash body = r.hash();
            int n = r.count(MAX_PATH, Hash.LENGTH, UPPER_PATH_OVER_64);
            List<Hash> path = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                path.add(r.hash());
            }
            anchor = new Older(body, path, r.hash(), r.hash());
        }
        return new KeysProof(blockNo, anchor, LowerProof.decode(r));
    }

    /** Verifies the claims against {@code trusted}; returns the entries found (null where a key is missing). */
    Entry[] verify(Digest trusted, List<KeyClaim> claims) throws VerificationException {
        if (blockNo > trusted.blockNo() && KEYS_BLOCK_AFTER_DIGEST.enforced()) {
            throw new VerificationException("proof is for block " + blockNo + ", after the trusted digest's block "
                    + trusted.blockNo());
        }
        Entry[] resolved = new Entry[claims.size()];
        Hash lowerRoot = lower.computeRoot(claims, resolved);
        Hash root;
        if (anchor instanceof AtDigest a) {
            if (blockNo != trusted.blockNo() && TAIL_FORM_FOR_OLDER_BLOCK.enforced()) {
                throw new VerificationException("proof is anchored at its own block " + blockNo
                        + ", but the digest is for block " + trusted.blockNo());
            }
            root = Hashing.digest(trusted.blockNo(), lowerRoot, a.tail());
        } else {
            Older o = (Older) anchor;
            if (blockNo == trusted.blockNo() && OLDER_FORM_AT_DIGEST_BLOCK.enforced()) {
                throw new VerificationException("a proof at the digest's own block is anchored by the tail alone");
            }
            Hash blockHash = Hashing.block(blockNo, lowerRoot, o.bodyHash());
            Hash upper = UpperTreeMath.rootFromInclusion(blockNo, trusted.blockNo(), blockHash, o.upperPath());
            root = Hashing.digest(trusted.blockNo(), o.digestLowerRoot(), upper, o.digestBodyHash());
        }
        if (!root.equals(trusted.root()) && KEYS_ROOT_MISMATCH.enforced()) {
            throw new VerificationException("keys proof does not lead to the trusted digest", trusted.root(), root);
        }
        return resolved;
    }
}
