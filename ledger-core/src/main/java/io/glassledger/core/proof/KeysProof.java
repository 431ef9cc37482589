package io.glassledger.core.proof;

import io.glassledger.core.codec.ByteReader;
import io.glassledger.core.codec.ByteWriter;
import io.glassledger.core.codec.MalformedException;
import io.glassledger.core.hash.Hash;
import io.glassledger.core.hash.Hashing;
import io.glassledger.core.postree.Entry;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Proves the values (or absence) of one or more keys in the state at block {@code blockNo}, against a digest at
 * block d &gt;= blockNo. It backs the current-value (blockNo == d), non-existence, inclusion and batched proofs.
 *
 * <ul>
 *   <li>lower: the keys' search paths in block blockNo's lower tree, giving lowerRoot;</li>
 *   <li>blockHash = H(0x10 || blockNo || lowerRoot || bodyHash);</li>
 *   <li>if blockNo == d: upperPath is empty and anchor is upperRoot(blocks 0..d-1);
 *       otherwise upperPath is the RFC 9162 inclusion path of blockHash at index blockNo in the upper tree of
 *       size d, which gives upperRoot, and anchor is blockHash(d);</li>
 *   <li>the digest root is then H(0x20 || d || upperRoot || blockHash(d)).</li>
 * </ul>
 */
public record KeysProof(long blockNo, Hash bodyHash, List<Hash> upperPath, Hash anchor, LowerProof lower) {
    public static final int TYPE = 1;
    private static final int MAX_PATH = 64;

    public KeysProof {
        Objects.requireNonNull(bodyHash);
        Objects.requireNonNull(anchor);
        Objects.requireNonNull(lower);
        upperPath = List.copyOf(upperPath);
    }

    public byte[] encode() {
        ByteWriter w = new ByteWriter(1024);
        encode(w);
        return w.toByteArray();
    }

    void encode(ByteWriter w) {
        w.u8(TYPE).varint(blockNo).hash(bodyHash).varint(upperPath.size());
        for (Hash h : upperPath) {
            w.hash(h);
        }
        w.hash(anchor);
        lower.encode(w);
    }

    public static KeysProof decode(byte[] data) {
        ByteReader r = new ByteReader(data);
        KeysProof p = decode(r);
        r.expectEnd();
        return p;
    }

    static KeysProof decode(ByteReader r) {
        if (r.u8() != TYPE) {
            throw new MalformedException("not a keys proof");
        }
        long blockNo = r.varint();
        Hash body = r.hash();
        int n = r.varint(MAX_PATH);
        List<Hash> path = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            path.add(r.hash());
        }
        Hash anchor = r.hash();
        return new KeysProof(blockNo, body, path, anchor, LowerProof.decode(r));
    }

    /** Verifies the claims against {@code trusted}; returns the entries found (null where a key is missing). */
    Entry[] verify(Digest trusted, List<KeyClaim> claims) throws VerificationException {
        if (blockNo > trusted.blockNo()) {
            throw new VerificationException("proof is for block " + blockNo + ", after the trusted digest's block "
                    + trusted.blockNo());
        }
        Entry[] resolved = new Entry[claims.size()];
        Hash lowerRoot = lower.computeRoot(claims, resolved);
        Hash blockHash = Hashing.block(blockNo, lowerRoot, bodyHash);
        Hash root;
        if (blockNo == trusted.blockNo()) {
            if (!upperPath.isEmpty()) {
                throw new VerificationException("a proof at the digest's own block carries no upper path");
            }
            root = Hashing.digest(blockNo, anchor, blockHash);
        } else {
            Hash upper = UpperTreeMath.rootFromInclusion(blockNo, trusted.blockNo(), blockHash, upperPath);
            root = Hashing.digest(trusted.blockNo(), upper, anchor);
        }
        if (!root.equals(trusted.root())) {
            throw new VerificationException("keys proof does not lead to the trusted digest", trusted.root(), root);
        }
        return resolved;
    }
}
