package io.glassledger.core.vectors;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import io.glassledger.verify.block.Block;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.KeysProof;
import io.glassledger.verify.proof.LowerProof;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

/** current-value.json, non-existence.json, inclusion.json and batch.json: everything proven by a KeysProof. */
final class KeysVectors {
    private final Fixtures f;

    KeysVectors(Fixtures f) {
        this.f = f;
    }

    // ---------------------------------------------------------------- current value

    VectorFile currentValue() {
        VectorFile file = new VectorFile("current-value", "verifyCurrentValue",
                "key has value as its latest value at the digest's block; proof.blockNo == digest.blockNo");
        Ledger a = f.a;
        VectorFile.Case c = current(file, "history-key-at-head", "A", a, Fixtures.HISTORY_KEY, 12,
                "a key with five versions, at the head of A");
        c.invalid("deleted-key", "a tombstoned key has no current value",
                override("key", Fixtures.DELETED_KEY, "value", Bytes.utf8("acct/013"), "proof",
                        proof(a, List.of(Fixtures.DELETED_KEY), 12, 12)));
        c.invalid("inclusion-proof-of-older-block", "a valid inclusion proof of the same value at block 11: true, "
                + "but not a current-value proof", override("proof", proof(a, List.of(Fixtures.HISTORY_KEY), 11, 12)));
        c.invalid("absent-key", "the proof routes the key to a neighbour entry",
                override("key", Fixtures.NEVER_KEY, "value", Bytes.utf8("x"), "proof",
                        proof(a, List.of(Fixtures.NEVER_KEY), 12, 12)));
        KeysProof p = KeysProof.decode(Json.unhex(c.input.get("proof").asText()));
        if (Tamper.innerRanges(p.lower()).stream().noneMatch(Tamper.InnerRange::boundFromAncestorNode)) {
            throw new IllegalStateException("no separator of " + c.name + " is encoded relative to a range bound "
                    + "from an ancestor node");
        }
        c.invalidBecause("nested-too-deep", "a lower proof nested 513 parts deep (the limit is 512): a leaf whose "
                + "routing tree is a chain of 512 Inner parts",
                override("proof", Json.hex(Tamper.withLower(p, Tamper.nestedTooDeep(513)).encode())), "nested too deep");
        c.invalidProof("expanded-unreached-subtree", "a proof for two keys used for one: the second path is "
                + "expanded though no claim reaches it",
                Json.unhex(proof(a, List.of(Fixtures.HISTORY_KEY, Fixtures.FF_KEY), 12, 12)));
        c.invalidProof("expanded-unreached-neighbour", "a proof for this key and an absent one used for this key "
                + "alone: the absent key's path, ending on a hashed-form neighbour, is expanded though no claim reaches it",
                Json.unhex(proof(a, List.of(Fixtures.HISTORY_KEY, Fixtures.NEVER_KEY), 12, 12)));
        current(file, "empty-value", "A", a, Fixtures.EMPTY_VALUE_KEY, 12, "the empty value is a value, not a "
                + "tombstone (value varint 1)");
        current(file, "binary-key", "A", a, Fixtures.FF_KEY, 12, "key 0xff: bytes compare unsigned");
        current(file, "long-key", "A", a, Fixtures.LONG_KEY, 12, "a 305-byte key (two-byte length varint)");
        current(file, "older-digest", "A", a, Fixtures.HISTORY_KEY, 4, "current value relative to the digest of "
                + "block 4 (upper tree of 4 blocks)");
        current(file, "genesis-successor", "A", a, Fixtures.SINGLE_KEY, 1, "block 1: upper tree of one block")
                .invalid("value-claimed-on-empty-tree", "the genesis digest and its empty-tree proof, with a value claimed",
                        override("digest", a.digest(0), "proof", proof(a, List.of(Fixtures.SINGLE_KEY), 0, 0)));
        current(file, "default-params", "C", f.dflt, Bytes.utf8("item/00700"), 2, "ledger with TreeParams.DEFAULT");
        current(file, "neighbours-1mib-values", "E", f.big, Fixtures.BIG_SMALL_KEY, 1, "a one-byte value whose "
                + "neighbours hold 1 MiB values: the proof carries the claimed value's entry only, never a neighbour's "
                + "value");
        return file;
    }

