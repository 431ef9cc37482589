package io.glassledger.core.vectors;

import static io.glassledger.core.vectors.KeysVectors.longOverride;
import static io.glassledger.core.vectors.KeysVectors.override;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import io.glassledger.verify.block.Block;
import io.glassledger.verify.block.BlockSpec;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.entry.Entry;
import io.glassledger.core.postree.LeafNode;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.postree.Node;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.AppendOnlyProof;
import io.glassledger.verify.proof.HistoryProof;
import io.glassledger.verify.proof.KeysProof;
import io.glassledger.verify.proof.LowerProof;
import io.glassledger.verify.proof.Version;
import io.glassledger.core.store.InMemoryNodeStore;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/** history.json and append-only.json. */
final class HistoryAppendVectors {
    private final Fixtures f;

    HistoryAppendVectors(Fixtures f) {
        this.f = f;
    }

    // ---------------------------------------------------------------- history

    VectorFile history() {
        VectorFile file = new VectorFile("history", "verifyHistory",
                "versions are the newest versions of key at the digest, newest first: limit of them, or all if fewer");
        Ledger a = f.a;
        history(file, "full-history", Fixtures.HISTORY_KEY, 10, 12,
                "all five versions of acct/007 (blocks 11, 8, 5 (a deletion), 3, 1)");
        history(file, "limited", Fixtures.HISTORY_KEY, 3, 12, "the newest 3 of 5 versions; older ones exist");
        history(file, "limit-one", Fixtures.HISTORY_KEY, 1, 12, "only the current version");
        history(file, "exact-limit", Fixtures.HISTORY_KEY, 5, 12, "limit equal to the number of versions");
        history(file, "single-version", Fixtures.SINGLE_KEY, 5, 12, "a key written once");
        history(file, "never-written", Fixtures.NEVER_KEY, 5, 12, "no versions: proven absent at the head");
        history(file, "deleted-latest", Fixtures.DELETED_KEY, 5, 12, "the newest version is a deletion");
        history(file, "at-older-digest", Fixtures.HISTORY_KEY, 10, 9, "the history as of the digest of block 9");
        historyRuleCases(file);
        craftedNotBackInTime(file);
        return file;
    }

