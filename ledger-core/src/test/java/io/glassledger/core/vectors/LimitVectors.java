package io.glassledger.core.vectors;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import io.glassledger.verify.block.Block;
import io.glassledger.verify.entry.Entry;
import io.glassledger.core.postree.LeafNode;
import io.glassledger.core.postree.Node;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.KeyClaim;
import io.glassledger.verify.proof.LowerProof;
import io.glassledger.verify.proof.LowerProof.Boundary;
import io.glassledger.verify.proof.LowerProof.Inner;
import io.glassledger.verify.proof.LowerProof.Leaf;
import io.glassledger.verify.proof.LowerProof.Part;
import io.glassledger.verify.proof.LowerProof.Pruned;
import io.glassledger.verify.proof.VerificationException;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

/**
 * primitives.json {@code lowerProofLimits}: current-value proofs of hand-built (crafted) block-0 trees, each of which
 * would verify but for one limit of FORMAT.md §9 (or, for the valid ones, sits exactly at it). A proof of a real tree
 * that broke such a limit would also fail its root comparison, so only crafted trees show that a verifier enforces
 * the limit itself. Kept out of the proof files: those flip every bit of every valid proof, and the depth proofs are
 * 9 KB each.
 */
final class LimitVectors {
    private static final String VERIFIER = "verifyCurrentValue";

    private LimitVectors() {
    }

    static ArrayNode lowerProofLimits() {
        ArrayNode out = Json.array();
        List<Entry> five = entries(5);
        List<Entry> nine = entries(9);
        LowerProof deep512 = chain(five, five.get(0).key(), LowerProof.MAX_ROOT_LEVEL);
        LowerProof deep513 = chain(nine, nine.get(0).key(), LowerProof.MAX_ROOT_LEVEL);
        requireDepth(deep512, 512);
        requireDepth(deep513, 513);
        add(out, "depth-512", true, null, "a tree of 255 levels (254, the highest, to 0), every index node with two "
                + "children, the path child and an opaque sibling: one Boundary and one Inner per level, then a leaf of "
                + "five entries whose first, claimed, sits under three Inner parts. It is nested exactly 512 deep, the "
                + "limit.", deep512, five.get(0).key(), five.get(0).value(), null);
        add(out, "depth-513", false, "nested too deep", "the same tree with nine leaf entries; the first, claimed, "
                + "sits under four Inner parts, 513 deep", deep513, nine.get(0).key(), nine.get(0).value(), null);
        rootLevel255(out);

        // Separator length, relative to a range whose bounds share cp = 10 bytes (the suffix takes symbol 7 and a
        // length varint) and cp = 1021 bytes (the suffix takes a short symbol, 3..6, that gives its length).
        separatorLimits(out, 10, 1024, true, null, "a crafted leaf whose routing tree has a 1024-byte separator, the "
                + "longest allowed, in a range whose bounds share 10 bytes: symbol 7, varint(1009) and a 1014-byte "
                + "suffix", "separator-1024-bytes");
        separatorLimits(out, 10, 1025, false, "exceeds limit", "the same with a 1025-byte separator: symbol 7 and "
                + "varint(1010), a 1015-byte suffix, over the limit 1024 - cp = 1014", "separator-1025-bytes");
        separatorLimits(out, 1021, 1024, true, null, "a crafted leaf with a 1024-byte separator in a range whose "
                + "bounds share 1021 bytes: symbol 5, a 3-byte suffix", "separator-1024-bytes-short-suffix");
        separatorLimits(out, 1021, 1025, false, "separator over 1024 bytes", "the same with a 1025-byte separator: "
                + "symbol 6, a 4-byte suffix, so cp + n = 1025", "separator-1025-bytes-short-suffix");

        // Claimed keys at and over the key limit (§3), in a crafted single-entry leaf.
        for (int len : new int[] {0, 1024, 1025}) {
            byte[] k = new byte[len];
            Arrays.fill(k, (byte) 'k');
            LowerProof proof = new LowerProof(0, new Boundary(claimed()));
            // Hashed directly (§3), since no Entry can hold a 1025-byte key.
            Hash valueHash = Hashing.value(new byte[] {'v'}, 0, 1);
            Hash root = Hashing.node(0, Hashing.entry(k, 0, k.length, valueHash, 1));
            if (len == 0) {
                add(out, "claim-key-empty", false, "cannot be an entry", "a crafted leaf holding one entry with an "
                        + "empty key, claimed: the hashes match, but no entry can hold the claim", proof, Bytes.wrap(k),
                        Bytes.utf8("v"), root);
            } else if (len == 1024) {
                add(out, "claim-key-1024-bytes", true, null, "a crafted leaf holding one entry with a 1024-byte key, "
                        + "the longest allowed, claimed", proof, Bytes.wrap(k), Bytes.utf8("v"), root);
            } else {
                add(out, "claim-key-1025-bytes", false, "cannot be an entry", "the same with a 1025-byte key: the "
                        + "hashes match, but no entry can hold the claim", proof, Bytes.wrap(k), Bytes.utf8("v"),
                        root);
            }
        }
        // A neighbour shown in hashed form whose key breaks the key limits (§3, §9.2), for an absent claim.
        for (int len : new int[] {0, 1025}) {
            byte[] k = new byte[len];
            Arrays.fill(k, (byte) 'n');
            Hash valueHash = Hashing.value(new byte[] {'v'}, 0, 1);
            LowerProof proof = new LowerProof(0, new Boundary(Leaf.hashed(Bytes.wrap(k), valueHash, 1)));
            Hash root = Hashing.node(0, Hashing.entry(k, 0, k.length, valueHash, 1));
            add(out, "verifyNonExistence", len == 0 ? "neighbour-key-empty" : "neighbour-key-1025-bytes", false,
                    len == 0 ? "empty key" : "exceeds limit", "a crafted leaf holding one entry, with "
                            + (len == 0 ? "an empty key" : "a 1025-byte key") + ", shown in hashed form as the "
                            + "neighbour an absent claim for k reaches: the hashes match, but no entry has such a key",
                    Tamper.encodeLower(proof, null), Bytes.utf8("k"), null, root);
        }
        return out;
    }

