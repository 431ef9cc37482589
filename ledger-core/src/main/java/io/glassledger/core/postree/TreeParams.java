package io.glassledger.core.postree;

import io.glassledger.core.codec.ByteReader;
import io.glassledger.core.codec.ByteWriter;
import io.glassledger.core.codec.MalformedException;

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
        if (Integer.bitCount(leafTargetBytes) != 1 || leafTargetBytes < 2) {
            throw new IllegalArgumentException("leafTargetBytes must be a power of two >= 2");
        }
        if (Integer.bitCount(indexTargetFanout) != 1 || indexTargetFanout < 2) {
            throw new IllegalArgumentException("indexTargetFanout must be a power of two >= 2");
        }
        if (leafMaxBytes < leafTargetBytes) {
            throw new IllegalArgumentException("leafMaxBytes < leafTargetBytes");
        }
        if (indexMaxFanout < 2 || indexMaxFanout < indexTargetFanout || indexMaxFanout > MAX_FANOUT) {
            throw new IllegalArgumentException("indexMaxFanout must be in max(2, indexTargetFanout).." + MAX_FANOUT);
        }
        if (leafMaxBytes > MAX_LEAF_BYTES) {
            throw new IllegalArgumentException("leafMaxBytes must be at most " + MAX_LEAF_BYTES);
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
            TreeParams p = new TreeParams(r.varint(1 << 30), r.varint(1 << 30), r.varint(1 << 20), r.varint(1 << 20));
            r.expectEnd();
            return p;
        } catch (IllegalArgumentException e) {
            throw new MalformedException("bad tree params: " + e.getMessage());
        }
    }
}
