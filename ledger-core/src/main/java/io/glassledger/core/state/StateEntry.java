package io.glassledger.core.state;

import io.glassledger.core.store.ValueLocator;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;

/**
 * An entry of a leaf as the planned storage keeps it: the key, its value's hash and where the value is (both null for
 * a tombstone), and the block that wrote it. What FORMAT.md §3 hashes, with a locator instead of the value.
 */
record StateEntry(Bytes key, Hash valueHash, ValueLocator at, long version) {
    StateEntry {
        if ((valueHash == null) != (at == null)) {
            throw new IllegalArgumentException("a value's hash and its locator go together");
        }
    }

    boolean isTombstone() {
        return valueHash == null;
    }

    /** FORMAT.md §3's entry hash. */
    Hash hash() {
        return Entry.hashOf(key, valueHash, version);
    }
}