    /**
     * A tree one level higher than any stored node can be (§4.4): root level 255, over the path of depth-512's
     * kind with a two-entry leaf. The claimed entry is 512 deep, within that limit; only the root level rejects it.
     * The proof is encoded and hashed by hand, since the reference's {@link LowerProof} cannot hold it.
     */
    private static void rootLevel255(ArrayNode out) {
        List<Entry> two = entries(2);
        LowerProof below = chain(two, two.get(0).key(), LowerProof.MAX_ROOT_LEVEL);
        Hash belowRoot;
        try {
            belowRoot = below.computeRoot(List.of(KeyClaim.present(two.get(0).key(), two.get(0).value())), null);
        } catch (VerificationException e) {
            throw new IllegalStateException(e);
        }
        Bytes sep = Bytes.wrap(new byte[] {'m', (byte) 255});
        Hash sibling = hash(255);
        Part root = new Boundary(new Inner(sep, below.root(), new Pruned(sibling)));
        if (Tamper.maxDepth(root, 0) != 512) {
            throw new IllegalStateException("the root-level-255 proof is not 512 deep");
        }
        Hash rootHash = Hashing.node(255, Hashing.inner(sep.unsafeArray(), belowRoot, sibling));
        add(out, VERIFIER, "root-level-255", false, "exceeds limit 255", "a tree of 256 levels (255..0), one more than "
                + "a stored node's level allows: every index node with the path child and an opaque sibling, a leaf "
                + "of two entries; the claimed one is nested 512 deep, within the depth limit",
                Tamper.encodeLower(255, root, null, -1), two.get(0).key(), two.get(0).value(), rootHash);
    }

    /** {@code n} entries a1, a2, ...: keys below "m\x01", so that they route left at every index level of a chain. */
    private static List<Entry> entries(int n) {
        List<Entry> out = new java.util.ArrayList<>();
        for (int i = 1; i <= n; i++) {
            out.add(Entry.of(Bytes.utf8(String.format("a%02d", i)), Bytes.utf8("v" + i), 1));
        }
        return out;
    }

    /**
     * A crafted leaf proof Inner(lo, Pruned, Inner(hi, Inner(sep, Pruned, claimed), Pruned)): lo and hi share
     * {@code cp} bytes and sep, of {@code len} bytes, extends them; the claimed key routes to the entry.
     */
    private static void separatorLimits(ArrayNode out, int cp, int len, boolean valid, String reason,
            String description, String name) {
        byte[] p = new byte[cp];
        Arrays.fill(p, (byte) '-');
        p[0] = 'a';
        p[1] = 'b';
        Bytes lo = Bytes.wrap(concat(p, new byte[] {0x10}));
        Bytes hi = Bytes.wrap(concat(p, new byte[] {0x20}));
        Bytes key = Bytes.wrap(concat(p, new byte[] {0x12}));
        byte[] sep = new byte[len];
        Arrays.fill(sep, (byte) 'y');
        System.arraycopy(p, 0, sep, 0, p.length);
        sep[p.length] = 0x11;
        Part part = new Boundary(new Inner(lo, new Pruned(hash(1)), new Inner(hi,
                new Inner(Bytes.wrap(sep), new Pruned(hash(2)), claimed()), new Pruned(hash(3)))));
        add(out, name, valid, reason, description, new LowerProof(0, part), key, Bytes.utf8("v"), null);
    }

    private static Leaf claimed() {
        return Leaf.claimed(0, 1);
    }

