/**
 * The GlassLedger Java SDK: {@code GlassLedgerClient} signs transactions with the client's Ed25519 key, returns
 * promises, and checks proofs in the background with ledger-core's pure verifier. Never depends on RocksDB or Spring.
 */
package io.glassledger.client;
