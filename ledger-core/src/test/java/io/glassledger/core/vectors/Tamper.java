package io.glassledger.core.vectors;

import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.proof.KeysProof;
import io.glassledger.verify.proof.LowerProof;
import io.glassledger.verify.proof.LowerProof.Boundary;
import io.glassledger.verify.proof.LowerProof.Inner;
import io.glassledger.verify.proof.LowerProof.Leaf;
import io.glassledger.verify.proof.LowerProof.Part;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Function;

/** Mutations of encoded proofs, byte-level and structural. Each returns a new array or proof. */
final class Tamper {
    private Tamper() {
    }

    static byte[] flip(byte[] p, int index, int bit) {
        byte[] t = p.clone();
        t[index] ^= (byte) (1 << bit);
        return t;
    }

    static byte[] truncated(byte[] p) {
        return Arrays.copyOf(p, p.length - 1);
    }

    static byte[] trailingGarbage(byte[] p) {
        return Arrays.copyOf(p, p.length + 1);
    }

    static byte[] splice(byte[] p, int from, int to, byte[] replacement) {
        byte[] t = new byte[p.length - (to - from) + replacement.length];
        System.arraycopy(p, 0, t, 0, from);
        System.arraycopy(replacement, 0, t, from, replacement.length);
        System.arraycopy(p, to, t, from + replacement.length, p.length - to);
        return t;
    }

    /** The varint at {@code offset} re-encoded with one redundant trailing 0x00 group. */
    static byte[] nonMinimalVarint(byte[] p, int offset) {
        int end = offset;
        while ((p[end] & 0x80) != 0) {
            end++;
        }
        byte[] longer = Arrays.copyOfRange(p, offset, end + 2);
        longer[end - offset] |= (byte) 0x80;
        longer[end - offset + 1] = 0;
        return splice(p, offset, end + 1, longer);
    }

    /**
     * Flip positions spread over a proof: the given landmarks (field starts), then evenly spaced bytes, then the
     * last byte. The bit flipped at byte i is i mod 8, so every bit position occurs.
     */
    static TreeSet<Integer> flipPositions(int length, int spread, int... landmarks) {
        TreeSet<Integer> at = new TreeSet<>();
        for (int l : landmarks) {
            if (l >= 0 && l < length) {
                at.add(l);
            }
        }
        for (int k = 1; k <= spread; k++) {
            at.add((int) ((long) k * length / (spread + 1)));
        }
        at.add(length - 1);
        return at;
    }

    // ---------------------------------------------------------------- lower proofs

    /**
     * Offsets, inside a lower-proof encoding, of its fields, and its symbols. count is -1 for the empty tree.
     * {@code symbols.get(i)} is symbol i, and {@code levels.get(i)} the level of the node it was read in.
     */
    record LowerLayout(int countAt, int count, int symbolsAt, int symbolsLen, List<Integer> symbols,
            List<Integer> levels) {
        int payloadAt() {
            return symbolsAt + symbolsLen;
        }
    }

    static LowerLayout layout(LowerProof p) {
        int countAt = ByteWriter.varintSize(p.rootLevel() + 1L);
        if (p.root() == null) {
            return new LowerLayout(countAt, -1, countAt, 0, List.of(), List.of());
        }
        Walk w = walk(p, null);
        int count = w.symbols.size();
        return new LowerLayout(countAt, count, countAt + ByteWriter.varintSize(count), symbolBytes(count),
                List.copyOf(w.symbols), List.copyOf(w.levels));
    }

    /** Bytes taken by {@code count} 3-bit symbols. */
    static int symbolBytes(int count) {
        return (3 * count + 7) / 8;
    }

    /** Replaces the first part (preorder) for which {@code f} returns non-null; null if none matched. */
    static Part replaceFirst(Part p, Function<Part, Part> f) {
        Part r = f.apply(p);
        if (r != null) {
            return r;
        }
        if (p instanceof Inner in) {
            Part l = replaceFirst(in.left(), f);
            if (l != null) {
                return new Inner(in.sep(), l, in.right());
            }
            Part rr = replaceFirst(in.right(), f);
            return rr == null ? null : new Inner(in.sep(), in.left(), rr);
        }
        if (p instanceof Boundary b) {
            Part c = replaceFirst(b.content(), f);
            return c == null ? null : new Boundary(c);
        }
        return null;
    }

    static LowerProof replaceFirst(LowerProof p, Function<Part, Part> f) {
        Part r = replaceFirst(p.root(), f);
        return r == null ? null : new LowerProof(p.rootLevel(), r);
    }