    private void history(VectorFile file, String name, Bytes key, int limit, long d, String description) {
        Ledger l = f.a;
        Ledger.History h = l.proveHistory(key, limit, d);
        ObjectNode in = Json.object();
        in.set("digest", Json.digest(l.digest(d)));
        Json.putBytes(in, "key", key);
        in.put("limit", limit);
        ArrayNode versions = versions(h.versions());
        in.set("versions", versions);
        byte[] enc = h.proof().encode();
        in.put("proof", Json.hex(enc));
        VectorFile.Case c = file.add(name, "A", description, in);
        int n = versions.size();
        if (n > 0) {
            ArrayNode v = versions.deepCopy();
            changeValue((ObjectNode) v.get(0));
            c.invalid("wrong-value", "the newest version's value changed", versionsOverride(v));
            if (n > 1) {
                v = versions.deepCopy();
                changeValue((ObjectNode) v.get(n - 1));
                c.invalid("wrong-older-value", "the oldest claimed version's value changed", versionsOverride(v));
                v = versions.deepCopy();
                JsonNode first = v.get(0);
                v.set(0, v.get(1));
                v.set(1, first);
                c.invalid("versions-reordered", "the two newest versions swapped", versionsOverride(v));
                v = versions.deepCopy();
                v.remove(n - 1);
                c.invalid("version-dropped", "the oldest version left out of the claim", versionsOverride(v));
                c.invalid("limit-exceeded", "more versions than the limit", longOverride("limit", n - 1));
                v = versions.deepCopy();
                ObjectNode oldest = (ObjectNode) v.get(n - 1);
                oldest.put("blockNo", oldest.get("blockNo").asLong() + 1);
                c.invalidBecause("wrong-older-version-number", "the oldest claimed version's block number raised by "
                        + "one: only the block-number check on older versions (§12 step 5.4) rejects it",
                        versionsOverride(v), "version was written at block");
            }
            headAtOlderBlock(c, key, limit, d, h.versions().get(0).blockNo());
            if (versions.get(0).get("value").isNull()) {
                Ledger.History one = l.proveHistory(key, 1, d);
                ObjectNode o = versionsOverride(Json.array());
                o.put("limit", 1);
                o.put("proof", Json.hex(one.proof().encode()));
                c.invalidBecause("tombstone-latest-claimed-empty", "no versions claimed, with the limit-1 proof whose "
                        + "head resolves the key to its tombstone: only the §12 step 2 check that the claim resolves "
                        + "to no entry rejects it", o, "key has history but none was claimed");
            }
            v = versions.deepCopy();
            ((ObjectNode) v.get(0)).put("blockNo", v.get(0).get("blockNo").asLong() + 1);
            c.invalid("wrong-version-number", "the newest version's block number changed", versionsOverride(v));
            for (int i = 0; i < n; i++) {
                if (versions.get(i).get("value").isNull()) {
                    v = versions.deepCopy();
                    ((ObjectNode) v.get(i)).put("value", "");
                    c.invalid("deletion-as-empty-value", "a deletion claimed as the empty value", versionsOverride(v));
                    break;
                }
            }
            c.invalid("no-versions", "an existing key claimed to have no history", versionsOverride(Json.array()));
            c.invalidBecause("key-over-limit", "the key padded with 00 bytes to 1025 bytes: it routes like the key, "
                    + "but no entry can hold it", override("key", Bytes.wrap(java.util.Arrays.copyOf(key.unsafeArray(),
                            Entry.MAX_KEY_BYTES + 1))), "cannot be an entry");
            c.invalid("wrong-key", "another key with this proof",
                    override("key", KeysVectors.otherPresentKey(l, key, d)));
        } else {
            ArrayNode v = Json.array();
            ObjectNode one = v.addObject();
            one.put("value", "00");
            one.put("blockNo", 1);
            c.invalid("invented-version", "a version claimed for a key that was never written", versionsOverride(v));
            v = Json.array();
            one = v.addObject();
            one.putNull("value");
            one.put("blockNo", 0);
            ObjectNode o = versionsOverride(v);
            o.put("limit", 1);
            c.invalidBecause("never-written-claimed-deleted-at-0", "one deletion at block 0 claimed for a key with no "
                    + "entry, limit 1: only §12 step 4's check that the claim resolves to an entry rejects it (a "
                    + "verifier that reads no entry as version 0 would accept it)", o, "key is not in the tree");
            c.invalid("wrong-key", "a key that has history, with this proof",
                    override("key", Fixtures.HISTORY_KEY));
            ObjectNode o2 = Json.object();
            o2.put("proof", Json.hex(new HistoryProof(h.proof().head(), List.of(h.proof().head())).encode()));
            c.invalidBecause("older-proof-without-versions", "the proof with one older-version proof (the head keys "
                    + "proof again) for a history of no versions: only §12 step 2's rule that n is 0 rejects it", o2,
                    "older-version proofs for a history of no versions");
        }
        if (n == limit && l.history(key, n + 1, d).size() > n) {
            c.invalid("limit-raised", "a larger limit while older versions exist", longOverride("limit", limit + 5));
        }
        c.invalid("limit-zero", null, longOverride("limit", 0));
        c.invalid("stale-digest", "the digest of the block before", override("digest", l.digest(d - 1)));
        c.invalid("other-ledger-digest", "the same block number in an unrelated ledger",
                override("digest", f.other.digest(d)));
        historyProofMutations(c, h.proof(), n, limit);
    }

