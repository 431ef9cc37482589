/**
 * A leaf entry of the POS-tree (FORMAT §3): its canonical encoding and hash, the write that makes it, and
 * the separators that route keys between nodes (§4.2). Proofs decode entries with it; the tree stores them with it.
 * Pure; must never depend on the tree or its storage.
 */
package io.glassledger.verify.entry;
