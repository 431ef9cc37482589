/**
 * A block's record as the ledger stores and serves it (FORMAT §6), and the block a list of signed transactions
 * makes (FORMAT §14.3, §15.2), which the engine appends and an auditor recomputes. Pure.
 */
package io.glassledger.verify.block;
