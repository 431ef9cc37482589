package io.glassledger.verify.proof;

import static io.glassledger.verify.format.FormatRule.CLAIMED_KEY_IN_HASHED_FORM;
import static io.glassledger.verify.format.FormatRule.CLAIM_NOT_COVERED;
import static io.glassledger.verify.format.FormatRule.DUPLICATE_CLAIMS;
import static io.glassledger.verify.format.FormatRule.ENTRY_SYMBOL_IN_INDEX_NODE;
import static io.glassledger.verify.format.FormatRule.KEY_EMPTY;
import static io.glassledger.verify.format.FormatRule.KEY_TOO_LONG;
import static io.glassledger.verify.format.FormatRule.NESTED_TOO_DEEP;
import static io.glassledger.verify.format.FormatRule.NODE_CONTENT_PRUNED;
import static io.glassledger.verify.format.FormatRule.NON_OWNER_CLAIMED_PRESENT;
import static io.glassledger.verify.format.FormatRule.NO_CLAIMS;
import static io.glassledger.verify.format.FormatRule.OWNER_OUT_OF_RANGE;
import static io.glassledger.verify.format.FormatRule.OWNER_OVER_LIMIT;
import static io.glassledger.verify.format.FormatRule.PART_OUT_OF_PLACE;
import static io.glassledger.verify.format.FormatRule.PRESENT_CLAIM_ON_HASHED_ENTRY;
import static io.glassledger.verify.format.FormatRule.ROOT_LEVEL_OVER_254;
import static io.glassledger.verify.format.FormatRule.SEPARATOR_OVER_1024;
import static io.glassledger.verify.format.FormatRule.SYMBOLS_LEFT_OVER;
import static io.glassledger.verify.format.FormatRule.SYMBOLS_RUN_OUT;
import static io.glassledger.verify.format.FormatRule.SYMBOL_COUNT_OVER_LIMIT;
import static io.glassledger.verify.format.FormatRule.SYMBOL_PADDING_NOT_ZERO;
import static io.glassledger.verify.format.FormatRule.UNREACHED_EXPANSION;
import static io.glassledger.verify.format.FormatRule.VALUE_CLAIMED_IN_EMPTY_TREE;
import static io.glassledger.verify.format.FormatRule.VALUE_MARKER_UNKNOWN;

import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import io.glassledger.verify.entry.Entry;
import java.util.ArrayList;
import java.util.List;

/**
 * A multi-key proof over one POS-tree: the part of the tree's routing Merkle structure that the search paths of
 * the claimed keys visit, with everything else pruned to a hash. One key or a hundred, it is the same format; the
 * paths share their upper parts, so the size per key falls as the batch grows.
 *
 * <p>Soundness rests on routing: a key goes left at an interior step iff key &lt; separator, so under a given
 * root there is exactly one search path per key, and the leaf it ends on decides presence or absence.
 * See docs/FORMAT.md §Lower proof for the encoding.
 */
public final class LowerProof {
    /** Nodes of the partial tree. */
    public sealed interface Part permits Pruned, Inner, Boundary, Leaf {
    }

    /** A subtree not on any search path, given by its hash. */
    public record Pruned(Hash hash) implements Part {
    }

    /** A binary step inside a node: H(0x01 || varint(len sep) || sep || left || right). */
    public record Inner(Bytes sep, Part left, Part right) implements Part {
    }

    /** A POS-tree node boundary: H(0x02 || u8 level || content). The level is implied by depth. */
    public record Boundary(Part content) implements Part {
    }

    /**
     * The entry a search path ends on. When {@code owner >= 0} (claimed form), its key and value are omitted from
     * the encoding and taken from the claim that owns it: the owner-th, in key order, of the claims whose paths
     * reach it (others reaching it are absent keys); the verifier hashes the claimed value itself. When
     * {@code owner == -1} (hashed form: a neighbour proving absence) the entry is shown by its key and the hash of
     * its value only, {@code valueHash} being null for a tombstone, so an unclaimed value never enters a proof.
     */
    public record Leaf(int owner, Bytes key, Hash valueHash, long version) implements Part {
        public boolean claimed() {
            return owner >= 0;
        }

        /** A claimed-form entry: key and value come from the claim. */
        public static Leaf claimed(int owner, long version) {
            return new Leaf(owner, null, null, version);
        }

