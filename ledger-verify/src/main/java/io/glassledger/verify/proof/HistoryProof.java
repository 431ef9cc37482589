package io.glassledger.verify.proof;

import static io.glassledger.verify.format.FormatRule.HISTORY_ABSENT_KEY_HAS_ENTRY;
import static io.glassledger.verify.format.FormatRule.HISTORY_HEAD_NOT_AT_DIGEST;
import static io.glassledger.verify.format.FormatRule.HISTORY_HEAD_NOT_FOUND;
import static io.glassledger.verify.format.FormatRule.HISTORY_HEAD_VERSION_MISMATCH;
import static io.glassledger.verify.format.FormatRule.HISTORY_INCOMPLETE;
import static io.glassledger.verify.format.FormatRule.HISTORY_LIMIT_BELOW_1;
import static io.glassledger.verify.format.FormatRule.HISTORY_NOT_BACK_IN_TIME;
import static io.glassledger.verify.format.FormatRule.HISTORY_OLDER_NOT_FOUND;
import static io.glassledger.verify.format.FormatRule.HISTORY_OLDER_PROOFS_WITHOUT_VERSIONS;
import static io.glassledger.verify.format.FormatRule.HISTORY_OLDER_VERSION_MISMATCH;
import static io.glassledger.verify.format.FormatRule.HISTORY_OLDER_WRONG_BLOCK;
import static io.glassledger.verify.format.FormatRule.HISTORY_PROOF_COUNT_MISMATCH;
import static io.glassledger.verify.format.FormatRule.HISTORY_PROOF_TRAILING;
import static io.glassledger.verify.format.FormatRule.HISTORY_PROOF_TYPE;
import static io.glassledger.verify.format.FormatRule.HISTORY_VERSIONS_OVER_LIMIT;
import static io.glassledger.verify.format.FormatRule.OLDER_COUNT_OVER_LIMIT;

import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.entry.Entry;
import java.util.ArrayList;
import java.util.List;

/**
 * Proves the last versions of a key, newest first, at a digest (FORMAT §12). The newest comes from a current-value
 * {@link KeysProof} at the digest's block; each older one from a keys proof at the block just before its successor
 * was written, where it was the key's current entry. When the history is shorter than its limit, a last keys proof
 * shows the key absent just before its oldest version was written. Every proof is checked against the same digest,
 * the older ones through the upper tree.
 */
public record HistoryProof(KeysProof head, List<KeysProof> older) {
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
        for (KeysProof p : older) {
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
        int n = r.count(MAX_OLDER, KeysProof.MIN_ENCODED_BYTES, OLDER_COUNT_OVER_LIMIT);
        List<KeysProof> older = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            older.add(KeysProof.decode(r));
        }
        r.expectEnd(HISTORY_PROOF_TRAILING);
        return new HistoryProof(head, older);
    }

    /** The number of older proofs a history of {@code versions} versions under {@code limit} has. */
    public static int olderCount(int versions, int limit) {
        return versions == 0 ? 0 : versions - 1 + (versions < limit ? 1 : 0);
    }

    /** FORMAT.md §12, step by step. */
    void verify(Digest trusted, Bytes key, int limit, List<Version> versions) throws VerificationException {
        if (limit < 1 && HISTORY_LIMIT_BELOW_1.enforced()) {
            throw new VerificationException("history limit must be positive");
        }
        if (head.blockNo() != trusted.blockNo() && HISTORY_HEAD_NOT_AT_DIGEST.enforced()) {
            throw new VerificationException("history must start from the digest's block");
        }
        if (versions.size() > limit && HISTORY_VERSIONS_OVER_LIMIT.enforced()) {
            throw new VerificationException("history has " + versions.size() + " versions, over its limit " + limit);
        }
        if (versions.isEmpty()) {
            if (!older.isEmpty() && HISTORY_OLDER_PROOFS_WITHOUT_VERSIONS.enforced()) {
                throw new VerificationException("older-version proofs for a history of no versions");
            }
            Entry[] found = head.verify(trusted, List.of(KeyClaim.absent(key)));
            if (found[0] != null && HISTORY_ABSENT_KEY_HAS_ENTRY.enforced()) {
                throw new VerificationException("key has history but none was claimed");
            }
            return;
        }
        int expected = olderCount(versions.size(), limit);
        if (older.size() != expected && HISTORY_PROOF_COUNT_MISMATCH.enforced()) {
            throw new VerificationException("history of " + versions.size() + " versions under limit " + limit
                    + " needs " + expected + " older proofs, has " + older.size());
        }
        Entry e = head.verify(trusted, List.of(new KeyClaim(key, versions.get(0).value())))[0];
        if (e == null && HISTORY_HEAD_NOT_FOUND.enforced()) {
            throw new VerificationException("key is not in the tree");
        }
        if (e.version() != versions.get(0).blockNo() && HISTORY_HEAD_VERSION_MISMATCH.enforced()) {
            throw versionMismatch(e, versions.get(0));
        }
        for (int i = 1; i <= Math.min(expected, older.size()); i++) {
            KeysProof p = older.get(i - 1);
            if (p.blockNo() != e.version() - 1 && HISTORY_OLDER_WRONG_BLOCK.enforced()) {
                throw new VerificationException("the version before block " + e.version() + " must be shown at block "
                        + (e.version() - 1) + ", not " + p.blockNo());
            }
            if (i == versions.size()) {
                // The terminal proof: nothing before the oldest version.
                Entry none = p.verify(trusted, List.of(KeyClaim.absent(key)))[0];
                if (none != null && HISTORY_INCOMPLETE.enforced()) {
                    throw new VerificationException("history stops at " + versions.size() + " of " + limit
                            + " versions but an older one exists");
                }
                return;
            }
            Version v = versions.get(i);
            Entry found = p.verify(trusted, List.of(new KeyClaim(key, v.value())))[0];
            if (found == null && HISTORY_OLDER_NOT_FOUND.enforced()) {
                throw new VerificationException("the key has no entry at block " + p.blockNo());
            }
            if (found.version() >= e.version() && HISTORY_NOT_BACK_IN_TIME.enforced()) {
                throw new VerificationException("versions must go strictly back in time");
            }
            e = found;
            if (e.version() != v.blockNo() && HISTORY_OLDER_VERSION_MISMATCH.enforced()) {
                throw versionMismatch(e, v);
            }
        }
    }

    private static VerificationException versionMismatch(Entry e, Version v) {
        return new VerificationException("version was written at block " + e.version() + ", claim says "
                + v.blockNo());
    }
}
