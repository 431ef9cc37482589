/**
 * The shard this server runs: its transaction engine, its Ed25519 server key (signed heads), its metrics, and its
 * side of cross-shard commits: phase two checked with the primary ({@link io.glassledger.server.shard.Participant}),
 * prepared transactions resolved after a timeout ({@link io.glassledger.server.shard.Resolver}), both asking other
 * shards through {@link io.glassledger.server.shard.PeerLink}.
 */
package io.glassledger.server.shard;