        /** A hashed-form entry: key and value hash shown, value hash null for a tombstone. */
        public static Leaf hashed(Bytes key, Hash valueHash, long version) {
            return new Leaf(-1, key, valueHash, version);
        }
    }

    /** Symbol codes of the encoding (FORMAT.md §9.2), three bits each. */
    static final int SYM_PRUNED = 0;
    static final int SYM_ITEM = 1;
    static final int SYM_ENTRY = 2;
    /** SYM_INNER_1 + k - 1 is an Inner whose separator suffix has k bytes, k = 1..4. */
    static final int SYM_INNER_1 = 3;
    static final int SYM_INNER_LONG = 7;
    static final int SHORT_SUFFIX_MAX = 4;
    /** A hashed-form entry's value marker: a tombstone, or a value hash follows (FORMAT.md §9.2). */
    static final int VALUE_NONE = 0;
    static final int VALUE_HASH = 1;
    /** Deeper than any tree the format allows (levels x in-node depth), and shallow enough for any thread stack. */
    public static final int MAX_DEPTH = 512;
    /** A stored node's level is at most 254 (FORMAT.md §4.4), and so is a proof's root level. */
    public static final int MAX_ROOT_LEVEL = 254;
    /** Symbols in one proof: fewer than 2^29. */
    static final int MAX_SYMBOLS = (1 << 29) - 1;

    private final int rootLevel;
    private final Part root;

    /** @param rootLevel level of the root node, or -1 for the empty tree (then root is null) */
    public LowerProof(int rootLevel, Part root) {
        if (rootLevel < -1 || (rootLevel == -1) != (root == null)
                || rootLevel > MAX_ROOT_LEVEL && ROOT_LEVEL_OVER_254.enforced()) {
            throw new IllegalArgumentException("bad root level " + rootLevel);
        }
        this.rootLevel = rootLevel;
        this.root = root;
    }

    public int rootLevel() {
        return rootLevel;
    }

    public Part root() {
        return root;
    }

    // ---------------------------------------------------------------- encoding

    public byte[] encode() {
        ByteWriter w = new ByteWriter(512);
        encode(w);
        return w.toByteArray();
    }

    /**
     * @throws IllegalArgumentException if the parts do not form a tree the encoding can express: a root or child
     *                                  slot that is not a Boundary, a Boundary or entry at the wrong level, a
     *                                  separator outside its range
     */
    public void encode(ByteWriter w) {
        w.varint(rootLevel + 1L);
        if (root == null) {
            return;
        }
        if (!(root instanceof Boundary b)) {
            throw new IllegalArgumentException("the root part must be a node boundary");
        }
        Encoder e = new Encoder();
        e.content(b.content(), rootLevel, null, null);
        w.varint(e.count);
        byte[] syms = new byte[(3 * e.count + 7) / 8];
        for (int i = 0; i < e.count; i++) {
            int v = e.symbols[i];
            for (int k = 0; k < 3; k++) {
                if ((v & (4 >> k)) != 0) {
                    int bit = 3 * i + k;
                    syms[bit >> 3] |= (byte) (0x80 >>> (bit & 7));
                }
            }
        }
        w.raw(syms);
        w.raw(e.payload.toByteArray());
    }

    /** Symbols and payloads in preorder; node boundaries are implied by position and cost nothing. */
    private static final class Encoder {
        byte[] symbols = new byte[64];
        int count;
        final ByteWriter payload = new ByteWriter(512);

        void symbol(int s) {
            if (count == symbols.length) {
                symbols = java.util.Arrays.copyOf(symbols, count * 2);
            }
            symbols[count++] = (byte) s;
        }

