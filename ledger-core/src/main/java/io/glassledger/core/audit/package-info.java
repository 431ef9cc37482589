/** Block verification by re-execution, for auditors (no network, no RocksDB of its own: the caller's ledger). */
package io.glassledger.core.audit;