    private VectorFile.Case current(VectorFile file, String name, String ledgerName, Ledger l, Bytes key, long d,
            String description) {
        Bytes value = l.get(key, d).orElseThrow();
        KeysProof p = l.proveKeys(List.of(key), d, d);
        ObjectNode in = Json.object();
        in.set("digest", Json.digest(l.digest(d)));
        Json.putBytes(in, "key", key);
        Json.putBytes(in, "value", value);
        in.put("proof", Json.hex(p.encode()));
        VectorFile.Case c = file.add(name, ledgerName, description, in);
        expectRoots(c, l, d, d);
        c.invalid("wrong-value", null, override("value", appendByte(value)));
        c.invalid("wrong-key", "another key that is present, with this key's proof",
                override("key", otherPresentKey(l, key, d)));
        if (d > 0) {
            c.invalid("stale-digest", "the digest of the previous block", override("digest", l.digest(d - 1)));
        }
        if (d < l.digest().blockNo()) {
            c.invalid("newer-digest", "a current-value proof is only valid at its own block",
                    override("digest", l.digest(d + 1)));
        }
        c.invalid("other-ledger-digest", "the same block number in an unrelated ledger",
                override("digest", f.other.digest(d)));
        c.invalidBecause("key-over-limit", "the key padded with 00 bytes to 1025 bytes: it routes like the key, but "
                + "no entry can hold it", override("key", Bytes.wrap(java.util.Arrays.copyOf(key.unsafeArray(),
                        Entry.MAX_KEY_BYTES + 1))), "cannot be an entry");
        keysProofMutations(c, p, l, d, d, List.of(key));
        return c;
    }

    // ---------------------------------------------------------------- non-existence

    VectorFile nonExistence() {
        VectorFile file = new VectorFile("non-existence", "verifyNonExistence",
                "key has no value (never written, or deleted) at the digest's block; proof.blockNo == digest.blockNo");
        Ledger a = f.a;
        absent(file, "between-keys", "A", a, Fixtures.NEVER_KEY, 12, "routes to a neighbour entry shown in hashed form")
                .invalidProof("expanded-unreached-neighbour", "a proof for this key and another absent key, used for "
                        + "this key alone: the second path is expanded though no claim reaches it",
                        Json.unhex(proof(a, List.of(Fixtures.NEVER_KEY, Fixtures.AFTER_ALL), 12, 12)));
        absent(file, "before-all-keys", "A", a, Fixtures.BEFORE_ALL, 12, "key 0x00 sorts before every key");
        absent(file, "after-all-keys", "A", a, Fixtures.AFTER_ALL, 12, "key ffffff sorts after every key");
        absent(file, "deleted-key", "A", a, Fixtures.DELETED_KEY, 12,
                "a tombstone: the entry is in claimed form and hashed with no value");
        VectorFile.Case t = absent(file, "next-to-tombstone", "A", a, Bytes.utf8("acct/0130"), 12, "routes to the "
                + "tombstone of acct/013, shown in hashed form with value marker 00 (so its hashed-form-value-marker-2 "
                + "is the marker of a tombstone)");
        if (Tamper.replaceFirst(decode(t).lower(), x -> x instanceof LowerProof.Leaf l && !l.claimed()
                ? (l.valueHash() == null ? x : null) : null) == null) {
            throw new IllegalStateException("next-to-tombstone does not route to a tombstone");
        }
        absent(file, "empty-tree-genesis", "A", a, Fixtures.NEVER_KEY, 0,
                "block 0 (genesis) has the empty lower tree: lower proof is the single byte 00");
        absent(file, "written-later", "A", a, Fixtures.LATE_KEY, 9, "absent at block 9, written in block 10")
                .invalid("older-block-proof-at-head", "the key's absence at block 9, proven against the head digest "
                        + "(block 12), where it is present", override("digest", a.digest(12), "proof",
                                proof(a, List.of(Fixtures.LATE_KEY), 9, 12)));
        absent(file, "default-params", "C", f.dflt, Bytes.utf8("item/00001"), 2, "ledger with TreeParams.DEFAULT");
        absent(file, "neighbours-1mib-values", "E", f.big, Fixtures.BIG_ABSENT_KEY, 1, "an absent key that routes to "
                + "a neighbour holding a 1 MiB value: the neighbour is shown in hashed form, its key and value hash");
        return file;
    }

    private VectorFile.Case absent(VectorFile file, String name, String ledgerName, Ledger l, Bytes key, long d,
            String description) {
        KeysProof p = l.proveKeys(List.of(key), d, d);
        ObjectNode in = Json.object();
        in.set("digest", Json.digest(l.digest(d)));
        Json.putBytes(in, "key", key);
        in.put("proof", Json.hex(p.encode()));
        VectorFile.Case c = file.add(name, ledgerName, description, in);
        expectRoots(c, l, d, d);
        if (d > 0) {
            Bytes present = otherPresentKey(l, key, d);
            c.invalid("wrong-key", "a present key with this proof", override("key", present));
            c.invalid("present-key", "a present key with its own proof",
                    override("key", present, "proof", proof(l, List.of(present), d, d)));
            c.invalid("stale-digest", "the digest of the previous block", override("digest", l.digest(d - 1)));
        }
        if (d < l.digest().blockNo()) {
            c.invalid("newer-digest", "a non-existence proof is only valid at its own block",
                    override("digest", l.digest(d + 1)));
        }
        c.invalid("other-ledger-digest", "the same block number in an unrelated ledger",
                override("digest", f.other.digest(d)));
        keysProofMutations(c, p, l, d, d, List.of(key));
        return c;
    }

