package io.glassledger.verify.proof;

import static io.glassledger.verify.format.FormatRule.HISTORY_ABSENT_KEY_HAS_ENTRY;
import static io.glassledger.verify.format.FormatRule.HISTORY_HEAD_NOT_AT_DIGEST;
import static io.glassledger.verify.format.FormatRule.HISTORY_HEAD_NOT_FOUND;
import static io.glassledger.verify.format.FormatRule.HISTORY_HEAD_VERSION_MISMATCH;
import static io.glassledger.verify.format.FormatRule.HISTORY_INCOMPLETE;
import static io.glassledger.verify.format.FormatRule.HISTORY_LIMIT_BELOW_1;
import static io.glassledger.verify.format.FormatRule.HISTORY_NOT_BACK_IN_TIME;
import static io.glassledger.verify.format.FormatRule.HISTORY_OLDER_NOT_FOUND;
import static io.glassledger.verify.format.FormatRule.HISTORY_OLDER_NOT_ONE_LEAF;
import static io.glassledger.verify.format.FormatRule.HISTORY_OLDER_PROOFS_WITHOUT_VERSIONS;
import static io.glassledger.verify.format.FormatRule.HISTORY_OLDER_ROOT_MISMATCH;
import static io.glassledger.verify.format.FormatRule.HISTORY_OLDER_VERSION_MISMATCH;
import static io.glassledger.verify.format.FormatRule.HISTORY_PREV_ZERO;
import static io.glassledger.verify.format.FormatRule.HISTORY_PROOF_COUNT_MISMATCH;
import static io.glassledger.verify.format.FormatRule.HISTORY_PROOF_TRAILING;
import static io.glassledger.verify.format.FormatRule.HISTORY_PROOF_TYPE;
import static io.glassledger.verify.format.FormatRule.HISTORY_VERSIONS_OVER_LIMIT;
import static io.glassledger.verify.format.FormatRule.OLDER_COUNT_OVER_LIMIT;

import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.entry.Entry;
import java.util.ArrayList;
import java.util.List;

/**
 * Proves the last versions of a key, newest first, at a digest. The newest comes from a current-value
 * {@link KeysProof}; each older one from a proof inside the single leaf that its successor's prev pointer names
 * (a {@link LowerProof} of root level 0 whose root must equal that prev hash).
 */
public record HistoryProof(KeysProof head, List<LowerProof> older) {
    public static final int TYPE = 3;
    private static final int MAX_OLDER = 1 << 16;

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
        if (r.u8() != TYPE && HISTORY_PROOF_TYPE.enforced()) {
            throw new MalformedException("not a history proof");
        }
        KeysProof head = KeysProof.decode(r);
        int n = r.count(MAX_OLDER, 1, OLDER_COUNT_OVER_LIMIT);
        List<LowerProof> older = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            older.add(LowerProof.decode(r));
        }
        r.expectEnd(HISTORY_PROOF_TRAILING);
        return new HistoryProof(head, older);
    }

    /** FORMAT.md §12, step by step. */
    void verify(Digest trusted, io.glassledger.verify.hash.Bytes key, int limit, List<Version> versions)
            throws VerificationException {
        if (limit < 1 && HISTORY_LIMIT_BELOW_1.enforced()) {
            throw new VerificationException("history limit must be positive");
        }
        if (head.blockNo() != trusted.blockNo() && HISTORY_HEAD_NOT_AT_DIGEST.enforced()) {
            throw new VerificationException("history must start from the digest's block");
        }
        if (versions.size() > limit && HISTORY_VERSIONS_OVER_LIMIT.enforced()) {
            throw new VerificationException("history has " + versions.size() + " versions, over its limit " + limit);
        }
        if (!versions.isEmpty() && versions.size() != older.size() + 1 && HISTORY_PROOF_COUNT_MISMATCH.enforced()) {
            throw new VerificationException("proof covers " + (older.size() + 1) + " versions, claim has "
                    + versions.size());
        }
        if (versions.isEmpty()) {
            Entry[] found = head.verify(trusted, List.of(KeyClaim.absent(key)));
            if (found[0] != null && HISTORY_ABSENT_KEY_HAS_ENTRY.enforced()) {
                throw new VerificationException("key has history but none was claimed");
            }
            if (!older.isEmpty() && HISTORY_OLDER_PROOFS_WITHOUT_VERSIONS.enforced()) {
                throw new VerificationException("older-version proofs for a history of no versions");
            }
            return;
        }
        Entry e = head.verify(trusted, List.of(new KeyClaim(key, versions.get(0).value())))[0];
        if (e == null && HISTORY_HEAD_NOT_FOUND.enforced()) {
            throw new VerificationException("key is not in the tree");
        }
        if (e.version() != versions.get(0).blockNo() && HISTORY_HEAD_VERSION_MISMATCH.enforced()) {
            throw versionMismatch(e, versions.get(0));
        }
        for (int i = 1; i < versions.size(); i++) {
            Version v = versions.get(i);
            LowerProof p = older.get(i - 1);
            if (p.rootLevel() != 0 && HISTORY_OLDER_NOT_ONE_LEAF.enforced()) {
                throw new VerificationException("an older version must be proven inside one leaf (root level 0)");
            }
            if (e.prev().isZero() && HISTORY_PREV_ZERO.enforced()) {
                throw new VerificationException("version at block " + e.version() + " has no predecessor");
            }
            Entry[] found = new Entry[1];
            Hash leaf = p.computeRoot(List.of(new KeyClaim(key, v.value())), found);
            if (!leaf.equals(e.prev()) && HISTORY_OLDER_ROOT_MISMATCH.enforced()) {
                throw new VerificationException("older version is not in the leaf its successor points to",
                        e.prev(), leaf);
            }
            if (found[0] == null && HISTORY_OLDER_NOT_FOUND.enforced()) {
                throw new VerificationException("older version missing from its leaf");
            }
            if (found[0].version() >= e.version() && HISTORY_NOT_BACK_IN_TIME.enforced()) {
                throw new VerificationException("versions must go strictly back in time");
            }
            e = found[0];
            if (e.version() != v.blockNo() && HISTORY_OLDER_VERSION_MISMATCH.enforced()) {
                throw versionMismatch(e, v);
            }
        }
        if (versions.size() < limit && !e.prev().isZero() && HISTORY_INCOMPLETE.enforced()) {
            throw new VerificationException("history stops at " + versions.size() + " of " + limit
                    + " versions but older ones exist");
        }
    }

    private static VerificationException versionMismatch(Entry e, Version v) {
        return new VerificationException("version was written at block " + e.version() + ", claim says "
                + v.blockNo());
    }
}
