package io.glassledger.verify.entry;

import io.glassledger.verify.hash.Bytes;
import java.util.Arrays;

/** Index-node separators (FORMAT.md §4.2): the shortest key that routes between two neighbouring keys. */
public final class Separators {
    private Separators() {
    }

    /** Shortest prefix p of {@code right} with left &lt; p &lt;= right. Requires left &lt; right. */
    public static Bytes shortest(Bytes left, Bytes right) {
        byte[] a = left.unsafeArray();
        byte[] b = right.unsafeArray();
        return shortest(a, 0, a.length, b, 0, b.length);
    }

    /** As {@link #shortest(Bytes, Bytes)}, over the keys a[aOff, aOff+aLen) and b[bOff, bOff+bLen). */
    public static Bytes shortest(byte[] a, int aOff, int aLen, byte[] b, int bOff, int bLen) {
        int i = Arrays.mismatch(a, aOff, aOff + aLen, b, bOff, bOff + bLen);
        if (i < 0 || i >= bLen || (i < aLen && (b[bOff + i] & 0xff) <= (a[aOff + i] & 0xff))) {
            throw new IllegalArgumentException("separator needs left < right: "
                    + Bytes.wrap(Arrays.copyOfRange(a, aOff, aOff + aLen)) + " vs "
                    + Bytes.wrap(Arrays.copyOfRange(b, bOff, bOff + bLen)));
        }
        return Bytes.wrap(Arrays.copyOfRange(b, bOff, bOff + i + 1));
    }
}