    /**
     * The key's true history as of the block just before its newest version, proven by a head keys proof for that
     * older block anchored in the digest (form 01) and that history's older keys proofs, also anchored in the digest.
     * Every proof part verifies; only §12 step 1's rule that the head is at the digest's block rejects it, and the
     * history it claims leaves out the newest version.
     */
    private void headAtOlderBlock(VectorFile.Case c, Bytes key, int limit, long d, long newest) {
        if (newest < 1) {
            return;
        }
        long b = newest - 1;
        List<Version> past = f.a.history(key, limit, b);
        KeysProof head = f.a.proveKeys(List.of(key), b, d);
        ObjectNode o = versionsOverride(versions(past));
        o.put("proof", Json.hex(new HistoryProof(head, olderProofs(f.a, key, past, limit, d)).encode()));
        c.invalidBecause("head-at-older-block", "the history as of block " + b + " (before the newest version), its "
                + "head a keys proof for block " + b + " anchored in this digest", o,
                "history must start from the digest's block");
    }

    /** §12's older keys proofs for {@code versions}, each anchored in the digest of block {@code d}. */
    private static List<KeysProof> olderProofs(Ledger l, Bytes key, List<Version> versions, int limit, long d) {
        List<KeysProof> out = new ArrayList<>();
        for (int i = 0; i < HistoryProof.olderCount(versions.size(), limit); i++) {
            out.add(l.proveKeys(List.of(key), versions.get(i).blockNo() - 1, d));
        }
        return out;
    }

    /**
     * Cases on ledger A's key {@link Fixtures#HISTORY_KEY} (versions at blocks 11, 8, 5 (a deletion), 3, 1) that
     * only one §12 rule rejects: an older version shown at a block other than the one just before its successor,
     * a history that stops just after a deletion while its limit asks for more, and a deletion claimed where the
     * key had no entry.
     */
    private void historyRuleCases(VectorFile file) {
        Ledger l = f.a;
        long d = 12;
        Bytes key = Fixtures.HISTORY_KEY;
        List<Version> all = l.history(key, 10, d);
        ObjectNode in = Json.object();
        in.set("digest", Json.digest(l.digest(d)));
        Json.putBytes(in, "key", key);
        in.put("limit", 2);
        in.set("versions", versions(all.subList(0, 2)));
        KeysProof head = l.proveKeys(List.of(key), d, d);
        List<KeysProof> older = olderProofs(l, key, all.subList(0, 2), 2, d);
        in.put("proof", Json.hex(new HistoryProof(head, older).encode()));
        VectorFile.Case c = file.add("two-versions", "A", "the newest two versions of acct/007, limit 2", in);

        // Version 8 is current at every block from 8 to 10: a proof at block 8 shows it as well as one at 10 does.
        List<KeysProof> early = new ArrayList<>(older);
        early.set(0, l.proveKeys(List.of(key), all.get(1).blockNo(), d));
        ObjectNode o = Json.object();
        o.put("proof", Json.hex(new HistoryProof(head, early).encode()));
        c.invalidBecause("older-at-another-block", "the older version shown by a keys proof at block "
                + all.get(1).blockNo() + " (where it is also current) rather than at block " + (all.get(0).blockNo() - 1)
                + ", the block just before its successor: only §12 step 5.1 rejects it (a proof at an earlier block "
                + "could skip versions)", o, "must be shown at block");

        // Two versions under limit 3: the terminal proof at block 7 resolves the claim (key, none) to the tombstone
        // of block 5, an older version that the history leaves out.
        o = Json.object();
        o.put("limit", 3);
        o.put("proof", Json.hex(new HistoryProof(head, olderProofs(l, key, all.subList(0, 2), 3, d)).encode()));
        c.invalidBecause("stops-after-a-deletion", "limit 3 with the newest two versions only; the last keys proof, at "
                + "block " + (all.get(1).blockNo() - 1) + ", resolves the key to its deletion of block "
                + all.get(2).blockNo() + ": only §12 step 5.5's rule that nothing precedes the oldest version rejects "
                + "it", o, "but an older one exists");

        Bytes single = Fixtures.SINGLE_KEY;
        List<Version> one = l.history(single, 5, d);
        Ledger.History h = l.proveHistory(single, 5, d);
        List<Version> claimed = new ArrayList<>(one);
        claimed.add(new Version(null, 0));
        o = Json.object();
        Json.putBytes(o, "key", single);
        o.put("limit", 2);
        o.set("versions", versions(claimed));
        o.put("proof", Json.hex(h.proof().encode()));
        c.invalidBecause("deletion-before-first-write", "acct/021, written once at block " + one.get(0).blockNo()
                + ", claimed with a deletion before it (limit 2), with its limit-5 proof: the keys proof at block "
                + (one.get(0).blockNo() - 1) + " shows the key absent, so only §12 step 5.4's rule that the older "
                + "version is found rejects it", o, "the key has no entry at block");
    }

