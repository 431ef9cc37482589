package io.glassledger.core.vectors;

import io.glassledger.core.codec.ByteWriter;
import io.glassledger.core.hash.Bytes;
import io.glassledger.core.hash.Hash;
import io.glassledger.core.proof.KeysProof;
import io.glassledger.core.proof.LowerProof;
import io.glassledger.core.proof.LowerProof.Boundary;
import io.glassledger.core.proof.LowerProof.Inner;
import io.glassledger.core.proof.LowerProof.Leaf;
import io.glassledger.core.proof.LowerProof.Part;
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

    /** Offsets, inside a lower-proof encoding, of its fields. count is -1 for the empty tree. */
    record LowerLayout(int countAt, int count, int bitmapAt, int bitmapLen) {
        int payloadAt() {
            return bitmapAt + bitmapLen;
        }
    }

    static LowerLayout layout(LowerProof p) {
        int countAt = ByteWriter.varintSize(p.rootLevel() + 1L);
        if (p.root() == null) {
            return new LowerLayout(countAt, -1, countAt, 0);
        }
        int count = preorder(p.root()).size();
        return new LowerLayout(countAt, count, countAt + ByteWriter.varintSize(count), (count + 3) / 4);
    }

    static List<Part> preorder(Part root) {
        List<Part> out = new ArrayList<>();
        List<Part> stack = new ArrayList<>(List.of(root));
        while (!stack.isEmpty()) {
            Part p = stack.remove(stack.size() - 1);
            out.add(p);
            if (p instanceof Inner in) {
                stack.add(in.right());
                stack.add(in.left());
            } else if (p instanceof Boundary b) {
                stack.add(b.content());
            }
        }
        return out;
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

    /** The first claimed-form leaf rewritten in full form with the given key and value (same entry hash). */
    static LowerProof fullFormLeaf(LowerProof p, Bytes key, Bytes value) {
        return replaceFirst(p, x -> x instanceof Leaf l && l.claimed()
                ? new Leaf(-1, key, value, l.version(), l.prev()) : null);
    }

    /** The first claimed-form leaf with its owner index raised by one. */
    static LowerProof ownerPlusOne(LowerProof p) {
        return replaceFirst(p, x -> x instanceof Leaf l && l.claimed()
                ? new Leaf(l.owner() + 1, null, null, l.version(), l.prev()) : null);
    }

    /** The first full-form (neighbour) leaf rewritten in claimed form, owner 0. */
    static LowerProof claimNeighbour(LowerProof p) {
        return replaceFirst(p, x -> x instanceof Leaf l && !l.claimed()
                ? new Leaf(0, null, null, l.version(), l.prev()) : null);
    }

    // ---------------------------------------------------------------- separator payloads

    /** Replaces the payload of one Inner part; returns null to keep the canonical payload. */
    interface InnerPayload {
        /**
         * @param inner index of the Inner part among the Inner parts, in preorder
         * @param sep   its separator
         * @param cp    length of the common prefix of its range bounds (0 if either is open)
         */
        byte[] payload(int inner, Bytes sep, int cp);
    }

    /**
     * A lower-proof encoder written from FORMAT.md §9.2 (relative separators), independent of
     * {@link LowerProof#encode()}, with a hook that may replace any Inner payload. With a null hook it must give the
     * reference encoding byte for byte.
     */
    static byte[] encodeLower(LowerProof p, InnerPayload hook) {
        ByteWriter w = new ByteWriter();
        w.varint(p.rootLevel() + 1L);
        if (p.root() == null) {
            return w.toByteArray();
        }
        List<Part> order = preorder(p.root());
        w.varint(order.size());
        byte[] kinds = new byte[(order.size() + 3) / 4];
        for (int i = 0; i < order.size(); i++) {
            Part x = order.get(i);
            int k = x instanceof LowerProof.Pruned ? 0 : x instanceof Inner ? 1 : x instanceof Boundary ? 2 : 3;
            kinds[i / 4] |= (byte) (k << (6 - 2 * (i % 4)));
        }
        w.raw(kinds);
        payloads(p.root(), null, null, w, hook, new int[1]);
        return w.toByteArray();
    }

    private static void payloads(Part p, Bytes lo, Bytes hi, ByteWriter w, InnerPayload hook, int[] inners) {
        if (p instanceof LowerProof.Pruned pr) {
            w.hash(pr.hash());
        } else if (p instanceof Boundary b) {
            payloads(b.content(), lo, hi, w, hook, inners);
        } else if (p instanceof Inner in) {
            int cp = commonPrefix(lo, hi);
            byte[] s = in.sep().unsafeArray();
            byte[] replaced = hook == null ? null : hook.payload(inners[0], in.sep(), cp);
            inners[0]++;
            if (replaced != null) {
                w.raw(replaced);
            } else {
                w.varint(s.length - cp);
                w.raw(s, cp, s.length - cp);
            }
            payloads(in.left(), lo, in.sep(), w, hook, inners);
            payloads(in.right(), in.sep(), hi, w, hook, inners);
        } else {
            Leaf l = (Leaf) p;
            w.varint(l.owner() + 1L);
            if (!l.claimed()) {
                w.lengthPrefixed(l.key());
                if (l.value() == null) {
                    w.varint(0);
                } else {
                    w.varint(l.value().length() + 1L);
                    w.raw(l.value().unsafeArray());
                }
            }
            w.varint(l.version());
            w.hash(l.prev());
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

    /** A chain of {@code depth} node boundaries under a root of level 255, ending in a claimed leaf. */
    static LowerProof nestedTooDeep(int depth) {
        Part p = new Leaf(0, null, null, 1, Hash.ZERO);
        for (int i = 0; i < depth; i++) {
            p = new Boundary(p);
        }
        return new LowerProof(255, p);
    }

    /** Four more kinds declared (all 0, in one more bitmap byte) than the proof uses. */
    static byte[] extraKinds(byte[] lowerEnc, LowerLayout l) {
        ByteWriter w = new ByteWriter();
        w.raw(lowerEnc, 0, l.countAt());
        w.varint(l.count() + 4L);
        w.raw(lowerEnc, l.bitmapAt(), l.bitmapLen());
        w.u8(0);
        w.raw(lowerEnc, l.payloadAt(), lowerEnc.length - l.payloadAt());
        return w.toByteArray();
    }

    /** A keys proof with another lower proof. */
    static KeysProof withLower(KeysProof p, LowerProof lower) {
        return new KeysProof(p.blockNo(), p.bodyHash(), p.upperPath(), p.anchor(), lower);
    }

    static KeysProof withPath(KeysProof p, List<Hash> path) {
        return new KeysProof(p.blockNo(), p.bodyHash(), path, p.anchor(), p.lower());
    }

    /** Offset of the lower proof inside a keys-proof encoding. */
    static int lowerOffset(KeysProof p) {
        return p.encode().length - p.lower().encode().length;
    }
}