    /** The first claimed-form leaf rewritten in hashed form with the given key and value hash (same entry hash). */
    static LowerProof hashedFormLeaf(LowerProof p, Bytes key, Hash valueHash) {
        return replaceFirst(p, x -> x instanceof Leaf l && l.claimed()
                ? Leaf.hashed(key, valueHash, l.version()) : null);
    }

    /** The first claimed-form leaf with its owner index raised by one. */
    static LowerProof ownerPlusOne(LowerProof p) {
        return replaceFirst(p, x -> x instanceof Leaf l && l.claimed()
                ? Leaf.claimed(l.owner() + 1, l.version()) : null);
    }

    /** The first hashed-form (neighbour) leaf rewritten in claimed form, owner 0. */
    static LowerProof claimNeighbour(LowerProof p) {
        return replaceFirst(p, x -> x instanceof Leaf l && !l.claimed()
                ? Leaf.claimed(0, l.version()) : null);
    }

    // ---------------------------------------------------------------- the FORMAT.md encoder

    static final int SYM_PRUNED = 0;
    /** A child node (level >= 1) or a claimed-form entry with owner 0 (level 0). */
    static final int SYM_ITEM = 1;
    /** Any other entry form (level 0 only). */
    static final int SYM_ENTRY = 2;
    /** Symbols 3..6: an Inner with a separator suffix of 1..4 bytes. */
    static final int SYM_INNER_SHORT = 3;
    /** An Inner with varint(n - 5) and a separator suffix of n >= 5 bytes. */
    static final int SYM_INNER_LONG = 7;

    /** How one Inner part is written: its symbol and its payload (the part's own bytes, not its children's). */
    record InnerCode(int symbol, byte[] payload) {
    }

    /** Replaces how one Inner part is written; returns null to keep the canonical code. */
    interface InnerPayload {
        /**
         * @param inner index of the Inner part among the Inner parts, in preorder
         * @param sep   its separator
         * @param cp    length of the common prefix of its range bounds (0 if either is open)
         */
        InnerCode code(int inner, Bytes sep, int cp);
    }

    /** The canonical code of a separator suffix (FORMAT.md §9.2): symbols 3..6 for 1..4 bytes, else symbol 7. */
    static InnerCode innerCode(byte[] suffix) {
        if (suffix.length >= 1 && suffix.length <= 4) {
            return new InnerCode(SYM_INNER_SHORT + suffix.length - 1, suffix);
        }
        return longInner(suffix.length, suffix);
    }

    /** Symbol 7 declaring a suffix of {@code n} bytes (n >= 5), followed by {@code bytes}. */
    static InnerCode longInner(int n, byte[] bytes) {
        return new InnerCode(SYM_INNER_LONG, new ByteWriter().varint(n - 5L).raw(bytes).toByteArray());
    }

    /**
     * A lower-proof encoder written from FORMAT.md §9.2 (3-bit symbols, implied node boundaries, relative
     * separators), independent of {@link LowerProof#encode()}, with a hook that may replace how any Inner part is
     * written. With a null hook it must give the reference encoding byte for byte.
     *
     * @throws IllegalArgumentException for parts the encoding cannot express (a Boundary where none is implied, an
     *                                  entry in an index node, a separator outside its range)
     */
    static byte[] encodeLower(LowerProof p, InnerPayload hook) {
        return encodeLower(p, hook, -1);
    }

    /**
     * {@link #encodeLower(LowerProof, InnerPayload)} with the value marker of the first hashed-form entry written as
     * {@code marker} (followed by its 32-byte value hash, or nothing for a tombstone, as before); -1 keeps it.
     */
    static byte[] encodeLower(LowerProof p, InnerPayload hook, int marker) {
        return encodeLower(p.rootLevel(), p.root(), hook, marker);
    }

    /**
     * The encoding of a proof with root level {@code rootLevel} and root part {@code root} (null: the empty tree),
     * which need not make a {@link LowerProof}: a root level over the limit too.
     */
    static byte[] encodeLower(int rootLevel, Part root, InnerPayload hook, int marker) {
        ByteWriter w = new ByteWriter();
        w.varint(rootLevel + 1L);
        if (root == null) {
            return w.toByteArray();
        }
        Walk walk = walk(rootLevel, root, hook, marker);
        w.varint(walk.symbols.size());
        w.raw(packSymbols(walk.symbols));
        w.raw(walk.payload.toByteArray());
        return w.toByteArray();
    }

