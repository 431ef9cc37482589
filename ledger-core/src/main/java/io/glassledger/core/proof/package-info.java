/**
 * Proofs and their verification: pure functions over bytes and hashes. The SDK and the auditor depend on exactly
 * this package; it must never depend on RocksDB, Spring or any I/O.
 */
package io.glassledger.core.proof;
