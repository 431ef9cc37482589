package io.glassledger.core.postree;

import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.verify.hash.Hash;

/** Turns a mutation into the entry to store, knowing the entry it replaces and the leaf that held it. */
@FunctionalInterface
public interface EntryMaker {
    /**
     * @param old     the current entry of the key, or null
     * @param oldLeaf hash of the leaf node holding {@code old}, or null
     * @return the new entry; null to remove the key; {@code old} itself for no change
     */
    Entry make(Mutation m, Entry old, Hash oldLeaf);

    /** Plain key-value semantics: version 0, no history, deletes remove. */
    EntryMaker PLAIN = (m, old, leaf) -> m.isDelete() ? null : Entry.of(m.key(), m.value(), 0, Hash.ZERO);
}