        /** A part inside a node at {@code level}. */
        void content(Part p, int level, Bytes lo, Bytes hi) {
            if (p instanceof Pruned pr) {
                symbol(SYM_PRUNED);
                payload.hash(pr.hash());
            } else if (p instanceof Inner in) {
                int cp = commonPrefix(lo, hi);
                Bytes sep = in.sep();
                if (sep.length() <= cp || (cp > 0 && !sep.prefix(cp).equals(lo.prefix(cp)))) {
                    throw new IllegalArgumentException("separator " + sep + " lies outside its range");
                }
                int n = sep.length() - cp;
                if (n <= SHORT_SUFFIX_MAX) {
                    symbol(SYM_INNER_1 + n - 1);
                } else {
                    symbol(SYM_INNER_LONG);
                    payload.varint(n - SHORT_SUFFIX_MAX - 1L);
                }
                payload.raw(sep.unsafeArray(), cp, n);
                content(in.left(), level, lo, sep);
                content(in.right(), level, sep, hi);
            } else if (p instanceof Boundary b) {
                if (level == 0) {
                    throw new IllegalArgumentException("node boundary inside a leaf");
                }
                symbol(SYM_ITEM);
                content(b.content(), level - 1, lo, hi);
            } else {
                Leaf l = (Leaf) p;
                if (level != 0) {
                    throw new IllegalArgumentException("entry inside an index node");
                }
                if (l.owner() == 0) {
                    symbol(SYM_ITEM);
                } else {
                    symbol(SYM_ENTRY);
                    payload.varint(l.owner() < 0 ? 0 : l.owner());
                    if (!l.claimed()) {
                        payload.lengthPrefixed(l.key());
                        if (l.valueHash() == null) {
                            payload.u8(VALUE_NONE);
                        } else {
                            payload.u8(VALUE_HASH);
                            payload.hash(l.valueHash());
                        }
                    }
                }
                payload.varint(l.version());
            }
        }
    }

    /** Length of the common prefix of the bounds of a range; 0 when either side is open. */
    static int commonPrefix(Bytes lo, Bytes hi) {
        if (lo == null || hi == null) {
            return 0;
        }
        int m = java.util.Arrays.mismatch(lo.unsafeArray(), hi.unsafeArray());
        return m < 0 ? lo.length() : m;
    }

    public static LowerProof decode(byte[] data) {
        ByteReader r = new ByteReader(data);
        LowerProof p = decode(r);
        r.expectEnd();
        return p;
    }

    public static LowerProof decode(ByteReader r) {
        int rootLevel = r.varint(MAX_ROOT_LEVEL + 1, ROOT_LEVEL_OVER_254) - 1;
        if (rootLevel < 0) {
            return new LowerProof(-1, null);
        }
        int count = r.varint(MAX_SYMBOLS, SYMBOL_COUNT_OVER_LIMIT);
        int symBytes = (int) ((3L * count + 7) / 8);
        byte[] a = r.array();
        int start = r.position();
        // The bitmap must be there before anything is sized by its count.
        r.skip(symBytes);
        int[] syms = new int[count];
        for (int i = 0; i < count; i++) {
            int v = 0;
            for (int k = 0; k < 3; k++) {
                int bit = 3 * i + k;
                v = (v << 1) | ((a[start + (bit >> 3)] >>> (7 - (bit & 7))) & 1);
            }
            syms[i] = v;
        }
        int used = 3 * count;
        if (used % 8 != 0 && (a[start + symBytes - 1] & (0xff >>> (used % 8))) != 0
                && SYMBOL_PADDING_NOT_ZERO.enforced()) {
            throw new MalformedException("non-zero padding in symbol bitmap");
        }
        int[] next = {0};
        Part root = new Boundary(readContent(r, syms, next, 1, rootLevel, null, null));
        if (next[0] != count && SYMBOLS_LEFT_OVER.enforced()) {
            throw new MalformedException("symbol bitmap has " + (count - next[0]) + " unused symbols");
        }
        return new LowerProof(rootLevel, root);
    }

