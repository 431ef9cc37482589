package io.glassledger.core.postree;

import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.hash.Bytes;

/** Receives the differences between two trees in key order. */
@FunctionalInterface
public interface DiffVisitor {
    /** @param before the entry in the first tree, or null; @param after the entry in the second tree, or null */
    void onDiff(Bytes key, Entry before, Entry after);
}
