package io.glassledger.core.postree;

import io.glassledger.verify.hash.Hashing;

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
    /** Next slot of the window ring to write (the oldest byte once the window is full). */
    private int slot;
    /** The window holds WINDOW bytes, so the pattern may be tested. */
    private boolean full;

    Buzhash(int mask) {
        this.mask = mask;
    }

    void reset() {
        h = 0;
        slot = 0;
        full = false;
    }

    /**
     * Whether re-cutting the leaf {@code neu} (entries as they are after an update) keeps its single boundary after
     * the last entry, given that only {@code neu[i]} changed from {@code old[i]} (old being the leaf as cut before),
     * as far as the rolling hash is concerned: no window that holds a byte of {@code neu[i]} hits the pattern inside
     * a non-last entry, and the last entry has a hit in the new stream iff it had one in the old. Reads only the
     * entries within {@link TreeParams#WINDOW} bytes of entry i (and the last entry's, when they are that close).
     */
    static boolean boundaryKept(LeafNode old, LeafNode neu, int i, int mask) {
        int n = neu.size();
        int b = i;
        for (int need = TreeParams.WINDOW - 1; need > 0 && b < n - 1; ) {
            b++;
            need -= neu.length(b);
        }
        int newHits = hits(neu, i, b, mask);
        if (b < n - 1) {
            return newHits == 0;
        }
        if ((newHits & NON_LAST) != 0) {
            return false;
        }
        // The windows reach the last entry: its hit (if any) must survive, and none may appear.
        return (hits(neu, n - 1, n - 1, mask) & LAST) == (hits(old, n - 1, n - 1, mask) & LAST);
    }

    private static final int NON_LAST = 1;
    private static final int LAST = 2;

    /**
     * Rolls over es from WINDOW - 1 bytes before es[focus] (or the node's start) through es[b], and reports hits at
     * positions whose window holds a byte of es[focus] (for the last entry: any of its positions): bit NON_LAST for
     * a hit inside an entry other than the last of es, bit LAST for one inside the last. Positions before byte
     * WINDOW - 1 of the node are not checked, as when cutting.
     */
    private static int hits(LeafNode es, int focus, int b, int mask) {
        int w = TreeParams.WINDOW - 1;
        int a = focus;
        for (int need = w; need > 0 && a > 0; ) {
            a--;
            need -= es.length(a);
        }
        int len = 0;
        int from = 0;
        for (int j = a; j <= b; j++) {
            if (j == focus) {
                from = len;
            }
            len += es.length(j);
        }
        byte[] buf = new byte[len];
        int at = 0;
        for (int j = a; j <= b; j++) {
            es.copyEntry(j, buf, at);
            at += es.length(j);
        }
        boolean last = b == es.size() - 1;
        int lastFirst = last ? len - es.length(b) : Integer.MAX_VALUE;
        int to = focus == es.size() - 1 ? len : Math.min(len, from + es.length(focus) + w);
        int found = 0;
        int h = 0;
        for (int p = 0; p < to; p++) {
            h = Integer.rotateLeft(h, 1) ^ TABLE[buf[p] & 0xff];
            if (p > w) {
                h ^= Integer.rotateLeft(TABLE[buf[p - w - 1] & 0xff], OUT_ROT);
            }
            if (p >= from && p >= w && (h & mask) == 0) {
                found |= p >= lastFirst ? LAST : NON_LAST;
            }
        }
        return found;
    }

    /** Feeds bytes; returns true if the pattern occurred at any of them. */
    boolean feed(byte[] b, int off, int len) {
        boolean hit = false;
        int hh = h;
        int sl = slot;
        boolean f = full;
        byte[] win = window;
        for (int i = off; i < off + len; i++) {
            int out = win[sl] & 0xff;
            win[sl] = b[i];
            hh = Integer.rotateLeft(hh, 1) ^ TABLE[b[i] & 0xff];
            if (f) {
                hh ^= Integer.rotateLeft(TABLE[out], OUT_ROT);
            }
            if (++sl == TreeParams.WINDOW) {
                sl = 0;
                f = true;
            }
            if (f && (hh & mask) == 0) {
                hit = true;
            }
        }
        h = hh;
        slot = sl;
        full = f;
        return hit;
    }
}
