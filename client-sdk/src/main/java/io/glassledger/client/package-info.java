/**
 * The GlassLedger Java SDK: {@link io.glassledger.client.GlassLedgerClient} signs transactions with the client's
 * Ed25519 key, returns promises, checks them in the background (deferred verification), and verifies every read
 * it answers with ledger-core's pure verifier against a digest that extends what it trusts ({@code TrustStore}, the
 * only place trust changes). Anything that does not verify is an {@link io.glassledger.client.IntegrityViolation}.
 * Transport is {@code java.net.http} and Jackson, in {@code Api} alone. Never depends on RocksDB or Spring.
 */
package io.glassledger.client;