    // ---------------------------------------------------------------- inclusion

    VectorFile inclusion() {
        VectorFile file = new VectorFile("inclusion", "verifyInclusion",
                "key had value in the state at block blockNo of the ledger the digest names (blockNo <= digest)");
        Ledger a = f.a;
        included(file, "block-3-in-12", a, Fixtures.HISTORY_KEY, 3, 12, "an old version, through the upper tree");
        included(file, "block-11-in-12", a, Fixtures.LONG_KEY, 11, 12, "the last block before the digest's");
        included(file, "block-12-in-12", a, Fixtures.SINGLE_KEY, 12, 12, "at the digest's own block: no upper path");
        included(file, "block-1-in-8", a, Fixtures.HISTORY_KEY, 1, 8, "upper tree of 8 blocks (a power of two)");
        included(file, "block-7-in-8", a, Fixtures.FF_KEY, 7, 8, "rightmost leaf of an upper tree of 8 blocks");
        included(file, "block-1-in-2", a, Fixtures.EMPTY_VALUE_KEY, 1, 2, "upper tree of 2 blocks");
        included(file, "block-4-in-11", a, Fixtures.LONG_KEY, 4, 11, "upper tree of 11 blocks");
        included(file, "unchanged-state-block-1-in-2", "D", f.still, Bytes.utf8("acct/005"), 1, 2, "block 2 writes "
                + "nothing, so blocks 1 and 2 have the same lower root: only the anchor's form tells which block a "
                + "proof is for (see tail-form-for-older-block)");
        return file;
    }

    private void included(VectorFile file, String name, Ledger l, Bytes key, long b, long d, String description) {
        included(file, name, "A", l, key, b, d, description);
    }

    private void included(VectorFile file, String name, String ledgerName, Ledger l, Bytes key, long b, long d,
            String description) {
        Bytes value = l.get(key, b).orElseThrow();
        KeysProof p = l.proveKeys(List.of(key), b, d);
        ObjectNode in = Json.object();
        in.set("digest", Json.digest(l.digest(d)));
        in.put("blockNo", b);
        Json.putBytes(in, "key", key);
        Json.putBytes(in, "value", value);
        in.put("proof", Json.hex(p.encode()));
        VectorFile.Case c = file.add(name, ledgerName, description, in);
        expectRoots(c, l, b, d);
        c.invalid("wrong-value", null, override("value", appendByte(value)));
        c.invalid("wrong-key", "another present key with this proof", override("key", otherPresentKey(l, key, b)));
        Bytes head = l.get(key, l.digest().blockNo()).orElse(null);
        if (head != null && !head.equals(value)) {
            c.invalid("value-from-other-block", "the key's value at the head, not at blockNo",
                    override("value", head));
        }
        c.invalid("wrong-block-number", "the claim names another block than the proof", longOverride("blockNo", b + 1));
        if (d - 1 >= b) {
            c.invalid("stale-digest", "the digest of the block before", override("digest", l.digest(d - 1)));
        }
        if (b > 0) {
            c.invalid("digest-before-block", "a digest older than the block the proof is for",
                    override("digest", l.digest(b - 1)));
        }
        c.invalid("other-ledger-digest", "the same block number in an unrelated ledger",
                override("digest", f.other.digest(d)));
        keysProofMutations(c, p, l, b, d, List.of(key));
    }

    // ---------------------------------------------------------------- batch

