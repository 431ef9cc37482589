package io.glassledger.core.vectors;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.glassledger.core.codec.ByteWriter;
import io.glassledger.core.hash.Bytes;
import io.glassledger.core.hash.Hash;
import io.glassledger.core.hash.Hashing;
import io.glassledger.core.ledger.Block;
import io.glassledger.core.postree.Entry;
import io.glassledger.core.postree.LeafNode;
import io.glassledger.core.postree.Node;
import io.glassledger.core.proof.Digest;
import io.glassledger.core.proof.KeyClaim;
import io.glassledger.core.proof.LowerProof;
import io.glassledger.core.proof.LowerProof.Boundary;
import io.glassledger.core.proof.LowerProof.Inner;
import io.glassledger.core.proof.LowerProof.Leaf;
import io.glassledger.core.proof.LowerProof.Part;
import io.glassledger.core.proof.LowerProof.Pruned;
import io.glassledger.core.proof.VerificationException;
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
        Entry a = Entry.of(Bytes.utf8("a"), Bytes.utf8("va"), 1, Hash.ZERO);
        Entry l = Entry.of(Bytes.utf8("l"), Bytes.utf8("vl"), 1, Hash.ZERO);
        Entry m = Entry.of(Bytes.utf8("m"), Bytes.utf8("vm"), 1, Hash.ZERO);
        LowerProof deep512 = chain(List.of(a, m), m.key());
        LowerProof deep513 = chain(List.of(a, l, m), a.key());
        requireDepth(deep512, 512);
        requireDepth(deep513, 513);
        add(out, "depth-512", true, null, "a tree of 256 levels (255..0), every node with two children, the path child "
                + "and an opaque sibling: one Boundary and one Inner per level. The claimed entry of the two-entry leaf is "
                + "nested exactly 512 deep, the limit.", deep512, null, m.key(), m.value(), null);
        add(out, "depth-513", false, "nested too deep", "the same tree with a third leaf entry; the claimed one is "
                + "nested 513 deep", deep513, null, a.key(), a.value(), null);

        // Separator length, relative to a range whose bounds share cp = 10 bytes.
        byte[] p = Bytes.utf8("ab--------").toByteArray();
        Bytes lo = Bytes.wrap(concat(p, new byte[] {0x10}));
        Bytes hi = Bytes.wrap(concat(p, new byte[] {0x20}));
        Bytes key = Bytes.wrap(concat(p, new byte[] {0x12}));
        for (int len : new int[] {1024, 1025}) {
            byte[] sep = new byte[len];
            Arrays.fill(sep, (byte) 'y');
            System.arraycopy(p, 0, sep, 0, p.length);
            sep[p.length] = 0x11;
            Part part = new Boundary(new Inner(lo, new Pruned(hash(1)), new Inner(hi,
                    new Inner(Bytes.wrap(sep), new Pruned(hash(2)), claimed()), new Pruned(hash(3)))));
            LowerProof proof = new LowerProof(0, part);
            if (len == 1024) {
                add(out, "separator-1024-bytes", true, null, "a crafted leaf whose routing tree has a 1024-byte "
                        + "separator, the longest allowed, in a range whose bounds share 10 bytes: its payload is "
                        + "varint(1014) and 1014 bytes", proof, null, key, Bytes.utf8("v"), null);
            } else {
                add(out, "separator-1025-bytes", false, "exceeds limit", "the same with a 1025-byte separator: "
                        + "suffix length 1015, over the limit 1024 - cp = 1014", proof, null, key, Bytes.utf8("v"), null);
            }
        }

        // An empty separator suffix: the separator equals the common prefix of its range's bounds.
        Part empty = new Boundary(new Inner(Bytes.utf8("ab"), new Pruned(hash(4)), new Inner(Bytes.utf8("ac"),
                new Inner(Bytes.utf8("a"), new Pruned(hash(5)), claimed()), new Pruned(hash(6)))));
        add(out, "separator-suffix-empty", false, "empty separator suffix", "a crafted leaf whose separator a sits in "
                + "the range (ab, ac), cp = 1: its payload is varint 0, an empty suffix", new LowerProof(0, empty),
                (i, sep, cp) -> i == 2 ? new byte[] {0} : null, Bytes.utf8("abc"), Bytes.utf8("v"), null);

        // Claimed keys at and over the key limit (§3), in a crafted single-entry leaf.
        for (int len : new int[] {1024, 1025}) {
            byte[] k = new byte[len];
            Arrays.fill(k, (byte) 'k');
            LowerProof proof = new LowerProof(0, new Boundary(claimed()));
            ByteWriter enc = new ByteWriter().lengthPrefixed(k).varint(2).raw(new byte[] {'v'}).varint(1).hash(Hash.ZERO);
            byte[] e = enc.toByteArray();
            Hash root = Hashing.node(0, Hashing.entry(e, 0, e.length));
            if (len == 1024) {
                add(out, "claim-key-1024-bytes", true, null, "a crafted leaf holding one entry with a 1024-byte key, "
                        + "the longest allowed, claimed", proof, null, Bytes.wrap(k), Bytes.utf8("v"), root);
            } else {
                add(out, "claim-key-1025-bytes", false, "cannot be an entry", "the same with a 1025-byte key: the "
                        + "hashes match, but no entry can hold the claim", proof, null, Bytes.wrap(k), Bytes.utf8("v"),
                        root);
            }
        }
        return out;
    }

    private static Leaf claimed() {
        return new Leaf(0, null, null, 1, Hash.ZERO);
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
     * object, unless given), the claim, and the keys proof encoded by {@link Tamper#encodeLower} (with {@code hook}),
     * since the reference encoder refuses some of these. Checks the reference verifier's verdict and reason.
     */
    private static void add(ArrayNode out, String name, boolean valid, String reason, String description,
            LowerProof lower, Tamper.InnerPayload hook, Bytes key, Bytes value, Hash root) {
        if (root == null) {
            try {
                root = lower.computeRoot(List.of(KeyClaim.present(key, value)), null);
            } catch (VerificationException e) {
                throw new IllegalStateException(name + ": crafted proof does not evaluate", e);
            }
        }
        Block block = new Block(0, Fixtures.GENESIS_TS, root, List.of(), new TreeMap<>());
        Digest d = new Digest(0, Hashing.digest(0, Hash.ZERO, block.hash()));
        byte[] proof = new ByteWriter().u8(1).varint(0).hash(block.bodyHash()).varint(0).hash(Hash.ZERO)
                .raw(Tamper.encodeLower(lower, hook)).toByteArray();
        ObjectNode o = out.addObject();
        o.put("name", name);
        o.put("description", description);
        o.put("verifier", VERIFIER);
        o.put("valid", valid);
        ObjectNode in = o.putObject("input");
        in.set("digest", Json.digest(d));
        Json.putBytes(in, "key", key);
        Json.putBytes(in, "value", value);
        in.put("proof", Json.hex(proof));
        VerificationException e = VectorVerifier.rejection(VERIFIER, in);
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
     * A proof for claimed key k in a 256-level tree: root level 255; at each index level L the node holds the path
     * child and an opaque sibling, separated by "m" || byte L (so every claim below "m\x01" goes left); the leaf holds
     * {@code entries} and its routing tree follows FORMAT.md §4.3.
     */
    private static LowerProof chain(List<Entry> entries, Bytes k) {
        LeafNode leaf = LeafNode.of(entries);
        Part part = new Boundary(leafPart(leaf, 0, leaf.size(), k));
        Random rnd = new Random(0xDE9);
        for (int level = 1; level <= 255; level++) {
            byte[] sib = new byte[32];
            rnd.nextBytes(sib);
            Bytes sep = Bytes.wrap(new byte[] {'m', (byte) level});
            part = new Boundary(new Inner(sep, part, new Pruned(Hash.of(sib))));
        }
        return new LowerProof(255, part);
    }

    /** The proof part over items [lo, hi) of a leaf for one claimed key. */
    private static Part leafPart(LeafNode leaf, int lo, int hi, Bytes k) {
        if (hi - lo == 1) {
            Entry e = leaf.entry(lo);
            return e.key().equals(k) ? new Leaf(0, null, null, e.version(), e.prev()) : new Pruned(e.hash());
        }
        int mid = Node.countSplit(lo, hi);
        Bytes sep = leaf.separator(mid);
        boolean left = k.compareTo(sep) < 0;
        return new Inner(sep, left ? leafPart(leaf, lo, mid, k) : new Pruned(leaf.subtreeHash(lo, mid)),
                left ? new Pruned(leaf.subtreeHash(mid, hi)) : leafPart(leaf, mid, hi, k));
    }
}
