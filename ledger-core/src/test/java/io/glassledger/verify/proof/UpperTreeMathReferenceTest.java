package io.glassledger.verify.proof;

import static io.glassledger.verify.proof.ProofPropertyTest.assertRejected;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import io.glassledger.verify.block.Block;
import io.glassledger.verify.block.BlockSpec;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.core.store.InMemoryNodeStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * Cross-checks the upper tree (the ledger's proof generation and {@link UpperTreeMath}'s verification) against a
 * deliberately naive, recursive transcription of RFC 9162 §2.1.1 (MTH), §2.1.3.1 (PATH) and §2.1.4.1 (PROOF,
 * SUBPROOF), with the upper tree's conventions: a leaf is the block hash itself, an interior node is
 * {@link Hashing#upperInner}, and the empty tree is {@link Hash#ZERO}.
 */
class UpperTreeMathReferenceTest {

    // ------------------------------------------------------------------ naive reference

    /** Largest power of two smaller than n (n &gt;= 2). */
    static int split(int n) {
        int k = 1;
        while (k * 2 < n) {
            k *= 2;
        }
        return k;
    }

    static Hash mth(List<Hash> d) {
        int n = d.size();
        if (n == 0) {
            return Hash.ZERO;
        }
        if (n == 1) {
            return d.get(0);
        }
        int k = split(n);
        return Hashing.upperInner(mth(d.subList(0, k)), mth(d.subList(k, n)));
    }

    static List<Hash> path(int m, List<Hash> d) {
        int n = d.size();
        List<Hash> out = new ArrayList<>();
        if (n <= 1) {
            return out;
        }
        int k = split(n);
        if (m < k) {
            out.addAll(path(m, d.subList(0, k)));
            out.add(mth(d.subList(k, n)));
        } else {
            out.addAll(path(m - k, d.subList(k, n)));
            out.add(mth(d.subList(0, k)));
        }
        return out;
    }

    static List<Hash> proof(int m, List<Hash> d) {
        return subproof(m, d, true);
    }

    static List<Hash> subproof(int m, List<Hash> d, boolean b) {
        int n = d.size();
        List<Hash> out = new ArrayList<>();
        if (m == n) {
            if (!b) {
                out.add(mth(d));
            }
            return out;
        }
        int k = split(n);
        if (m <= k) {
            out.addAll(subproof(m, d.subList(0, k), b));
            out.add(mth(d.subList(k, n)));
        } else {
            out.addAll(subproof(m - k, d.subList(k, n), false));
            out.add(mth(d.subList(0, k)));
        }
        return out;
    }

    // ------------------------------------------------------------------ the ledger against the reference

    @Test
    void ledgerUpperTree_matchesNaiveRfc9162_forSizes1To70() throws VerificationException {
        Ledger l = Ledger.openOrCreate(new InMemoryNodeStore(), new TreeParams(2, 16, 2, 8), 0);
        Random r = new Random(9162);
        Bytes k = Bytes.utf8("k");
        for (int b = 1; b <= 70; b++) {
            List<Mutation> w = List.of(Mutation.put(k, Bytes.wrap(new byte[] {(byte) b})),
                    Mutation.put(Bytes.utf8("x" + r.nextInt(20)), Bytes.utf8("v" + b)));
            l.append(List.of(new BlockSpec(b, List.of(), w)));
        }
        List<Hash> blocks = new ArrayList<>();
        for (int b = 0; b <= 70; b++) {
            blocks.add(l.block(b).hash());
        }
        for (int n = 1; n <= 70; n++) {
            List<Hash> d = blocks.subList(0, n);
            Hash root = mth(d);
            // The digest at block n commits to block n's lower root and, through its tail, to the upper tree over
            // blocks 0..n-1 and block n's body.
            Block bn = l.block(n);
            Hash tail = Hashing.digestTail(root, bn.bodyHash());
            assertEquals(Hashing.digest(n, bn.lowerRoot(), tail), l.digest(n).root(), "digest at block " + n);
            assertEquals(new KeysProof.AtDigest(tail), l.proveKeys(List.of(k), n, n).anchor(), "anchor at " + n);
            for (int m = 0; m < n; m++) {
                List<Hash> expectedPath = path(m, d);
                KeysProof kp = l.proveKeys(List.of(k), m, n);
                KeysProof.Older o = assertInstanceOf(KeysProof.Older.class, kp.anchor());
                assertEquals(expectedPath, o.upperPath(), "inclusion path of block " + m + " in size " + n);
                assertEquals(l.block(m).bodyHash(), o.bodyHash());
                assertEquals(bn.lowerRoot(), o.digestLowerRoot());
                assertEquals(bn.bodyHash(), o.digestBodyHash());
                assertEquals(root, UpperTreeMath.rootFromInclusion(m, n, blocks.get(m), o.upperPath()),
                        "root from inclusion of " + m + " in size " + n);

                AppendOnlyProof ap = l.proveAppendOnly(m, n);
                assertEquals(mth(blocks.subList(0, m)), ap.upperRoot1(), "upper root of size " + m);
                assertEquals(blocks.get(m), Hashing.block(m, ap.lowerRoot1(), ap.bodyHash1()), "block " + m);
                assertEquals(blocks.get(n), Hashing.block(n, ap.lowerRoot2(), ap.bodyHash2()), "block " + n);
                assertEquals(expectedPath, ap.inclusion(), "append-only inclusion " + m + "→" + n);
                if (m == 0) {
                    assertEquals(List.of(), ap.consistency());
                } else {
                    assertEquals(proof(m, d), ap.consistency(), "consistency " + m + "→" + n);
                    assertEquals(root, UpperTreeMath.rootFromConsistency(m, n, ap.upperRoot1(), ap.consistency()),
                            "root from consistency " + m + "→" + n);
                }
            }
        }
    }

    // ------------------------------------------------------------------ the verifier against the reference

    static List<Hash> randomLeaves(Random r, int n) {
        List<Hash> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] b = new byte[32];
            r.nextBytes(b);
            out.add(Hash.of(b));
        }
        return out;
    }

    static Hash flip(Hash h, int bit) {
        byte[] b = h.toByteArray();
        b[bit / 8] ^= (byte) (1 << (bit % 8));
        return Hash.of(b);
    }

    @Property(tries = 70)
    void inclusion_naivePaths_giveNaiveRootAndAnyChangeIsCaught(@ForAll @IntRange(min = 1, max = 70) int n,
            @ForAll Random r) throws VerificationException {
        List<Hash> d = randomLeaves(r, n);
        Hash root = mth(d);
        for (int m = 0; m < n; m++) {
            List<Hash> p = path(m, d);
            assertEquals(root, UpperTreeMath.rootFromInclusion(m, n, d.get(m), p), "index " + m + " size " + n);
            int idx = m;
            for (int i = 0; i < p.size(); i++) {
                List<Hash> t = new ArrayList<>(p);
                t.set(i, flip(p.get(i), r.nextInt(256)));
                assertNotEquals(root, UpperTreeMath.rootFromInclusion(m, n, d.get(m), t), "tampered element " + i);
            }
            assertNotEquals(root, UpperTreeMath.rootFromInclusion(m, n, flip(d.get(m), r.nextInt(256)), p));
            List<Hash> longer = new ArrayList<>(p);
            longer.add(d.get(0));
            assertRejectedOrOtherRoot(root, "path with an extra hash", () -> UpperTreeMath.rootFromInclusion(idx, n,
                    d.get(idx), longer));
            if (!p.isEmpty()) {
                assertRejectedOrOtherRoot(root, "path missing its last hash", () -> UpperTreeMath.rootFromInclusion(
                        idx, n, d.get(idx), p.subList(0, p.size() - 1)));
            }
            for (int other = 0; other < n; other++) {
                if (other != m) {
                    int o = other;
                    assertRejectedOrOtherRoot(root, "path of " + m + " claimed for index " + o,
                            () -> UpperTreeMath.rootFromInclusion(o, n, d.get(idx), p));
                }
            }
            // (A path is not checked against other tree sizes: as in RFC 9162, a root does not commit to its size,
            // e.g. the path of leaf 0 in a tree of 3 also gives that root for size 4. The digest binds the size.)
        }
        assertRejected("index == size", () -> UpperTreeMath.rootFromInclusion(n, n, d.get(0), List.of()));
        assertRejected("negative index", () -> UpperTreeMath.rootFromInclusion(-1, n, d.get(0), path(0, d)));
    }

    @Property(tries = 70)
    void consistency_naiveProofs_giveNaiveRootsAndAnyChangeIsCaught(@ForAll @IntRange(min = 2, max = 70) int n,
            @ForAll Random r) throws VerificationException {
        List<Hash> d = randomLeaves(r, n);
        Hash root2 = mth(d);
        List<Hash> prefixRoots = new ArrayList<>();
        for (int m = 0; m <= n; m++) {
            prefixRoots.add(mth(d.subList(0, m)));
        }
        for (int m = 1; m < n; m++) {
            Hash root1 = prefixRoots.get(m);
            List<Hash> p = proof(m, d);
            assertEquals(root2, UpperTreeMath.rootFromConsistency(m, n, root1, p), m + "→" + n);
            int size1 = m;
            for (int i = 0; i < p.size(); i++) {
                List<Hash> t = new ArrayList<>(p);
                t.set(i, flip(p.get(i), r.nextInt(256)));
                assertRejectedOrOtherRoot(root2, "tampered element " + i + " of " + m + "→" + n,
                        () -> UpperTreeMath.rootFromConsistency(size1, n, root1, t));
            }
            // When size1 is a power of two, the proof omits the first root (RFC 9162 §2.1.4.2), so a wrong one
            // shows only as a wrong second root.
            assertRejectedOrOtherRoot(root2, "wrong first root " + m + "→" + n,
                    () -> UpperTreeMath.rootFromConsistency(size1, n, flip(root1, 3), p));
            List<Hash> longer = new ArrayList<>(p);
            longer.add(d.get(0));
            assertRejectedOrOtherRoot(root2, "proof with an extra hash",
                    () -> UpperTreeMath.rootFromConsistency(size1, n, root1, longer));
            assertRejectedOrOtherRoot(root2, "proof missing its last hash",
                    () -> UpperTreeMath.rootFromConsistency(size1, n, root1, p.subList(0, p.size() - 1)));
            for (int other = 1; other < n; other++) {
                if (other != m && !prefixRoots.get(other).equals(root1)) {
                    int o = other;
                    assertRejectedOrOtherRoot(root2, "proof from " + m + " claimed from " + o,
                            () -> UpperTreeMath.rootFromConsistency(o, n, root1, p));
                }
            }
        }
        assertThrows(VerificationException.class, () -> UpperTreeMath.rootFromConsistency(0, n, Hash.ZERO, List.of()));
        assertThrows(VerificationException.class,
                () -> UpperTreeMath.rootFromConsistency(n, n, root2, List.of(root2)));
        assertThrows(VerificationException.class,
                () -> UpperTreeMath.rootFromConsistency(n - 1, n, prefixRoots.get(n - 1), List.of()));
    }

    @FunctionalInterface
    interface RootComputation {
        Hash compute() throws VerificationException;
    }

    static void assertRejectedOrOtherRoot(Hash root, String what, RootComputation c) {
        Hash got;
        try {
            got = c.compute();
        } catch (VerificationException | RuntimeException rejected) {
            return;
        }
        assertNotEquals(root, got, "accepted: " + what);
    }
}
