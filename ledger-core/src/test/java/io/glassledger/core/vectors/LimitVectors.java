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
                + "nested exactly 512 deep, the limit.", deep512, m.key(), m.value(), null);
        add(out, "depth-513", false, "nested too deep", "the same tree with a third leaf entry; the claimed one is "
                + "nested 513 deep", deep513, a.key(), a.value(), null);

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
        for (int len : new int[] {1024, 1025}) {
            byte[] k = new byte[len];
            Arrays.fill(k, (byte) 'k');
            LowerProof proof = new LowerProof(0, new Boundary(claimed()));
            // Hashed directly (§3), since no Entry can hold a 1025-byte key.
            Hash valueHash = Hashing.value(new byte[] {'v'}, 0, 1);
            Hash root = Hashing.node(0, Hashing.entry(k, 0, k.length, valueHash, 1, Hash.ZERO));
            if (len == 1024) {
                add(out, "claim-key-1024-bytes", true, null, "a crafted leaf holding one entry with a 1024-byte key, "
                        + "the longest allowed, claimed", proof, Bytes.wrap(k), Bytes.utf8("v"), root);
            } else {
                add(out, "claim-key-1025-bytes", false, "cannot be an entry", "the same with a 1025-byte key: the "
                        + "hashes match, but no entry can hold the claim", proof, Bytes.wrap(k), Bytes.utf8("v"),
                        root);
            }
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
        return Leaf.claimed(0, 1, Hash.ZERO);
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
        Block block = new Block(0, Fixtures.GENESIS_TS, root, List.of(), new TreeMap<>());
        Hash tail = Hashing.digestTail(Hash.ZERO, block.bodyHash());
        Digest d = new Digest(0, Hashing.digest(0, root, tail));
        byte[] lowerEnc = Tamper.encodeLower(lower, null);
        if (!Arrays.equals(lowerEnc, lower.encode())) {
            throw new IllegalStateException(name + ": the FORMAT.md lower-proof encoder differs from the reference");
        }
        byte[] proof = new ByteWriter().u8(1).varint(0).u8(0).hash(tail).raw(lowerEnc).toByteArray();
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
            return e.key().equals(k) ? Leaf.claimed(0, e.version(), e.prev()) : new Pruned(e.hash());
        }
        int mid = Node.countSplit(lo, hi);
        Bytes sep = leaf.separator(mid);
        boolean left = k.compareTo(sep) < 0;
        return new Inner(sep, left ? leafPart(leaf, lo, mid, k) : new Pruned(leaf.subtreeHash(lo, mid)),
                left ? new Pruned(leaf.subtreeHash(mid, hi)) : leafPart(leaf, mid, hi, k));
    }
}