    /**
     * A three-block ledger built by hand, as a dishonest writer could: block 2's tree holds k = v2 at version 2, and
     * block 1's tree holds k = v9 also at version 2, a version from after its own block. The history claims both;
     * only §12's rule that versions go strictly back in time rejects it.
     */
    private static void craftedNotBackInTime(VectorFile file) {
        Bytes k = Bytes.utf8("k");
        Bytes v2 = Bytes.utf8("v2");
        Bytes v9 = Bytes.utf8("v9");
        Block b0 = new Block(0, Fixtures.GENESIS_TS, Hash.ZERO, List.of(), new TreeMap<>());
        Block b1 = new Block(1, Fixtures.GENESIS_TS, LeafNode.of(List.of(Entry.of(k, v9, 2))).hash(), List.of(),
                new TreeMap<>());
        Block b2 = new Block(2, Fixtures.GENESIS_TS, LeafNode.of(List.of(Entry.of(k, v2, 2))).hash(), List.of(),
                new TreeMap<>());
        Hash upper = Hashing.upperInner(b0.hash(), b1.hash());
        Hash tail = Hashing.digestTail(upper, b2.bodyHash());
        Digest digest = new Digest(2, Hashing.digest(2, b2.lowerRoot(), tail));
        LowerProof claimed = new LowerProof(0, new LowerProof.Boundary(LowerProof.Leaf.claimed(0, 2)));
        KeysProof head = new KeysProof(2, new KeysProof.AtDigest(tail), claimed);
        KeysProof older = new KeysProof(1, new KeysProof.Older(b1.bodyHash(), List.of(b0.hash()), b2.lowerRoot(),
                b2.bodyHash()), claimed);
        ObjectNode in = Json.object();
        in.set("digest", Json.digest(digest));
        Json.putBytes(in, "key", k);
        in.put("limit", 1);
        in.set("versions", versions(List.of(new Version(v2, 2))));
        in.put("proof", Json.hex(new HistoryProof(head, List.of()).encode()));
        VectorFile.Case c = file.add("crafted-three-blocks", "crafted", "a hand-built ledger of blocks 0..2: block 2 "
                + "holds k = v2 (version 2), block 1 holds k = v9, also marked version 2", in);
        ObjectNode o = Json.object();
        o.put("limit", 2);
        o.set("versions", versions(List.of(new Version(v2, 2), new Version(v9, 2))));
        o.put("proof", Json.hex(new HistoryProof(head, List.of(older)).encode()));
        c.invalidBecause("version-not-older", "both versions claimed, the second from block 1's tree: its version (2) "
                + "is not older than its successor's (2)", o, "strictly back in time");
    }