    VectorFile batch() {
        VectorFile file = new VectorFile("batch", "verifyBatch",
                "every claim (key, value or null for no value) holds in the state at block blockNo; claims in any order");
        Ledger a = f.a;
        List<Bytes> mixed = new ArrayList<>();
        Random rnd = new Random(0xBA7C4L);
        List<Bytes> universe = Fixtures.universe();
        while (mixed.size() < 14) {
            Bytes k = universe.get(rnd.nextInt(universe.size()));
            if (!mixed.contains(k)) {
                mixed.add(k);
            }
        }
        for (Bytes k : List.of(Fixtures.HISTORY_KEY, Fixtures.NEVER_KEY, Bytes.utf8("acct/0005"), Bytes.utf8("acct/1"),
                Fixtures.BANANA_PREFIX, Fixtures.BANANA, Fixtures.LATE_KEY, Bytes.utf8("q"))) {
            if (!mixed.contains(k)) {
                mixed.add(k);
            }
        }
        VectorFile.Case c = batch(file, "mixed-block-6-in-12", "A", a, mixed, 6, 12, false,
                "present, never-written, deleted (acct/007 at block 6) and two claims reaching one entry");
        batchInvalid(c, a, mixed, 6, 12);
        batch(file, "mixed-block-6-in-12-unsorted", "A", a, mixed, 6, 12, true,
                "the same claims and proof as mixed-block-6-in-12, claims shuffled: order does not matter");
        List<Bytes> head = List.of(Fixtures.BEFORE_ALL, Fixtures.AFTER_ALL, Fixtures.FF_KEY, Fixtures.LONG_KEY,
                Fixtures.EMPTY_VALUE_KEY, Fixtures.DELETED_KEY, Fixtures.BANANA_PREFIX, Fixtures.BANANA,
                Bytes.utf8("pa"), Bytes.utf8("pab"));
        VectorFile.Case h = batch(file, "edge-keys-at-head", "A", a, head, 12, 12, false,
                "first and last positions, binary, long, empty-value, deleted and prefix keys, at the digest's block");
        batchInvalid(h, a, head, 12, 12);
        batch(file, "single-claim", "A", a, List.of(Fixtures.SINGLE_KEY), 2, 12, false, "a batch of one");
        VectorFile.Case g = batch(file, "genesis-empty-tree", "A", a, List.of(Fixtures.NEVER_KEY, Fixtures.SINGLE_KEY),
                0, 12, false, "block 0 has the empty tree: every claim must be absent");
        ArrayNode valued = ((ArrayNode) g.input.get("claims")).deepCopy();
        ((ObjectNode) valued.get(1)).put("value", "00");
        g.invalid("value-claimed-on-empty-tree", "a value claimed in the empty tree", claimsOverride(valued));
        g.invalidBecause("no-claims", "an empty claim list: in the empty tree, only the rule that a proof has claims "
                + "rejects it", claimsOverride(Json.array()), "no claims");
        g.invalid("other-ledger-digest", "the same block number in an unrelated ledger",
                override("digest", f.other.digest(12)));
        keysProofMutations(g, decode(g), a, 0, 12, List.of(Fixtures.NEVER_KEY, Fixtures.SINGLE_KEY));
        List<Bytes> def = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            def.add(Bytes.utf8(String.format("item/%05d", i * 301)));
        }
        VectorFile.Case d = batch(file, "default-params", "C", f.dflt, def, 1, 2, false,
                "ledger with TreeParams.DEFAULT");
        batchInvalid(d, f.dflt, def, 1, 2);
        return file;
    }

    private VectorFile.Case batch(VectorFile file, String name, String ledgerName, Ledger l, List<Bytes> keys,
            long b, long d, boolean shuffle, String description) {
        List<Bytes> order = new ArrayList<>(keys);
        if (shuffle) {
            Collections.shuffle(order, new Random(7));
        }
        KeysProof p = l.proveKeys(keys, b, d);
        ObjectNode in = Json.object();
        in.set("digest", Json.digest(l.digest(d)));
        in.put("blockNo", b);
        in.set("claims", claims(l, order, b));
        in.put("proof", Json.hex(p.encode()));
        VectorFile.Case c = file.add(name, ledgerName, description, in);
        expectRoots(c, l, b, d);
        return c;
    }

    private void batchInvalid(VectorFile.Case c, Ledger l, List<Bytes> keys, long b, long d) {
        KeysProof p = decode(c);
        ArrayNode claims = (ArrayNode) c.input.get("claims");
        int present = -1;
        int absent = -1;
        for (int i = 0; i < claims.size(); i++) {
            if (claims.get(i).get("value").isNull()) {
                absent = absent < 0 ? i : absent;
            } else {
                present = present < 0 ? i : present;
            }
        }
        ArrayNode wrong = claims.deepCopy();
        ((ObjectNode) wrong.get(present)).put("value",
                appendByte(Json.bytes(claims.get(present).get("value"))).hex());
        c.invalid("wrong-value", "one present claim with a changed value", claimsOverride(wrong));
        ArrayNode nulled = claims.deepCopy();
        ((ObjectNode) nulled.get(present)).putNull("value");
        c.invalid("present-claimed-absent", "a present key claimed to have no value", claimsOverride(nulled));
        if (absent >= 0) {
            ArrayNode valued = claims.deepCopy();
            ((ObjectNode) valued.get(absent)).put("value", "00");
            c.invalid("absent-claimed-present", "a key without value claimed to have one", claimsOverride(valued));
        }
        ArrayNode dropped = claims.deepCopy();
        dropped.remove(present);
        c.invalid("claim-dropped", "one claim fewer than the proof covers: its path is expanded for no claim",
                claimsOverride(dropped));
        for (int i = 0; i < claims.size(); i++) {
            if (!claims.get(i).get("value").isNull()) {
                continue;
            }
            ArrayNode fewer = claims.deepCopy();
            fewer.remove(i);
            if (!fewer.isEmpty() && c.rejects(claimsOverride(fewer))) {
                c.invalid("absent-claim-dropped", "an absent claim left out: its path, ending on a hashed-form "
                        + "neighbour, is expanded for no claim", claimsOverride(fewer));
                break;
            }
        }
        ArrayNode added = claims.deepCopy();
        ObjectNode extra = added.addObject();
        extra.put("key", otherPresentKey(l, Json.bytes(claims.get(present).get("key")), b, keys).hex());
        extra.put("value", l.get(Json.bytes(extra.get("key")), b).orElseThrow().hex());
        c.invalid("claim-added", "a true claim the proof does not cover", claimsOverride(added));
        ArrayNode dup = claims.deepCopy();
        dup.add(claims.get(present).deepCopy());
        c.invalid("duplicate-claim", "the same claim twice", claimsOverride(dup));
        for (int i = 0; i < claims.size(); i++) {
            if (Json.bytes(claims.get(i).get("key")).equals(Fixtures.BANANA_PREFIX)) {
                ArrayNode v = claims.deepCopy();
                ((ObjectNode) v.get(i)).put("value", "00");
                c.invalid("non-owner-claimed-present", "fruit/b shares its entry with fruit/banana, which owns it; "
                        + "a value claimed for fruit/b", claimsOverride(v));
            }
        }
        if (absent >= 0) {
            dup = claims.deepCopy();
            dup.add(claims.get(absent).deepCopy());
            c.invalid("duplicate-absent-claim", "the same absent claim twice", claimsOverride(dup));
        }
        c.invalid("no-claims", "an empty claim list", claimsOverride(Json.array()));
        if (d > 0) {
            c.invalid("stale-digest", "the digest of the block before", override("digest", l.digest(d - 1)));
        }
        c.invalid("other-ledger-digest", "the same block number in an unrelated ledger",
                override("digest", f.other.digest(d)));
        c.invalid("wrong-block-number", "the claim names another block than the proof", longOverride("blockNo", b + 1));
        keysProofMutations(c, p, l, b, d, keys);
    }

    private static ArrayNode claims(Ledger l, List<Bytes> keys, long b) {
        ArrayNode a = Json.array();
        for (Bytes k : keys) {
            ObjectNode o = a.addObject();
            Json.putBytes(o, "key", k);
            Json.putBytes(o, "value", l.get(k, b).orElse(null));
        }
        return a;
    }

    private static ObjectNode claimsOverride(ArrayNode claims) {
        ObjectNode o = Json.object();
        o.set("claims", claims);
        return o;
    }

    // ---------------------------------------------------------------- shared

    /**
     * The proof-byte mutations every keys proof gets: truncation, trailing garbage, sampled bit flips, and one of
     * each canonical-form violation that applies.
     */
    static void keysProofMutations(VectorFile.Case c, KeysProof p, Ledger l, long b, long d, List<Bytes> keys) {
        byte[] enc = p.encode();
        c.invalidProof("truncated", "the last byte removed", Tamper.truncated(enc));
        c.invalidProof("trailing-garbage", "one byte 00 appended", Tamper.trailingGarbage(enc));
        int formAt = 1 + ByteWriter.varintSize(p.blockNo());
        int anchorAt = formAt + 1;
        int lo = Tamper.lowerOffset(p);
        List<Integer> landmarks = new ArrayList<>(List.of(0, 1, formAt, anchorAt));
        if (p.anchor() instanceof KeysProof.Older o) {
            int pathCountAt = anchorAt + 32;
            int pathAt = pathCountAt + ByteWriter.varintSize(o.upperPath().size());
            int digestLowerAt = pathAt + 32 * o.upperPath().size();
            landmarks.addAll(List.of(pathCountAt, o.upperPath().isEmpty() ? -1 : pathAt, digestLowerAt,
                    digestLowerAt + 32));
        }
        Tamper.LowerLayout lay = Tamper.layout(p.lower());
        landmarks.addAll(List.of(lo, lo + lay.countAt(), lo + lay.symbolsAt(), lo + lay.payloadAt() - 1,
                lo + lay.payloadAt()));
        for (int at : Tamper.flipPositions(enc.length, 10, landmarks.stream().mapToInt(Integer::intValue).toArray())) {
            c.invalidProof("modified-proof[" + at + "]-bit-@" + (at % 8), null, Tamper.flip(enc, at, at % 8));
        }
        c.invalidProof("non-minimal-varint", "the block number varint with a redundant 0x80 0x00 ending",
                Tamper.nonMinimalVarint(enc, 1));
        c.invalidProof("wrong-proof-type", "type byte 02 (an append-only proof) instead of 01",
                Tamper.splice(enc, 0, 1, new byte[] {2}));
        c.invalidBecause("anchor-form-unknown", "anchor form byte 02: only 00 and 01 exist",
                proofOverride(Tamper.splice(enc, formAt, formAt + 1, new byte[] {2})), "unknown anchor form");
        anchorMutations(c, p, l, b, d);
        if (p.lower().root() == null) {
            byte[] pruned = new byte[3 + 32];
            pruned[0] = 1;
            pruned[1] = 1;
            c.invalidProof("empty-tree-as-pruned-root", "root level 0, one symbol: a node whose content is pruned "
                    + "(zero hash), where the tree is empty", Tamper.splice(enc, lo, lo + 1, pruned));
            return;
        }
        byte[] lowerEnc = p.lower().encode();
        if (!java.util.Arrays.equals(Tamper.encodeLower(p.lower(), null), lowerEnc)) {
            throw new IllegalStateException(c.name + ": the FORMAT.md lower-proof encoder differs from the reference");
        }
        c.invalidProof("root-level-plus-one", "the root level one higher than the tree's",
                Tamper.splice(enc, lo, lo + 1, new byte[] {(byte) (lowerEnc[0] + 1)}));
        c.invalidBecause("root-level-over-limit", "the root level field varint(rootLevel + 1) written as 256 "
                + "(80 02), one over its limit 255 (root level 254)", proofOverride(Tamper.splice(enc, lo, lo + 1,
                        new byte[] {(byte) 0x80, 0x02})), "exceeds limit 255");
        c.invalidBecause("symbols-extra", "the symbol count raised by 8 (three more symbol bytes, 00): symbols "
                + "left over once the root is complete", proofOverride(Tamper.splice(enc, lo, enc.length,
                        Tamper.extraSymbols(lowerEnc, lay))), "unused symbols");
        if (3 * lay.count() % 8 != 0) {
            c.invalidBecause("symbols-padding", "the last padding bit of the last symbol byte set",
                    proofOverride(Tamper.flip(enc, lo + lay.payloadAt() - 1, 0)), "non-zero padding");
        }
        int child = lay.symbols().indexOf(Tamper.SYM_ITEM);
        while (child >= 0 && lay.levels().get(child) == 0) {
            int next = lay.symbols().subList(child + 1, lay.count()).indexOf(Tamper.SYM_ITEM);
            child = next < 0 ? -1 : child + 1 + next;
        }
        if (child >= 0) {
            c.invalidBecause("entry-symbol-in-index-node", "symbol " + child + ", a child node of a level-"
                    + lay.levels().get(child) + " node (symbol 1), changed to symbol 2: an entry inside an index node",
                    proofOverride(Tamper.splice(enc, lo, enc.length, Tamper.withSymbol(lowerEnc, lay, child,
                            Tamper.SYM_ENTRY))), "entry inside an index node");
        }
        List<Tamper.InnerRange> ranges = Tamper.innerRanges(p.lower());
        if (!ranges.isEmpty()) {
            int t = 0;
            while (t < ranges.size() && ranges.get(t).cp() == 0) {
                t++;
            }
            int target = t < ranges.size() ? t : 0;
            Tamper.InnerRange r = ranges.get(target);
            byte[] sep = r.sep().unsafeArray();
            byte[] suffix = java.util.Arrays.copyOfRange(sep, r.cp(), sep.length);
            int over = Entry.MAX_KEY_BYTES + 1 - r.cp();
            c.invalidProof("separator-suffix-over-limit", "Inner part " + target + " (preorder, from 0; its range "
                    + "bounds share " + r.cp() + " bytes) as symbol 7 with a suffix length of " + over + ", so the "
                    + "separator would be 1025 bytes", withInner(enc, lo, p.lower(), target,
                            Tamper.longInner(over, suffix)));
            if (suffix.length <= 4) {
                c.invalidProof("separator-suffix-length-mismatch", "Inner part " + target + ": its " + suffix.length
                        + "-byte suffix under the symbol of a " + (suffix.length % 4 + 1) + "-byte one",
                        withInner(enc, lo, p.lower(), target, new Tamper.InnerCode(
                                Tamper.SYM_INNER_SHORT + suffix.length % 4, suffix)));
            }
            if (r.cp() > 0) {
                c.invalidProof("separator-in-full", "Inner part " + target + ": the whole separator written as its "
                        + "suffix, instead of the part after the " + r.cp() + "-byte common prefix of its range",
                        withInner(enc, lo, p.lower(), target, Tamper.innerCode(sep)));
            }
        }
        LowerProof owner = Tamper.ownerPlusOne(p.lower());
        if (owner != null) {
            c.invalidProof("owner-out-of-range", "a claimed-form entry's owner index raised by one",
                    Tamper.withLower(p, owner).encode());
            Bytes ownerKey = firstPresent(l, keys, b);
            Entry e = l.entry(ownerKey, b);
            c.invalidProof("hashed-form-leaf-for-claimed-key", "the claimed entry in hashed form (its key and value "
                    + "hash): same entry hash, but an entry whose key is claimed must be in claimed form, so a claimed "
                    + "value is never taken on its hash",
                    Tamper.withLower(p, Tamper.hashedFormLeaf(p.lower(), ownerKey, e.valueHash())).encode());
        }
        LowerProof neighbour = Tamper.claimNeighbour(p.lower());
        if (neighbour != null) {
            c.invalidProof("claimed-form-neighbour", "a neighbour entry rewritten in claimed form",
                    Tamper.withLower(p, neighbour).encode());
            c.invalidBecause("hashed-form-value-marker-2", "the value marker of the first hashed-form entry written "
                    + "as 02 (only 00, a tombstone, and 01, a value hash, exist)", proofOverride(Tamper.splice(enc,
                            lo, enc.length, Tamper.encodeLower(p.lower(), null, 2))), "value marker");
        }
    }

    /** Mutations of the anchor: the other form, and upper-path changes for an older block. */
    private static void anchorMutations(VectorFile.Case c, KeysProof p, Ledger l, long b, long d) {
        if (b == d) {
            Block blk = l.block(b);
            c.invalidBecause("older-form-at-own-block", "the anchor in form 01 (body hash, an empty upper path, and "
                    + "the digest block's lower root and body hash) at the digest's own block",
                    proofOverride(Tamper.withAnchor(p, new KeysProof.Older(blk.bodyHash(), List.of(),
                            blk.lowerRoot(), blk.bodyHash())).encode()), "anchored by the tail alone");
            return;
        }
        KeysProof.Older o = (KeysProof.Older) p.anchor();
        Hash tail = Hashing.digestTail(HistoryAppendVectors.upperRoot(l, d), l.block(d).bodyHash());
        c.invalidBecause("tail-form-for-older-block", "the anchor in form 00 with the digest block's tail: a proof "
                + "for block " + b + " anchored as if it were the digest's block " + d,
                proofOverride(Tamper.withAnchor(p, new KeysProof.AtDigest(tail)).encode()), "anchored at its own block");
        List<Hash> longer = new ArrayList<>(o.upperPath());
        longer.add(Hash.ZERO);
        c.invalidProof("upper-path-extra-hash", "a zero hash appended to the upper path",
                Tamper.withPath(p, longer).encode());
        if (!o.upperPath().isEmpty()) {
            c.invalidProof("upper-path-dropped-hash", "the last upper-path hash removed",
                    Tamper.withPath(p, o.upperPath().subList(0, o.upperPath().size() - 1)).encode());
        }
        // The same two paths against a digest forged to match them, as a dishonest server could sign it: only the
        // path-length checks of §7.1 reject them.
        Hash blockHash = Hashing.block(b, l.block(b).lowerRoot(), o.bodyHash());
        c.invalidBecause("upper-path-extra-hash-forged-digest", "a zero hash appended to the upper path, against a "
                + "digest at block " + d + " whose upper root is what that path gives", forgedDigest(p, longer, b, d,
                        blockHash), "inclusion path too long");
        if (!o.upperPath().isEmpty()) {
            List<Hash> shorter = o.upperPath().subList(0, o.upperPath().size() - 1);
            c.invalidBecause("upper-path-dropped-hash-forged-digest", "the last upper-path hash removed, against a "
                    + "digest at block " + d + " whose upper root is what that path gives", forgedDigest(p, shorter, b,
                            d, blockHash), "inclusion path too short");
        }
        if (o.upperPath().size() >= 2) {
            List<Hash> rev = new ArrayList<>(o.upperPath());
            Collections.reverse(rev);
            c.invalidProof("upper-path-reversed", "the upper path in reverse order",
                    Tamper.withPath(p, rev).encode());
        }
        // Spliced by hand: KeysProof refuses to build a path over the limit.
        byte[] enc = p.encode();
        int at = 2 + ByteWriter.varintSize(p.blockNo()) + 32;
        int n = o.upperPath().size();
        ByteWriter over = new ByteWriter(8 + 65 * 32).varint(65);
        for (int i = 0; i < 65; i++) {
            over.hash(i < n ? o.upperPath().get(i) : Hash.ZERO);
        }
        c.invalidBecause("upper-path-over-limit", "the upper path padded with zero hashes to 65, one over its limit "
                + "64", proofOverride(Tamper.splice(enc, at, at + ByteWriter.varintSize(n) + 32 * n,
                        over.toByteArray())), "exceeds limit 64");
        c.invalidProof("digest-roots-swapped", "the digest block's lower root and body hash exchanged",
                Tamper.withAnchor(p, new KeysProof.Older(o.bodyHash(), o.upperPath(), o.digestBodyHash(),
                        o.digestLowerRoot())).encode());
    }

    /** Overrides: the proof with {@code path} as its upper path, and a digest at d forged to match it. */
    private static ObjectNode forgedDigest(KeysProof p, List<Hash> path, long b, long d, Hash blockHash) {
        KeysProof.Older o = (KeysProof.Older) p.anchor();
        Hash upper = Tamper.inclusionRootWithoutLengthChecks(b, d, blockHash, path);
        Digest forged = new Digest(d, Hashing.digest(d, o.digestLowerRoot(), upper, o.digestBodyHash()));
        return override("digest", forged, "proof", Json.hex(Tamper.withPath(p, path).encode()));
    }

    /** The keys proof {@code enc} with the code of Inner part {@code target} (in preorder) replaced. */
    private static byte[] withInner(byte[] enc, int lowerAt, LowerProof lower, int target, Tamper.InnerCode code) {
        byte[] l = Tamper.encodeLower(lower, (i, sep, cp) -> i == target ? code : null);
        return Tamper.splice(enc, lowerAt, enc.length, l);
    }

    /** The smallest key of {@code keys} with an entry (value or tombstone) at block b: owner of the first claimed leaf. */
    private static Bytes firstPresent(Ledger l, List<Bytes> keys, long b) {
        for (Bytes k : new TreeSet<>(keys)) {
            if (l.entry(k, b) != null) {
                return k;
            }
        }
        throw new IllegalStateException("no claimed leaf");
    }

    /**
     * The values a verifier computes on the way: the lower root of block b; for a proof older than its digest's
     * block d (form 01), also block b's hash and upperRoot(d), which its inclusion path gives.
     */
    static void expectRoots(VectorFile.Case c, Ledger l, long b, long d) {
        c.expect("lowerRoot", l.block(b).lowerRoot().hex());
        if (b < d) {
            c.expect("blockHash", l.block(b).hash().hex());
            c.expect("upperRoot", HistoryAppendVectors.upperRoot(l, d).hex());
        }
    }

    static ObjectNode proofOverride(byte[] proof) {
        ObjectNode o = Json.object();
        o.put("proof", Json.hex(proof));
        return o;
    }

    static KeysProof decode(VectorFile.Case c) {
        return KeysProof.decode(Json.unhex(c.input.get("proof").asText()));
    }

    static String proof(Ledger l, List<Bytes> keys, long b, long d) {
        return Json.hex(l.proveKeys(keys, b, d).encode());
    }

    static Bytes appendByte(Bytes v) {
        byte[] x = java.util.Arrays.copyOf(v.unsafeArray(), v.length() + 1);
        x[v.length()] = 0x2a;
        return Bytes.wrap(x);
    }

    /** A live key other than {@code key} (and not among {@code exclude}) in the state at block b. */
    static Bytes otherPresentKey(Ledger l, Bytes key, long b, List<Bytes> exclude) {
        for (Bytes k : Fixtures.universe()) {
            if (!k.equals(key) && !exclude.contains(k) && l.get(k, b).isPresent()) {
                return k;
            }
        }
        for (String big : List.of("big/a", "big/c", "big/d", "big/b")) {
            Bytes k = Bytes.utf8(big);
            if (!k.equals(key) && !exclude.contains(k) && l.get(k, b).isPresent()) {
                return k;
            }
        }
        for (int i = 0; i < 3000; i++) {
            Bytes k = Bytes.utf8(String.format("item/%05d", i));
            if (!k.equals(key) && !exclude.contains(k) && l.get(k, b).isPresent()) {
                return k;
            }
        }
        throw new IllegalStateException("no other key");
    }

    static Bytes otherPresentKey(Ledger l, Bytes key, long b) {
        return otherPresentKey(l, key, b, List.of());
    }

    /** Overrides from (field, value) pairs: Bytes become hex, Digests objects, Strings are taken as hex. */
    static ObjectNode override(Object... kv) {
        ObjectNode o = Json.object();
        for (int i = 0; i < kv.length; i += 2) {
            String field = (String) kv[i];
            Object v = kv[i + 1];
            if (v == null) {
                o.putNull(field);
            } else if (v instanceof Bytes bb) {
                o.put(field, bb.hex());
            } else if (v instanceof io.glassledger.verify.proof.Digest dg) {
                o.set(field, Json.digest(dg));
            } else {
                o.put(field, (String) v);
            }
        }
        return o;
    }

    static ObjectNode longOverride(String field, long v) {
        ObjectNode o = Json.object();
        o.put(field, v);
        return o;
    }
}
