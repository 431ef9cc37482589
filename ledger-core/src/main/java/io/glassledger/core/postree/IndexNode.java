package io.glassledger.core.postree;

import io.glassledger.core.codec.ByteWriter;
import io.glassledger.core.hash.Bytes;
import io.glassledger.core.hash.Hash;

/**
 * A node at level &gt;= 1: child hashes, with the separator before each child but the first. Child i holds the
 * keys k with sep(i) &lt;= k &lt; sep(i+1).
 */
public final class IndexNode extends Node {
    private final int level;
    private final Hash[] children;
    private final Bytes[] seps;

    IndexNode(int level, Hash[] children, Bytes[] seps) {
        if (level < 1 || level > 255) {
            throw new IllegalArgumentException("index level must be 1..255");
        }
        this.level = level;
        this.children = children;
        this.seps = seps;
    }

    @Override
    public int level() {
        return level;
    }

    @Override
    public int size() {
        return children.length;
    }

    public Hash child(int i) {
        return children[i];
    }

    /** The child whose key range holds {@code key}: the last i with sep(i) &lt;= key, or 0. */
    public int route(Bytes key) {
        int lo = 1;
        int hi = children.length - 1;
        int ans = 0;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (seps[mid].compareTo(key) <= 0) {
                ans = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return ans;
    }

    @Override
    public Hash itemHash(int i) {
        return children[i];
    }

    @Override
    public Bytes separator(int i) {
        return seps[i];
    }

    @Override
    public void writeItems(ByteWriter w) {
        for (int i = 0; i < children.length; i++) {
            if (i > 0) {
                w.lengthPrefixed(seps[i]);
            }
            w.hash(children[i]);
        }
    }

    @Override
    public String toString() {
        return "Index(level " + level + ", " + children.length + " children)";
    }
}
