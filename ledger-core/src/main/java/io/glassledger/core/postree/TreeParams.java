package io.glassledger.core.postree;

import static io.glassledger.verify.format.FormatRule.INDEX_MAX_BELOW_TARGET;
import static io.glassledger.verify.format.FormatRule.INDEX_MAX_OVER_1024;
import static io.glassledger.verify.format.FormatRule.INDEX_TARGET_BELOW_2;
import static io.glassledger.verify.format.FormatRule.INDEX_TARGET_NOT_POWER_OF_TWO;
import static io.glassledger.verify.format.FormatRule.LEAF_MAX_BELOW_TARGET;
import static io.glassledger.verify.format.FormatRule.LEAF_MAX_OVER_LIMIT;
import static io.glassledger.verify.format.FormatRule.LEAF_TARGET_BELOW_2;
import static io.glassledger.verify.format.FormatRule.LEAF_TARGET_NOT_POWER_OF_TWO;
import static io.glassledger.verify.format.FormatRule.PARAMS_OVER_DECODING_LIMIT;
import static io.glassledger.verify.format.FormatRule.PARAMS_TRAILING;

import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.hash.Hashing;

/**
 * Chunking parameters. They are part of the format: a ledger records them in its genesis block, and the same
 * entries give the same root only under the same parameters.
 *
 * @param leafTargetKeys  expected keys a leaf; a power of two (the pattern mask of the keys' cut hashes)
 * @param leafMaxKeys     a leaf is closed once it holds this many entries
 * @param indexTargetFanout expected children per index node; a power of two (the pattern mask)
 * @param indexMaxFanout  an index node is closed once it holds this many children
 */
public record TreeParams(int leafTargetKeys, int leafMaxKeys, int indexTargetFanout, int indexMaxFanout) {
    public static final int MAX_FANOUT = 1024;
    /** The most entries a leaf may hold. */
    public static final int MAX_LEAF_KEYS = 1 << 16;

    public static final TreeParams DEFAULT = new TreeParams(8, 64, 64, 512);

    public TreeParams {
        if (Integer.bitCount(leafTargetKeys) != 1 && LEAF_TARGET_NOT_POWER_OF_TWO.enforced()) {
            throw new IllegalArgumentException("leafTargetKeys must be a power of two");
        }
        if (leafTargetKeys < 2 && LEAF_TARGET_BELOW_2.enforced()) {
            throw new IllegalArgumentException("leafTargetKeys must be at least 2");
        }
        if (Integer.bitCount(indexTargetFanout) != 1 && INDEX_TARGET_NOT_POWER_OF_TWO.enforced()) {
            throw new IllegalArgumentException("indexTargetFanout must be a power of two");
        }
        // A fanout of 1 makes the index pattern match every child: no level would ever hold fewer nodes than the one
        // below it, and a build would never reduce to one root.
        if (indexTargetFanout < 2 && INDEX_TARGET_BELOW_2.enforced()) {
            throw new IllegalArgumentException("indexTargetFanout must be at least 2");
        }
        if (leafMaxKeys < leafTargetKeys && LEAF_MAX_BELOW_TARGET.enforced()) {
            throw new IllegalArgumentException("leafMaxKeys < leafTargetKeys");
        }
        if (leafMaxKeys > MAX_LEAF_KEYS && LEAF_MAX_OVER_LIMIT.enforced()) {
            throw new IllegalArgumentException("leafMaxKeys must be at most " + MAX_LEAF_KEYS);
        }
        if ((indexMaxFanout < 2 || indexMaxFanout < indexTargetFanout) && INDEX_MAX_BELOW_TARGET.enforced()) {
            throw new IllegalArgumentException("indexMaxFanout must be at least max(2, indexTargetFanout)");
        }
        if (indexMaxFanout > MAX_FANOUT && INDEX_MAX_OVER_1024.enforced()) {
            throw new IllegalArgumentException("indexMaxFanout must be at most " + MAX_FANOUT);
        }
    }

    public int leafMask() {
        return leafTargetKeys - 1;
    }

    /** FORMAT §5.2: a leaf ends after the key {@code a[off, off + len)} (unless its maximum ends it first). */
    public boolean endsLeaf(byte[] a, int off, int len) {
        return (Hashing.keyCut(a, off, len) & leafMask()) == 0;
    }

    /** FORMAT §5.2: a leaf ends after this entry's key. */
    public boolean endsLeaf(Entry e) {
        return endsLeaf(e.array(), Entry.keyOffsetAt(e.array(), e.start()), e.keyLength());
    }

    public long indexMask() {
        return indexTargetFanout - 1L;
    }

    public byte[] encode() {
        return new ByteWriter().varint(leafTargetKeys).varint(leafMaxKeys).varint(indexTargetFanout)
                .varint(indexMaxFanout).toByteArray();
    }

    public static TreeParams decode(byte[] b) {
        ByteReader r = new ByteReader(b);
        try {
            TreeParams p = new TreeParams(r.varint(1 << 30, PARAMS_OVER_DECODING_LIMIT),
                    r.varint(1 << 30, PARAMS_OVER_DECODING_LIMIT), r.varint(1 << 20, PARAMS_OVER_DECODING_LIMIT),
                    r.varint(1 << 20, PARAMS_OVER_DECODING_LIMIT));
            r.expectEnd(PARAMS_TRAILING);
            return p;
        } catch (IllegalArgumentException e) {
            throw new MalformedException("bad tree params: " + e.getMessage());
        }
    }
}
