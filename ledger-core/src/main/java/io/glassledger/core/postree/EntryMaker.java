package io.glassledger.core.postree;

import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;

/** Turns a mutation into the entry to store, knowing the entry it replaces. */
@FunctionalInterface
public interface EntryMaker {
    /**
     * @param old the current entry of the key, or null
     * @return the new entry; null to remove the key; {@code old} itself for no change
     */
    Entry make(Mutation m, Entry old);

    /** Plain key-value semantics: version 0, no history, deletes remove. */
    EntryMaker PLAIN = (m, old) -> m.isDelete() ? null : Entry.of(m.key(), m.value(), 0);
}
