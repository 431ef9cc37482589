/**
 * The planned storage's current state (ARCHITECTURE.md, "Storage that grows for years"), built beside the ledger
 * and not yet its: values and versions in a {@link io.glassledger.core.store.FlatStore}, the current leaves in a
 * {@link io.glassledger.core.store.LeafLog}, and the index levels above them in memory
 * ({@link io.glassledger.core.postree.IndexLevels}). The tree it keeps is the POS-tree of FORMAT.md §4–§5 over the
 * same entries: the same root as {@link io.glassledger.core.postree.PosTree}'s.
 */
package io.glassledger.core.state;