    /** Reads a part inside a node at {@code level}, at {@code depth} (its Inner and Boundary ancestors). */
    private static Part readContent(ByteReader r, int[] syms, int[] next, int depth, int level, Bytes lo, Bytes hi) {
        if (depth > MAX_DEPTH && NESTED_TOO_DEEP.enforced()) {
            throw new MalformedException("proof nested too deep");
        }
        if (next[0] >= syms.length && SYMBOLS_RUN_OUT.enforced()) {
            throw new MalformedException("symbol bitmap too short");
        }
        int s = syms[next[0]++];
        if (s == SYM_PRUNED) {
            return new Pruned(r.hash());
        }
        if (s >= SYM_INNER_1) {
            int cp = commonPrefix(lo, hi);
            int n = s == SYM_INNER_LONG
                    ? r.varint(Math.max(0, Entry.MAX_KEY_BYTES - cp - SHORT_SUFFIX_MAX - 1), SEPARATOR_OVER_1024)
                            + SHORT_SUFFIX_MAX + 1
                    : s - SYM_INNER_1 + 1;
            if (n > Entry.MAX_KEY_BYTES - cp && SEPARATOR_OVER_1024.enforced()) {
                throw new MalformedException("separator over " + Entry.MAX_KEY_BYTES + " bytes");
            }
            Bytes suffix = r.bytes(n);
            byte[] sep = new byte[cp + n];
            if (cp > 0) {
                System.arraycopy(lo.unsafeArray(), 0, sep, 0, cp);
            }
            System.arraycopy(suffix.unsafeArray(), 0, sep, cp, n);
            Bytes b = Bytes.wrap(sep);
            Part left = readContent(r, syms, next, depth + 1, level, lo, b);
            Part right = readContent(r, syms, next, depth + 1, level, b, hi);
            return new Inner(b, left, right);
        }
        if (level > 0) {
            if (s != SYM_ITEM && ENTRY_SYMBOL_IN_INDEX_NODE.enforced()) {
                throw new MalformedException("entry inside an index node");
            }
            return new Boundary(readContent(r, syms, next, depth + 1, level - 1, lo, hi));
        }
        int owner = 0;
        Bytes key = null;
        Hash valueHash = null;
        if (s == SYM_ENTRY) {
            owner = r.varint(1 << 20, OWNER_OVER_LIMIT) - 1;
            if (owner == -1) {
                key = r.lengthPrefixed(Entry.MAX_KEY_BYTES, KEY_TOO_LONG);
                if (key.length() == 0 && KEY_EMPTY.enforced()) {
                    throw new MalformedException("empty key");
                }
                int marker = r.u8();
                if (marker == VALUE_HASH) {
                    valueHash = r.hash();
                } else if (marker != VALUE_NONE && VALUE_MARKER_UNKNOWN.enforced()) {
                    throw new MalformedException("value marker " + marker + " of a hashed-form entry is not 0 or 1");
                }
            } else {
                owner++;
            }
        }
        long version = r.varint();
        return new Leaf(owner, key, valueHash, version);
    }

    // ---------------------------------------------------------------- verification

    /**
     * Routes each claim down the partial tree, checks the leaf it reaches, and returns the root hash the proof
     * then implies. The caller compares that root with the one it trusts.
     *
     * @param claims   distinct keys, any order
     * @param resolved if not null, receives per claim (same order) the entry found, or null when the key is missing
     */
    public Hash computeRoot(List<KeyClaim> claims, Entry[] resolved) throws VerificationException {
        if (claims.isEmpty() && NO_CLAIMS.enforced()) {
            throw new VerificationException("no claims");
        }
        List<Integer> order = new ArrayList<>(claims.size());
        for (int i = 0; i < claims.size(); i++) {
            order.add(i);
        }
        order.sort((x, y) -> claims.get(x).key().compareTo(claims.get(y).key()));
        for (int i = 1; i < order.size(); i++) {
            if (claims.get(order.get(i - 1)).key().equals(claims.get(order.get(i)).key())
                    && DUPLICATE_CLAIMS.enforced()) {
                throw new VerificationException("duplicate claim for key " + claims.get(order.get(i)).key());
            }
        }
        if (root == null) {
            for (KeyClaim c : claims) {
                if (!c.isAbsent() && VALUE_CLAIMED_IN_EMPTY_TREE.enforced()) {
                    throw new VerificationException("tree is empty but a value is claimed for " + c.key());
                }
            }
            return Hash.ZERO;
        }
        if (!(root instanceof Boundary) && PART_OUT_OF_PLACE.enforced()) {
            throw new VerificationException("proof root is not a node");
        }
        return hash(root, rootLevel, true, claims, order, resolved);
    }