    /** Symbols packed 3 bits each, most significant bit first, the last byte padded with zero bits. */
    static byte[] packSymbols(List<Integer> symbols) {
        ByteWriter w = new ByteWriter();
        int acc = 0;
        int bits = 0;
        for (int s : symbols) {
            if (s < 0 || s > 7) {
                throw new IllegalArgumentException("symbol " + s);
            }
            acc = (acc << 3) | s;
            bits += 3;
            if (bits >= 8) {
                w.u8((acc >>> (bits - 8)) & 0xff);
                bits -= 8;
                acc &= (1 << bits) - 1;
            }
        }
        if (bits > 0) {
            w.u8((acc << (8 - bits)) & 0xff);
        }
        return w.toByteArray();
    }

    private static Walk walk(LowerProof p, InnerPayload hook) {
        return walk(p, hook, -1);
    }

    private static Walk walk(LowerProof p, InnerPayload hook, int marker) {
        return walk(p.rootLevel(), p.root(), hook, marker);
    }

    private static Walk walk(int rootLevel, Part root, InnerPayload hook, int marker) {
        if (!(root instanceof Boundary b)) {
            throw new IllegalArgumentException("the root part must be a node boundary");
        }
        Walk w = new Walk(hook);
        w.marker = marker;
        w.content(b.content(), rootLevel, null, null);
        return w;
    }

    /** The preorder walk of §9.2: one symbol per part, Boundaries implied. */
    private static final class Walk {
        final List<Integer> symbols = new ArrayList<>();
        final List<Integer> levels = new ArrayList<>();
        final ByteWriter payload = new ByteWriter();
        final InnerPayload hook;
        int inners;
        /** Value marker for the next hashed-form entry, -1 for the canonical one. */
        int marker = -1;

        Walk(InnerPayload hook) {
            this.hook = hook;
        }

        void symbol(int s, int level) {
            symbols.add(s);
            levels.add(level);
        }

        /** A part at the top of, or inside, a node at {@code level}, with range (lo, hi). */
        void content(Part p, int level, Bytes lo, Bytes hi) {
            if (p instanceof LowerProof.Pruned pr) {
                symbol(SYM_PRUNED, level);
                payload.hash(pr.hash());
            } else if (p instanceof Inner in) {
                int cp = commonPrefix(lo, hi);
                byte[] s = in.sep().unsafeArray();
                if (s.length <= cp || (cp > 0 && !Arrays.equals(s, 0, cp, lo.unsafeArray(), 0, cp))) {
                    throw new IllegalArgumentException("separator " + in.sep() + " lies outside its range");
                }
                InnerCode code = hook == null ? null : hook.code(inners, in.sep(), cp);
                inners++;
                if (code == null) {
                    code = innerCode(Arrays.copyOfRange(s, cp, s.length));
                }
                symbol(code.symbol(), level);
                payload.raw(code.payload());
                content(in.left(), level, lo, in.sep());
                content(in.right(), level, in.sep(), hi);
            } else if (p instanceof Boundary b) {
                if (level < 1) {
                    throw new IllegalArgumentException("a node boundary inside a leaf cannot be encoded");
                }
                symbol(SYM_ITEM, level);
                content(b.content(), level - 1, lo, hi);
            } else {
                Leaf l = (Leaf) p;
                if (level != 0) {
                    throw new IllegalArgumentException("an entry inside an index node cannot be encoded");
                }
                if (l.owner() == 0) {
                    symbol(SYM_ITEM, level);
                } else {
                    symbol(SYM_ENTRY, level);
                    payload.varint(l.claimed() ? l.owner() : 0);
                    if (!l.claimed()) {
                        // Hashed form: lp(key), u8 value marker (00 tombstone, 01 value hash follows).
                        payload.lengthPrefixed(l.key());
                        payload.u8(marker >= 0 ? marker : l.valueHash() == null ? 0 : 1);
                        marker = -1;
                        if (l.valueHash() != null) {
                            payload.hash(l.valueHash());
                        }
                    }
                }
                payload.varint(l.version());
            }
        }
    }

    /** Length of the common prefix of two range bounds; 0 when either is open (null). */
    static int commonPrefix(Bytes lo, Bytes hi) {
        if (lo == null || hi == null) {
            return 0;
        }
        byte[] a = lo.unsafeArray();
        byte[] b = hi.unsafeArray();
        int i = 0;
        while (i < a.length && i < b.length && a[i] == b[i]) {
            i++;
        }
        return i;
    }

    /** For each Inner part in preorder, the common-prefix length of its range, and whether a bound comes from an
     *  ancestor node (across a Boundary). */
    record InnerRange(Bytes sep, int cp, boolean boundFromAncestorNode) {
    }

    static List<InnerRange> innerRanges(LowerProof p) {
        List<InnerRange> out = new ArrayList<>();
        if (p.root() != null) {
            ranges(p.root(), null, null, false, false, out);
        }
        return out;
    }

