package io.glassledger.core.postree;

import static io.glassledger.verify.format.FormatRule.INDEX_MAX_BELOW_TARGET;
import static io.glassledger.verify.format.FormatRule.INDEX_MAX_OVER_1024;
import static io.glassledger.verify.format.FormatRule.INDEX_TARGET_BELOW_2;
import static io.glassledger.verify.format.FormatRule.INDEX_TARGET_NOT_POWER_OF_TWO;
import static io.glassledger.verify.format.FormatRule.LEAF_MAX_BELOW_TARGET;
import static io.glassledger.verify.format.FormatRule.LEAF_MAX_OVER_1_MIB;
import static io.glassledger.verify.format.FormatRule.LEAF_TARGET_BELOW_2;
import static io.glassledger.verify.format.FormatRule.LEAF_TARGET_NOT_POWER_OF_TWO;
import static io.glassledger.verify.format.FormatRule.PARAMS_OVER_DECODING_LIMIT;
import static io.glassledger.verify.format.FormatRule.PARAMS_TRAILING;

import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.codec.MalformedException;

/**
 * Chunking parameters. They are part of the format: a ledger records them in its genesis block, and the same
 * entries give the same root only under the same parameters.
 *
 * @param leafTargetBytes expected leaf size in encoded-entry bytes; a power of two (the pattern mask)
 * @param leafMaxBytes    a leaf is closed after the entry that brings it to at least this many bytes
 * @param indexTargetFanout expected children per index node; a power of two (the pattern mask)
 * @param indexMaxFanout  an index node is closed once it holds this many children
 */
public record TreeParams(int leafTargetBytes, int leafMaxBytes, int indexTargetFanout, int indexMaxFanout) {
    /** Rolling-hash window, in bytes. Fixed by the format. */
    public static final int WINDOW = 48;
    public static final int MAX_FANOUT = 1024;
    public static final int MAX_LEAF_BYTES = 1 << 20;

    public static final TreeParams DEFAULT = new TreeParams(4096, 32768, 64, 512);

    public TreeParams {
        if (Integer.bitCount(leafTargetBytes) != 1 && LEAF_TARGET_NOT_POWER_OF_TWO.enforced()) {
            throw new IllegalArgumentException("leafTargetBytes must be a power of two");
        }
        if (leafTargetBytes < 2 && LEAF_TARGET_BELOW_2.enforced()) {
            throw new IllegalArgumentException("leafTargetBytes must be at least 2");
        }
        if (Integer.bitCount(indexTargetFanout) != 1 && INDEX_TARGET_NOT_POWER_OF_TWO.enforced()) {
            throw new IllegalArgumentException("indexTargetFanout must be a power of two");
        }
        // A fanout of 1 makes the index pattern match every child: no level would ever hold fewer nodes than the one
        // below it, and a build would never reduce to one root.
        if (indexTargetFanout < 2 && INDEX_TARGET_BELOW_2.enforced()) {
            throw new IllegalArgumentException("indexTargetFanout must be at least 2");
        }
        if (leafMaxBytes < leafTargetBytes && LEAF_MAX_BELOW_TARGET.enforced()) {
            throw new IllegalArgumentException("leafMaxBytes < leafTargetBytes");
        }
        if (leafMaxBytes > MAX_LEAF_BYTES && LEAF_MAX_OVER_1_MIB.enforced()) {
            throw new IllegalArgumentException("leafMaxBytes must be at most " + MAX_LEAF_BYTES);
        }
        if ((indexMaxFanout < 2 || indexMaxFanout < indexTargetFanout) && INDEX_MAX_BELOW_TARGET.enforced()) {
            throw new IllegalArgumentException("indexMaxFanout must be at least max(2, indexTargetFanout)");
        }
        if (indexMaxFanout > MAX_FANOUT && INDEX_MAX_OVER_1024.enforced()) {
            throw new IllegalArgumentException("indexMaxFanout must be at most " + MAX_FANOUT);
        }
    }

    public int leafMask() {
        return leafTargetBytes - 1;
    }

    public long indexMask() {
        return indexTargetFanout - 1L;
    }

    public byte[] encode() {
        return new ByteWriter().varint(leafTargetBytes).varint(leafMaxBytes).varint(indexTargetFanout)
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
