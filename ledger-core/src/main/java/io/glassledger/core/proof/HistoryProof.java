package io.glassledger.core.proof;

import io.glassledger.core.codec.ByteReader;
import io.glassledger.core.codec.ByteWriter;
import io.glassledger.core.codec.MalformedException;
import io.glassledger.core.hash.Hash;
import io.glassledger.core.postree.Entry;
import java.util.ArrayList;
import java.util.List;

/**
 * Proves the last versions of a key, newest first, at a digest. The newest comes from a current-value
 * {@link KeysProof}; each older one from a proof inside the single leaf that its successor's prev pointer names
 * (a {@link LowerProof} of root level 0 whose root must equal that prev hash).
 */
public record HistoryProof(KeysProof head, List<LowerProof> older) {
    public static final int TYPE = 3;

    public HistoryProof {
        older = List.copyOf(older);
    }

    public byte[] encode() {
        ByteWriter w = new ByteWriter(1024);
        w.u8(TYPE);
        head.encode(w);
        w.varint(older.size());
        for (LowerProof p : older) {
            p.encode(w);
        }
        return w.toByteArray();
    }

    public static HistoryProof decode(byte[] data) {
        ByteReader r = new ByteReader(data);
        if (r.u8() != TYPE) {
            throw new MalformedException("not a history proof");
        }
        KeysProof head = KeysProof.decode(r);
        int n = r.count(1 << 16, 1);
        List<LowerProof> older = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            older.add(LowerProof.decode(r));
        }
        r.expectEnd();
        return new HistoryProof(head, older);
    }

    void verify(Digest trusted, io.glassledger.core.hash.Bytes key, int limit, List<Version> versions)
            throws VerificationException {
        if (limit < 1) {
            throw new VerificationException("history limit must be positive");
        }
        if (head.blockNo() != trusted.blockNo()) {
            throw new VerificationException("history must start from the digest's block");
        }
        if (versions.size() > limit || versions.size() != (versions.isEmpty() ? 0 : older.size() + 1)) {
            throw new VerificationException("proof covers " + (older.size() + 1) + " versions, claim has "
                    + versions.size());
        }
        if (versions.isEmpty()) {
            Entry[] found = head.verify(trusted, List.of(KeyClaim.absent(key)));
            if (found[0] != null || !older.isEmpty()) {
                throw new VerificationException("key has history but none was claimed");
            }
            return;
        }
        Entry e = head.verify(trusted, List.of(new KeyClaim(key, versions.get(0).value())))[0];
        if (e == null) {
            throw new VerificationException("key is not in the tree");
        }
        checkVersion(e, versions.get(0));
        for (int i = 1; i < versions.size(); i++) {
            Version v = versions.get(i);
            LowerProof p = older.get(i - 1);
            if (p.rootLevel() != 0) {
                throw new VerificationException("an older version must be proven inside one leaf");
            }
            if (e.prev().isZero()) {
                throw new VerificationException("version at block " + e.version() + " has no predecessor");
            }
            Entry[] found = new Entry[1];
            Hash leaf = p.computeRoot(List.of(new KeyClaim(key, v.value())), found);
            if (!leaf.equals(e.prev())) {
                throw new VerificationException("older version is not in the leaf its successor points to",
                        e.prev(), leaf);
            }
            if (found[0] == null) {
                throw new VerificationException("older version missing from its leaf");
            }
            if (found[0].version() >= e.version()) {
                throw new VerificationException("versions must go strictly back in time");
            }
            e = found[0];
            checkVersion(e, v);
        }
        if (versions.size() < limit && !e.prev().isZero()) {
            throw new VerificationException("history stops at " + versions.size() + " of " + limit
                    + " versions but older ones exist");
        }
    }

    private static void checkVersion(Entry e, Version v) throws VerificationException {
        if (e.version() != v.blockNo()) {
            throw new VerificationException("version was written at block " + e.version() + ", claim says "
                    + v.blockNo());
        }
    }
}
