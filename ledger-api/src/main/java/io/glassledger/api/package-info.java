/**
 * The REST API's JSON bodies (docs/API.md) as records of strings and numbers, with conversions to ledger-core's
 * value types. Bytes travel as standard base64 (RFC 4648 §4, padded), hashes and keys of the Ed25519 kind as
 * lowercase hex. Also what the services share beside the wire: {@link io.glassledger.api.PrivateFiles} (secret files),
 * {@link io.glassledger.api.SignedGossip} (auditors' signed gossip, which {@code ledger-cli evidence} checks too) and
 * the TLS helpers. Depends on ledger-core only: never on Spring, Jackson or RocksDB.
 */
package io.glassledger.api;
