/** The README's main command until the server exists: a walk through ledger, digest and proofs on RocksDB. */
package io.glassledger.core.demo;