    private void historyProofMutations(VectorFile.Case c, HistoryProof p, int n, int limit) {
        byte[] enc = p.encode();
        c.invalidProof("truncated", "the last byte removed", Tamper.truncated(enc));
        c.invalidProof("trailing-garbage", "one byte 00 appended", Tamper.trailingGarbage(enc));
        KeysProof head = p.head();
        int headLen = head.encode().length;
        int lo = 1 + Tamper.lowerOffset(head);
        int olderCountAt = 1 + headLen;
        int formAt = 2 + ByteWriter.varintSize(head.blockNo());
        for (int at : Tamper.flipPositions(enc.length, 8, 0, 1, 2, formAt, formAt + 1, lo,
                lo + Tamper.layout(head.lower()).symbolsAt(), olderCountAt, olderCountAt + 1)) {
            c.invalidProof("modified-proof[" + at + "]-bit-@" + (at % 8), null, Tamper.flip(enc, at, at % 8));
        }
        c.invalidProof("wrong-proof-type", "type byte 01 (a keys proof) instead of 03", Tamper.splice(enc, 0, 1,
                new byte[] {1}));
        c.invalidProof("head-anchor-form-unknown", "the head keys proof's anchor form byte 02",
                Tamper.splice(enc, formAt, formAt + 1, new byte[] {2}));
        LowerProof owner = head.lower().root() == null ? null : Tamper.ownerPlusOne(head.lower());
        if (owner != null) {
            c.invalidProof("head-owner-out-of-range", "the head entry's owner index raised by one",
                    new HistoryProof(Tamper.withLower(head, owner), p.older()).encode());
        }
        if (!p.older().isEmpty()) {
            List<KeysProof> older = new ArrayList<>(p.older());
            older.set(0, head);
            c.invalidProof("older-is-the-head", "the first older proof replaced by the head keys proof",
                    new HistoryProof(head, older).encode());
            older = new ArrayList<>(p.older());
            older.remove(older.size() - 1);
            c.invalidProof("older-proof-dropped", "the last older-version proof removed",
                    new HistoryProof(head, older).encode());
            older = new ArrayList<>(p.older());
            older.add(older.get(older.size() - 1));
            c.invalidProof("older-proof-repeated", "the last older-version proof given twice",
                    new HistoryProof(head, older).encode());
            if (p.older().size() >= 2) {
                older = new ArrayList<>(p.older());
                older.set(0, p.older().get(1));
                older.set(1, p.older().get(0));
                c.invalidProof("older-proofs-swapped", null, new HistoryProof(head, older).encode());
            }
            int countLen = ByteWriter.varintSize(p.older().size());
            ByteWriter over = new ByteWriter(4);
            over.varint(65537);
            ObjectNode o = Json.object();
            o.put("proof", Json.hex(Tamper.splice(enc, olderCountAt, olderCountAt + countLen, over.toByteArray())));
            c.invalidBecause("older-count-over-limit", "the older-proof count written as 65537, one over its limit "
                    + "65536 (the proofs that follow unchanged)", o, "exceeds limit 65536");
            byte[] nm = Tamper.nonMinimalVarint(enc, olderCountAt);
            c.invalidProof("non-minimal-varint", "the older-proof count with a redundant 0x80 0x00 ending", nm);
        }
    }

    private static ArrayNode versions(List<Version> vs) {
        ArrayNode a = Json.array();
        for (Version v : vs) {
            ObjectNode o = a.addObject();
            Json.putBytes(o, "value", v.value());
            o.put("blockNo", v.blockNo());
        }
        return a;
    }

    private static void changeValue(ObjectNode v) {
        Bytes old = Json.bytes(v.get("value"));
        v.put("value", old == null ? "00" : KeysVectors.appendByte(old).hex());
    }

    private static ObjectNode versionsOverride(ArrayNode v) {
        ObjectNode o = Json.object();
        o.set("versions", v);
        return o;
    }

    // ---------------------------------------------------------------- append-only