    /** loOuter / hiOuter: the bound was set by an Inner of an ancestor node. */
    private static void ranges(Part p, Bytes lo, Bytes hi, boolean loOuter, boolean hiOuter, List<InnerRange> out) {
        if (p instanceof Boundary b) {
            ranges(b.content(), lo, hi, lo != null, hi != null, out);
        } else if (p instanceof Inner in) {
            int cp = commonPrefix(lo, hi);
            out.add(new InnerRange(in.sep(), cp, cp > 0 && (loOuter || hiOuter)));
            ranges(in.left(), lo, in.sep(), loOuter, false, out);
            ranges(in.right(), in.sep(), hi, false, hiOuter, out);
        }
    }

    /** Largest depth of a part under {@code p} (Inner and Boundary ancestors counted), p itself at {@code depth}. */
    static int maxDepth(Part p, int depth) {
        if (p instanceof Inner in) {
            return Math.max(maxDepth(in.left(), depth + 1), maxDepth(in.right(), depth + 1));
        } else if (p instanceof Boundary b) {
            return maxDepth(b.content(), depth + 1);
        }
        return depth;
    }

    /**
     * A leaf (root level 0) whose routing tree is a chain of {@code depth - 1} Inner parts, each with a pruned right
     * sibling, ending in a claimed entry nested {@code depth} deep.
     */
    static LowerProof nestedTooDeep(int depth) {
        Part p = Leaf.claimed(0, 1);
        for (int i = 0; i < depth - 1; i++) {
            p = new Inner(Bytes.utf8("z"), p, new LowerProof.Pruned(Hash.ZERO));
        }
        return new LowerProof(0, new Boundary(p));
    }

    /** Eight more symbols declared (all 0, in three more symbol bytes) than the proof uses. */
    static byte[] extraSymbols(byte[] lowerEnc, LowerLayout l) {
        ByteWriter w = new ByteWriter();
        w.raw(lowerEnc, 0, l.countAt());
        w.varint(l.count() + 8L);
        w.raw(lowerEnc, l.symbolsAt(), l.symbolsLen());
        w.raw(new byte[3]);
        w.raw(lowerEnc, l.payloadAt(), lowerEnc.length - l.payloadAt());
        return w.toByteArray();
    }

    /** The lower-proof encoding with symbol {@code index} replaced by {@code symbol}; payloads unchanged. */
    static byte[] withSymbol(byte[] lowerEnc, LowerLayout l, int index, int symbol) {
        List<Integer> syms = new ArrayList<>(l.symbols());
        syms.set(index, symbol);
        byte[] packed = packSymbols(syms);
        return splice(lowerEnc, l.symbolsAt(), l.payloadAt(), packed);
    }

    /** A keys proof with another lower proof. */
    static KeysProof withLower(KeysProof p, LowerProof lower) {
        return new KeysProof(p.blockNo(), p.anchor(), lower);
    }

    /** An older-form keys proof with another upper path. */
    static KeysProof withPath(KeysProof p, List<Hash> path) {
        KeysProof.Older o = (KeysProof.Older) p.anchor();
        return new KeysProof(p.blockNo(), new KeysProof.Older(o.bodyHash(), path, o.digestLowerRoot(),
                o.digestBodyHash()), p.lower());
    }

    /** A keys proof with another anchor. */
    static KeysProof withAnchor(KeysProof p, KeysProof.Anchor anchor) {
        return new KeysProof(p.blockNo(), anchor, p.lower());
    }

    /**
     * The root FORMAT.md §7.1 computes from an inclusion path, without its two length checks: a path with hashes
     * to spare hashes them in (sibling on the left), and one that stops early gives the root of a subtree.
     */
    static Hash inclusionRootWithoutLengthChecks(long index, long size, Hash leaf, List<Hash> path) {
        long fn = index;
        long sn = size - 1;
        Hash r = leaf;
        for (Hash c : path) {
            if ((fn & 1) == 1 || fn == sn) {
                r = io.glassledger.verify.hash.Hashing.upperInner(c, r);
                while ((fn & 1) == 0 && fn != 0) {
                    fn >>= 1;
                    sn >>= 1;
                }
            } else {
                r = io.glassledger.verify.hash.Hashing.upperInner(r, c);
            }
            fn >>= 1;
            sn >>= 1;
        }
        return r;
    }

    /** Offset of the lower proof inside a keys-proof encoding. */
    static int lowerOffset(KeysProof p) {
        return p.encode().length - p.lower().encode().length;
    }
}
