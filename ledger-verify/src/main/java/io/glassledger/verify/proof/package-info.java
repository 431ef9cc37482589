/**
 * Proofs and their verification: pure functions over bytes and hashes. The SDK and the auditor verify with exactly
 * this package; it must never depend on RocksDB, Spring, the engine or any I/O.
 */
package io.glassledger.verify.proof;
