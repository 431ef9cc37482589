/** The shard this server runs: its transaction engine, its Ed25519 server key (signed heads) and its metrics. */
package io.glassledger.server.shard;
