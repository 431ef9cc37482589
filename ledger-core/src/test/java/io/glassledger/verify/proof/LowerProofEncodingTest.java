package io.glassledger.verify.proof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import io.glassledger.verify.block.BlockSpec;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.entry.Entry;
import io.glassledger.core.postree.LeafNode;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.verify.proof.LowerProof.Boundary;
import io.glassledger.verify.proof.LowerProof.Inner;
import io.glassledger.verify.proof.LowerProof.Leaf;
import io.glassledger.verify.proof.LowerProof.Part;
import io.glassledger.verify.proof.LowerProof.Pruned;
import io.glassledger.core.store.InMemoryNodeStore;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The lower-proof encoding of FORMAT.md §9.2 on small hand-checked examples: the worked examples of the text, the
 * canonical alternatives a decoder rejects, and the misplaced parts that only an in-memory proof can hold.
 */
class LowerProofEncodingTest {
    private static final HexFormat HEX = HexFormat.of();

    private static Hash hash(int b) {
        byte[] h = new byte[32];
        java.util.Arrays.fill(h, (byte) b);
        return Hash.of(h);
    }

    private static byte[] concat(String hex, Hash... hashes) {
        ByteWriter w = new ByteWriter().raw(HEX.parseHex(hex));
        for (Hash h : hashes) {
            w.hash(h);
        }
        return w.toByteArray();
    }

    private static Leaf claimed(int owner) {
        return Leaf.claimed(owner, 1);
    }

    @Test
    void formatExample_firstKeyOfASingleLeafOfTwoEntries() throws VerificationException {
        Entry a = Entry.of(Bytes.utf8("a"), Bytes.utf8("x"), 1);
        Entry b = Entry.of(Bytes.utf8("b"), Bytes.utf8("y"), 1);
        // Parts Boundary, Inner, Leaf (claimed, owner 0), Pruned; the Boundary is implied: symbols 3, 1, 0.
        byte[] expected = new ByteWriter().raw(HEX.parseHex("0103" + "6400" + "62" + "01"))
                .hash(b.hash()).toByteArray();
        LowerProof p = new LowerProof(0, new Boundary(new Inner(Bytes.utf8("b"), claimed(0), new Pruned(b.hash()))));
        assertEquals(HEX.formatHex(expected), HEX.formatHex(p.encode()));

        // The ledger proves exactly that for key a of a block holding a and b.
        Ledger l = Ledger.openOrCreate(new InMemoryNodeStore(), TreeParams.DEFAULT, 0);
        l.append(List.of(new BlockSpec(1, List.of(), List.of(Mutation.put(a.key(), a.value()),
                Mutation.put(b.key(), b.value())))));
        LowerProof proven = l.proveKeys(List.of(a.key()), 1, 1).lower();
        assertEquals(HEX.formatHex(expected), HEX.formatHex(proven.encode()));
        assertEquals(LeafNode.of(List.of(a, b)).hash(),
                LowerProof.decode(expected).computeRoot(List.of(KeyClaim.present(a.key(), a.value())), null));
    }

    @Test
    void formatExample_separatorsRelativeToTheirRange() {
        // Inner(acct/05) over Inner(acct/02) over Inner(acct/03): the third is written as the suffix 33 (cp = 6).
        Part p = new Inner(Bytes.utf8("acct/05"), new Inner(Bytes.utf8("acct/02"), new Pruned(hash(1)),
                new Inner(Bytes.utf8("acct/03"), new Pruned(hash(2)), new Pruned(hash(3)))), new Pruned(hash(4)));
        LowerProof proof = new LowerProof(0, new Boundary(p));
        // Symbols 7, 7, 0, 3, 0, 0, 0 = 111 111 000 011 000 000 000 (+ 3 padding bits) = fc 30 00.
        byte[] expected = new ByteWriter().raw(HEX.parseHex("0107" + "fc3000" + "02616363742f3035"
                + "02616363742f3032")).hash(hash(1)).raw(HEX.parseHex("33")).hash(hash(2)).hash(hash(3))
                .hash(hash(4)).toByteArray();
        assertEquals(HEX.formatHex(expected), HEX.formatHex(proof.encode()));
        Inner decoded = (Inner) ((Boundary) LowerProof.decode(expected).root()).content();
        Inner third = (Inner) ((Inner) decoded.left()).right();
        assertEquals(Bytes.utf8("acct/03"), third.sep());
    }

    @Test
    void emptyTree_isTheSingleByte00() {
        assertEquals("00", HEX.formatHex(new LowerProof(-1, null).encode()));
        assertEquals(null, LowerProof.decode(HEX.parseHex("00")).root());
    }

    @Test
    void symbolsAndPayloadsOfEveryKind_roundTrip() {
        // A level-1 root with two child nodes; the leaves hold entries of every form, and separators of every length
        // class (1..4 bytes, 5 bytes and over).
        Leaf full = Leaf.hashed(Bytes.utf8("neighbour"), null, 7);
        Leaf fullWithValue = Leaf.hashed(Bytes.utf8("n2"), hash(4), 8);
        Part left = new Inner(Bytes.utf8("a"), claimed(0), new Inner(Bytes.utf8("ab"), claimed(1),
                new Inner(Bytes.utf8("abc"), full, new Pruned(hash(5)))));
        Part right = new Inner(Bytes.utf8("mmmm"), new Inner(Bytes.utf8("mm"), fullWithValue, claimed(3)),
                new Inner(Bytes.utf8("mmmmmmmmmm"), new Pruned(hash(6)), claimed(1 << 20)));
        LowerProof p = new LowerProof(1, new Boundary(new Inner(Bytes.utf8("m"), new Boundary(left),
                new Boundary(right))));
        byte[] enc = p.encode();
        LowerProof back = LowerProof.decode(enc);
        assertEquals(p.root(), back.root());
        assertEquals(1, back.rootLevel());
        assertTrue(java.util.Arrays.equals(enc, back.encode()));
    }