    VectorFile appendOnly() {
        VectorFile file = new VectorFile("append-only", "verifyAppendOnly",
                "the ledger at digest older (block b1) is a prefix of the ledger at digest newer (block b2 > b1)");
        long[][] pairs = {{0, 1}, {0, 12}, {1, 2}, {1, 12}, {3, 7}, {4, 8}, {5, 12}, {6, 11}, {7, 8}, {8, 12}, {11, 12}};
        for (long[] p : pairs) {
            appendOnly(file, "A-" + p[0] + "-" + p[1], "A", f.a, f.a, p[0], p[1],
                    "ledger A from block " + p[0] + " to block " + p[1]);
        }
        VectorFile.Case fork = appendOnly(file, "fork-shared-prefix", "A-fork", f.a, f.fork, 3, 9,
                "A-fork shares genesis and blocks 1..4 with A: A's digest at 3 is a prefix of A-fork's at 9");
        fork.invalid("fork-after-divergence", "A's digest at block 6 and A-fork's at 9, with A-fork's 6->9 proof",
                override("older", f.a.digest(6), "proof", Json.hex(f.fork.proveAppendOnly(6, 9).encode())));
        fork.invalid("fork-proof-from-a", "A's 3->9 proof against A-fork's digest at 9",
                override("proof", Json.hex(f.a.proveAppendOnly(3, 9).encode())));
        forkBeforeSameBlock(file);
        return file;
    }

    /**
     * Two ledgers that differ in block 1 only (its timestamp) and hold the same blocks 2 and 3, byte for byte: the
     * older ledger's digest at block 3 is not a prefix of the newer's at 4, yet block 3's hash is in the newer upper
     * tree where it belongs. A proof with the older ledger's upper root passes every check but the consistency
     * proof's first root (§7.2 step 6): its hashes rebuild the newer ledger's tree of blocks 0..2.
     */
    private static void forkBeforeSameBlock(VectorFile file) {
        Ledger newer = Ledger.openOrCreate(new InMemoryNodeStore(), Fixtures.SMALL, Fixtures.GENESIS_TS);
        Ledger older = Ledger.openOrCreate(new InMemoryNodeStore(), Fixtures.SMALL, Fixtures.GENESIS_TS);
        List<Mutation> write = List.of(Mutation.put(Bytes.utf8("k"), Bytes.utf8("v")));
        newer.append(List.of(new BlockSpec(Fixtures.GENESIS_TS + 1, List.of(), List.of())));
        older.append(List.of(new BlockSpec(Fixtures.GENESIS_TS + 5, List.of(), List.of())));
        for (Ledger l : List.of(newer, older)) {
            l.append(List.of(new BlockSpec(Fixtures.GENESIS_TS + 10, List.of(), List.of())));
            l.append(List.of(new BlockSpec(Fixtures.GENESIS_TS + 20, List.of(), write)));
        }
        newer.append(List.of(new BlockSpec(Fixtures.GENESIS_TS + 30, List.of(), write)));
        if (!newer.block(3).hash().equals(older.block(3).hash()) || newer.digest(3).equals(older.digest(3))) {
            throw new IllegalStateException("the two ledgers must differ before block 3 and agree on it");
        }
        ObjectNode in = Json.object();
        in.set("older", Json.digest(newer.digest(3)));
        in.set("newer", Json.digest(newer.digest(4)));
        AppendOnlyProof p = newer.proveAppendOnly(3, 4);
        in.put("proof", Json.hex(p.encode()));
        VectorFile.Case c = file.add("same-block-3-after-other-prefix", "crafted", "a four-block ledger whose blocks "
                + "1 and 2 are empty and block 3 writes k = v; from block 3 to block 4", in);
        AppendOnlyProof forged = new AppendOnlyProof(3, 4, upperRoot(older, 3), p.lowerRoot1(), p.bodyHash1(),
                p.lowerRoot2(), p.bodyHash2(), p.consistency(), p.inclusion());
        c.invalidBecause("older-prefix-forked", "the digest at block 3 of a ledger that differs in block 1 (its "
                + "timestamp) and has the same blocks 2 and 3, with the proof's upperRoot1 its own: only the check "
                + "that the consistency proof rebuilds upperRoot1 (§7.2 step 6) rejects it", override("older",
                        older.digest(3), "proof", Json.hex(forged.encode())), "does not match the first tree");
    }