    /**
     * @param level    level of the node this part belongs to (for a Boundary: its own level)
     * @param nodeTop  true when the part is a node boundary position (an item slot of the parent)
     */
    private Hash hash(Part p, int level, boolean nodeTop, List<KeyClaim> claims, List<Integer> idx,
            Entry[] resolved) throws VerificationException {
        if (p instanceof Pruned pr) {
            if (!idx.isEmpty() && CLAIM_NOT_COVERED.enforced()) {
                throw new VerificationException("proof does not cover key " + claims.get(idx.get(0)).key());
            }
            return pr.hash();
        }
        if (idx.isEmpty() && UNREACHED_EXPANSION.enforced()) {
            throw new VerificationException("proof expands a subtree that no claimed key reaches");
        }
        if (nodeTop && p instanceof Boundary b) {
            if (level < 0 && PART_OUT_OF_PLACE.enforced()) {
                throw new VerificationException("node boundary below level 0");
            }
            if (b.content() instanceof Pruned && NODE_CONTENT_PRUNED.enforced()) {
                throw new VerificationException("node with pruned content");
            }
            return Hashing.node(level, hash(b.content(), level, false, claims, idx, resolved));
        }
        if (nodeTop && PART_OUT_OF_PLACE.enforced()) {
            throw new VerificationException(level == 0 && p instanceof Leaf
                    ? "entry where a node boundary belongs" : "expected a node boundary");
        }
        if (p instanceof Inner in) {
            {
                List<Integer> left = new ArrayList<>();
                List<Integer> right = new ArrayList<>();
                for (int i : idx) {
                    (claims.get(i).key().compareTo(in.sep()) < 0 ? left : right).add(i);
                }
                Hash l = hash(in.left(), level, false, claims, left, resolved);
                Hash r = hash(in.right(), level, false, claims, right, resolved);
                return Hashing.inner(in.sep().unsafeArray(), l, r);
            }
        } else if (p instanceof Boundary b) {
            {
                // An item slot of an index node: the child node one level down.
                if (level == 0 && PART_OUT_OF_PLACE.enforced()) {
                    throw new VerificationException("node boundary inside a leaf");
                }
                return hash(b, level - 1, true, claims, idx, resolved);
            }
        } else {
            Leaf leaf = (Leaf) p;
            {
                if (level != 0 && PART_OUT_OF_PLACE.enforced()) {
                    throw new VerificationException("entry inside an index node");
                }
                return leafHash(leaf, claims, idx, resolved);
            }
        }
    }

    private static Entry entry(Bytes key, Bytes value, long version) throws VerificationException {
        try {
            return Entry.of(key, value, version);
        } catch (IllegalArgumentException e) {
            throw new VerificationException("claim cannot be an entry: " + e.getMessage());
        }
    }

    private static Hash leafHash(Leaf leaf, List<KeyClaim> claims, List<Integer> idx, Entry[] resolved)
            throws VerificationException {
        if (leaf.claimed()) {
            if (leaf.owner() >= idx.size() && OWNER_OUT_OF_RANGE.enforced()) {
                throw new VerificationException("claimed entry's owner " + leaf.owner() + " is not among the "
                        + idx.size() + " keys that reach it");
            }
            for (int j = 0; j < idx.size(); j++) {
                KeyClaim c = claims.get(idx.get(j));
                if (j == leaf.owner()) {
                    continue;
                }
                if (!c.isAbsent() && NON_OWNER_CLAIMED_PRESENT.enforced()) {
                    throw new VerificationException("key " + c.key() + " is not in the tree");
                }
                if (resolved != null) {
                    resolved[idx.get(j)] = null;
                }
            }
            KeyClaim c = claims.get(idx.get(leaf.owner()));
            // The claimed value is hashed here, by the verifier: a claim is never taken on a hash.
            Entry e = entry(c.key(), c.value(), leaf.version());
            if (resolved != null) {
                resolved[idx.get(leaf.owner())] = e;
            }
            return e.hash();
        }
        if (leaf.key() == null && PART_OUT_OF_PLACE.enforced()) {
            throw new VerificationException("hashed-form entry without a key");
        }
        Hash h;
        try {
            h = Entry.hashOf(leaf.key(), leaf.valueHash(), leaf.version());
        } catch (IllegalArgumentException ex) {
            throw new VerificationException("hashed-form entry is malformed: " + ex.getMessage());
        }
        for (int i : idx) {
            KeyClaim c = claims.get(i);
            // Only a claimed-form entry can prove a value: a claimed key shown by a hash is refused.
            if (c.key().equals(leaf.key()) && CLAIMED_KEY_IN_HASHED_FORM.enforced()) {
                throw new VerificationException("entry for a claimed key must be in claimed form");
            }
            if (!c.isAbsent() && PRESENT_CLAIM_ON_HASHED_ENTRY.enforced()) {
                throw new VerificationException("key " + c.key() + " is not in the tree");
            }
            if (resolved != null) {
                resolved[i] = null;
            }
        }
        return h;
    }
}