    @Test
    void decode_rejectsWhatTheCanonicalEncodingRules_out() {
        byte[] valid = concat("0103" + "6400" + "62" + "01", hash(7));
        LowerProof.decode(valid);
        // A padding bit set.
        assertMalformed("padding", concat("0103" + "6401" + "62" + "01", hash(7)));
        // Four symbols declared, the fourth (0) left over.
        assertMalformed("unused symbols", concat("0104" + "6400" + "62" + "01", hash(7)));
        // Two symbols declared: the Inner's right child is missing.
        assertMalformed("too short", concat("0102" + "6400" + "62" + "01", hash(7)));
        // Symbol 2 in an index node (root level 1): no entry sits there.
        assertMalformed("entry inside an index node", concat("0201" + "40" + "00", hash(7)));
        // Symbol bytes that do not fit the input.
        assertMalformed("truncated", HEX.parseHex("0109" + "00"));
        // Symbol 7 declaring a 1025-byte separator (cp = 0): varint(1020).
        assertMalformed("limit", new ByteWriter().raw(HEX.parseHex("0103" + "e000")).varint(1020)
                .raw(new byte[1025]).toByteArray());
        // Symbol 2 with x = 0: a hashed-form entry with an empty key.
        assertMalformed("empty key", concat("0101" + "40" + "00" + "00" + "00" + "01"));
        // A hashed-form entry (key "k") is a tombstone (marker 00) or a value hash (marker 01): marker 02 is neither.
        LowerProof.decode(concat("0101" + "40" + "00" + "016b" + "00" + "01"));
        LowerProof.decode(new ByteWriter().raw(HEX.parseHex("0101" + "40" + "00" + "016b" + "01")).hash(hash(3))
                .varint(1).toByteArray());
        assertMalformed("value marker", new ByteWriter().raw(HEX.parseHex("0101" + "40" + "00" + "016b" + "02"))
                .hash(hash(3)).varint(1).toByteArray());
    }

    /**
     * A neighbour shown for absence carries its key and value hash, never its value: 32 bytes whatever the value's
     * size, and its entry hash is the one the tree commits to.
     */
    @Test
    void hashedFormEntry_hasTheEntryHash_withoutTheValue() throws VerificationException {
        Entry big = Entry.of(Bytes.utf8("n"),
                Bytes.wrap(new byte[1 << 20]), 9);
        Leaf shown = Leaf.hashed(big.key(), big.valueHash(), big.version());
        Entry a = Entry.of(Bytes.utf8("a"), Bytes.utf8("x"), 1);
        // The absent key "o" routes right of separator "n", onto the neighbour.
        LowerProof p = new LowerProof(0, new Boundary(new Inner(Bytes.utf8("n"), new Pruned(a.hash()), shown)));
        byte[] enc = p.encode();
        assertTrue(enc.length < 200, "proof of " + enc.length + " bytes");
        Hash root = LowerProof.decode(enc).computeRoot(List.of(KeyClaim.absent(Bytes.utf8("o"))), null);
        Hash expected = Hashing.node(0, Hashing.inner(Bytes.utf8("n").unsafeArray(), a.hash(), big.hash()));
        assertEquals(expected, root);
    }

    /**
     * The symbol count's limit follows the input's length; for an input of 2^28 bytes or more, 8 · length once
     * overflowed an int, and every count was then "over the limit". A huge proof must decode like a small one.
     */
    @Test
    void decode_countOfAHugeInput_isNotCutByAnOverflowingLimit() {
        byte[] data = new byte[(1 << 28) + 64];
        data[0] = 1; // root level 0
        data[1] = 1; // one symbol, 0: pruned content; then its hash, then trailing zero bytes
        assertMalformed("trailing bytes", data);
    }

    private static void assertMalformed(String reason, byte[] enc) {
        MalformedException e = assertThrows(MalformedException.class, () -> LowerProof.decode(enc), reason);
        assertTrue(e.getMessage().contains(reason), "expected \"" + reason + "\", got " + e.getMessage());
    }

    /**
     * Parts in places the encoding implies away can only be built in memory: the encoder refuses them, and the
     * evaluator rejects them on its own (FORMAT.md §9.3).
     */
    @Test
    void misplacedParts_areRefusedByTheEncoder_andRejectedByTheEvaluator() {
        List<KeyClaim> claim = List.of(KeyClaim.present(Bytes.utf8("k"), Bytes.utf8("v")));
        LowerProof rootNotANode = new LowerProof(0, claimed(0));
        LowerProof boundaryInLeaf = new LowerProof(0, new Boundary(new Boundary(claimed(0))));
        LowerProof entryInIndexNode = new LowerProof(1, new Boundary(claimed(0)));
        for (LowerProof p : List.of(rootNotANode, boundaryInLeaf, entryInIndexNode)) {
            assertThrows(IllegalArgumentException.class, p::encode);
        }
        assertRejected("proof root is not a node", rootNotANode, claim);
        assertRejected("node boundary inside a leaf", boundaryInLeaf, claim);
        assertRejected("entry inside an index node", entryInIndexNode, claim);
    }

    private static void assertRejected(String reason, LowerProof p, List<KeyClaim> claims) {
        VerificationException e = assertThrows(VerificationException.class, () -> p.computeRoot(claims, null));
        assertTrue(e.getMessage().contains(reason), "expected \"" + reason + "\", got " + e.getMessage());
    }
}