    private static Hash hash(int seed) {
        byte[] b = new byte[32];
        new Random(0x11A7 + seed).nextBytes(b);
        return Hash.of(b);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    /**
     * Adds one vector: a block-0 digest over the proof's root (computed by the reference evaluator on the proof
     * object, unless given), the claim, and the keys proof (form 00) whose lower proof {@link Tamper#encodeLower}
     * encodes: the reference encoder, which checks no limit either, must give the same bytes. Checks the reference
     * verifier's verdict and reason.
     */
    private static void add(ArrayNode out, String name, boolean valid, String reason, String description,
            LowerProof lower, Bytes key, Bytes value, Hash root) {
        if (root == null) {
            try {
                root = lower.computeRoot(List.of(KeyClaim.present(key, value)), null);
            } catch (VerificationException e) {
                throw new IllegalStateException(name + ": crafted proof does not evaluate", e);
            }
        }
        byte[] lowerEnc = Tamper.encodeLower(lower, null);
        if (!Arrays.equals(lowerEnc, lower.encode())) {
            throw new IllegalStateException(name + ": the FORMAT.md lower-proof encoder differs from the reference");
        }
        add(out, VERIFIER, name, valid, reason, description, lowerEnc, key, value, root);
    }

    /**
     * Adds one vector for {@code verifier} (verifyCurrentValue, or verifyNonExistence with no value): a block-0 digest
     * over {@code root}, the claim, and the keys proof (form 00) around the lower proof {@code lowerEnc}.
     */
    private static void add(ArrayNode out, String verifier, String name, boolean valid, String reason,
            String description, byte[] lowerEnc, Bytes key, Bytes value, Hash root) {
        Block block = new Block(0, Fixtures.GENESIS_TS, root, List.of(), new TreeMap<>());
        Hash tail = Hashing.digestTail(Hash.ZERO, block.bodyHash());
        Digest d = new Digest(0, Hashing.digest(0, root, tail));
        byte[] proof = new ByteWriter().u8(1).varint(0).u8(0).hash(tail).raw(lowerEnc).toByteArray();
        ObjectNode o = out.addObject();
        o.put("name", name);
        o.put("description", description);
        o.put("verifier", verifier);
        o.put("valid", valid);
        ObjectNode in = o.putObject("input");
        in.set("digest", Json.digest(d));
        Json.putBytes(in, "key", key);
        if (value != null) {
            Json.putBytes(in, "value", value);
        }
        in.put("proof", Json.hex(proof));
        VerificationException e = VectorVerifier.rejection(verifier, in);
        if (valid && e != null) {
            throw new IllegalStateException(name + " does not verify", e);
        }
        if (!valid && (e == null || !e.getMessage().contains(reason))) {
            throw new IllegalStateException(name + ": expected a rejection for \"" + reason + "\", got " + e);
        }
    }

    private static void requireDepth(LowerProof p, int depth) {
        if (Tamper.maxDepth(p.root(), 0) != depth) {
            throw new IllegalStateException("crafted proof is not " + depth + " deep");
        }
    }

    /**
     * A proof for claimed key k in a tree of root level {@code rootLevel}: at each index level L the node holds the
     * path child and an opaque sibling, separated by "m" || byte L (so every claim below "m\x01" goes left); the leaf
     * holds {@code entries} and its routing tree follows FORMAT.md §4.3.
     */
    private static LowerProof chain(List<Entry> entries, Bytes k, int rootLevel) {
        LeafNode leaf = LeafNode.of(entries);
        Part part = new Boundary(leafPart(leaf, 0, leaf.size(), k));
        Random rnd = new Random(0xDE9);
        for (int level = 1; level <= rootLevel; level++) {
            byte[] sib = new byte[32];
            rnd.nextBytes(sib);
            Bytes sep = Bytes.wrap(new byte[] {'m', (byte) level});
            part = new Boundary(new Inner(sep, part, new Pruned(Hash.of(sib))));
        }
        return new LowerProof(rootLevel, part);
    }

    /** The proof part over items [lo, hi) of a leaf for one claimed key. */
    private static Part leafPart(LeafNode leaf, int lo, int hi, Bytes k) {
        if (hi - lo == 1) {
            Entry e = leaf.entry(lo);
            return e.key().equals(k) ? Leaf.claimed(0, e.version()) : new Pruned(e.hash());
        }
        int mid = Node.countSplit(lo, hi);
        Bytes sep = leaf.separator(mid);
        boolean left = k.compareTo(sep) < 0;
        return new Inner(sep, left ? leafPart(leaf, lo, mid, k) : new Pruned(leaf.subtreeHash(lo, mid)),
                left ? new Pruned(leaf.subtreeHash(mid, hi)) : leafPart(leaf, mid, hi, k));
    }
}