    private VectorFile.Case appendOnly(VectorFile file, String name, String ledgerName, Ledger l1, Ledger l2,
            long b1, long b2, String description) {
        AppendOnlyProof p = l2.proveAppendOnly(b1, b2);
        ObjectNode in = Json.object();
        in.set("older", Json.digest(l1.digest(b1)));
        in.set("newer", Json.digest(l2.digest(b2)));
        byte[] enc = p.encode();
        in.put("proof", Json.hex(enc));
        VectorFile.Case c = file.add(name, ledgerName, description, in);
        c.expect("upperRoot1", upperRoot(l1, b1).hex());
        c.expect("upperRoot2", upperRoot(l2, b2).hex());
        c.invalid("swapped-digests", "older and newer exchanged",
                override("older", l2.digest(b2), "newer", l1.digest(b1)));
        c.invalid("equal-digests", "newer equal to older", override("newer", l1.digest(b1)));
        if (b1 > 0) {
            c.invalid("stale-digest", "older is the digest of the block before b1",
                    override("older", l1.digest(b1 - 1)));
        }
        if (b2 - 1 > b1) {
            c.invalid("stale-newer-digest", "newer is the digest of the block before b2",
                    override("newer", l2.digest(b2 - 1)));
        }
        if (l1 == l2 && b1 == 1 && b2 == 12) {
            // Digests whose block number is not the block their root is of, as a dishonest server could sign them.
            c.invalidBecause("older-digest-mislabeled", "older is block 1's root labelled block 0", override("older",
                    new Digest(0, l1.digest(1).root())), "proof is for blocks");
            c.invalidBecause("newer-digest-mislabeled", "newer is block 12's root labelled block 13",
                    override("newer", new Digest(13, l2.digest(12).root())), "proof is for blocks");
        }
        if (l1 == l2 && b1 == 0 && b2 == 12) {
            Block g = l1.block(0);
            Hash u = g.hash();
            AppendOnlyProof forged = new AppendOnlyProof(0, 12, u, p.lowerRoot1(), p.bodyHash1(), p.lowerRoot2(),
                    p.bodyHash2(), p.consistency(), p.inclusion());
            c.invalidBecause("genesis-digest-with-upper-root", "older is a digest of block 0 forged with a non-zero "
                    + "upper root (the genesis block's hash), and the proof's upperRoot1 that upper root: a genesis "
                    + "digest that is not the ledger's, which only the rule that upperRoot1 is ZERO for b1 = 0 rejects",
                    override("older", new Digest(0, Hashing.digest(0, g.lowerRoot(), u, g.bodyHash())), "proof",
                            Json.hex(forged.encode())), "the first upper tree is empty");
        }
        c.invalid("other-ledger-digest", "newer is the same block number of an unrelated ledger",
                override("newer", f.other.digest(b2)));
        c.invalid("other-ledger-older-digest", "older is the same block number of an unrelated ledger",
                override("older", f.other.digest(b1)));
        c.invalidProof("truncated", "the last byte removed", Tamper.truncated(enc));
        c.invalidProof("trailing-garbage", "one byte 00 appended", Tamper.trailingGarbage(enc));
        c.invalidProof("wrong-proof-type", "type byte 03 (a history proof) instead of 02", Tamper.splice(enc, 0, 1,
                new byte[] {3}));
        int b2At = 1 + ByteWriter.varintSize(b1);
        int u1At = b2At + ByteWriter.varintSize(b2);
        int consAt = u1At + 5 * 32;
        int inclAt = consAt + ByteWriter.varintSize(p.consistency().size()) + 32 * p.consistency().size();
        for (int at : Tamper.flipPositions(enc.length, 6, 0, 1, b2At, u1At, u1At + 32, u1At + 64, u1At + 96,
                u1At + 128, consAt, inclAt, inclAt + 1)) {
            c.invalidProof("modified-proof[" + at + "]-bit-@" + (at % 8), null, Tamper.flip(enc, at, at % 8));
        }
        c.invalidProof("non-minimal-varint", "b2 with a redundant 0x80 0x00 ending", Tamper.nonMinimalVarint(enc, b2At));
        List<Hash> cons = p.consistency();
        List<Hash> incl = p.inclusion();
        List<Hash> more = new ArrayList<>(cons);
        more.add(Hash.ZERO);
        c.invalidProof(b1 == 0 ? "consistency-from-genesis" : "consistency-extra-hash",
                b1 == 0 ? "a consistency hash where the first upper tree is empty" : "a zero hash appended",
                with(p, more, incl));
        if (!cons.isEmpty()) {
            c.invalidProof("consistency-dropped-hash", "the last consistency hash removed",
                    with(p, cons.subList(0, cons.size() - 1), incl));
        }
        more = new ArrayList<>(incl);
        more.add(Hash.ZERO);
        c.invalidProof("inclusion-extra-hash", "a zero hash appended to the inclusion path", with(p, cons, more));
        if (!incl.isEmpty()) {
            c.invalidProof("inclusion-dropped-hash", "the last inclusion hash removed",
                    with(p, cons, incl.subList(0, incl.size() - 1)));
        }
        if (b1 > 0) {
            c.invalidProof("consistency-and-inclusion-swapped", null, with(p, incl, cons));
            // A consistency hash that only the second root depends on: the first root still matches, and only the
            // comparison of the two paths' roots rejects it.
            for (int i = 0; i < cons.size(); i++) {
                List<Hash> changed = new ArrayList<>(cons);
                changed.set(i, Hash.of(Tamper.flip(cons.get(i).toByteArray(), 0, 0), 0));
                ObjectNode o = proofOverride(with(p, changed, incl));
                if (c.rejects(o) && VectorVerifier.rejection("verifyAppendOnly", Json.merge(c.input, o)).getMessage()
                        .contains("paths disagree")) {
                    c.invalid("consistency-hash-changed", "bit 0 of consistency hash " + i + " flipped, a hash only "
                            + "the second root depends on", o);
                    break;
                }
            }
        }
        if (b1 == 1 && b2 == 2) {
            List<Hash> over = new ArrayList<>();
            while (over.size() < 129) {
                over.add(Hash.ZERO);
            }
            c.invalidBecause("consistency-over-limit", "129 zero consistency hashes, one over the limit 128",
                    proofOverride(with(p, over, incl)), "exceeds limit 128");
            c.invalidBecause("inclusion-over-limit", "129 zero inclusion hashes, one over the limit 128",
                    proofOverride(with(p, cons, over)), "exceeds limit 128");
        }
        c.invalidProof("block-fields-swapped", "lowerRoot1, bodyHash1 and lowerRoot2, bodyHash2 exchanged",
                new AppendOnlyProof(p.b1(), p.b2(), p.upperRoot1(), p.lowerRoot2(), p.bodyHash2(), p.lowerRoot1(),
                        p.bodyHash1(), cons, incl).encode());
        return c;
    }

    private static ObjectNode proofOverride(byte[] proof) {
        ObjectNode o = Json.object();
        o.put("proof", Json.hex(proof));
        return o;
    }

    private static byte[] with(AppendOnlyProof p, List<Hash> cons, List<Hash> incl) {
        return new AppendOnlyProof(p.b1(), p.b2(), p.upperRoot1(), p.lowerRoot1(), p.bodyHash1(), p.lowerRoot2(),
                p.bodyHash2(), cons, incl).encode();
    }

    /** Root of the upper tree over blocks 0..b-1 of l. */
    static Hash upperRoot(Ledger l, long b) {
        if (b == 0) {
            return Hash.ZERO;
        }
        List<Hash> leaves = new ArrayList<>();
        for (long i = 0; i < b; i++) {
            leaves.add(l.block(i).hash());
        }
        return mth(leaves);
    }

    /** RFC 9162 MTH with this format's node hash; the naive reference the vectors are checked against. */
    static Hash mth(List<Hash> d) {
        if (d.size() == 1) {
            return d.get(0);
        }
        int k = Integer.highestOneBit(d.size() - 1);
        return io.glassledger.verify.hash.Hashing.upperInner(mth(d.subList(0, k)), mth(d.subList(k, d.size())));
    }
}
