package io.glassledger.core.postree;

import io.glassledger.core.hash.Hashing;

/**
 * The cyclic-polynomial rolling hash (ForkBase §3.2) that finds leaf boundaries. Its state is reset at the start
 * of every node, so a boundary depends only on the entries since the previous boundary.
 *
 * <p>h' = rotl(h, 1) ^ rotl(T[out], WINDOW mod 32) ^ T[in], over the last {@link TreeParams#WINDOW} bytes; the
 * pattern occurs at a byte when (h &amp; leafMask) == 0 and the node holds at least WINDOW bytes.
 * T[i] is the first 4 bytes, big-endian, of SHA-256("glassledger/buzhash/" || u8 i).
 */
final class Buzhash {
    static final int[] TABLE = new int[256];

    static {
        for (int i = 0; i < 256; i++) {
            byte[] prefix = "glassledger/buzhash/".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            byte[] in = java.util.Arrays.copyOf(prefix, prefix.length + 1);
            in[prefix.length] = (byte) i;
            byte[] h = Hashing.raw(in).unsafeArray();
            TABLE[i] = (h[0] & 0xff) << 24 | (h[1] & 0xff) << 16 | (h[2] & 0xff) << 8 | (h[3] & 0xff);
        }
    }

    private static final int OUT_ROT = TreeParams.WINDOW % 32;

    private final int mask;
    private final byte[] window = new byte[TreeParams.WINDOW];
    private int h;
    private long count;

    Buzhash(int mask) {
        this.mask = mask;
    }

    void reset() {
        h = 0;
        count = 0;
    }

    /** Feeds bytes; returns true if the pattern occurred at any of them. */
    boolean feed(byte[] b, int off, int len) {
        boolean hit = false;
        int hh = h;
        long c = count;
        for (int i = off; i < off + len; i++) {
            int slot = (int) (c % TreeParams.WINDOW);
            int out = window[slot] & 0xff;
            window[slot] = b[i];
            hh = Integer.rotateLeft(hh, 1) ^ TABLE[b[i] & 0xff];
            if (c >= TreeParams.WINDOW) {
                hh ^= Integer.rotateLeft(TABLE[out], OUT_ROT);
            }
            c++;
            if (c >= TreeParams.WINDOW && (hh & mask) == 0) {
                hit = true;
            }
        }
        h = hh;
        count = c;
        return hit;
    }
}
