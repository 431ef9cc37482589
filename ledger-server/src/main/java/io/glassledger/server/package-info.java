/**
 * The GlassLedger server: one shard's {@code TxnEngine} behind an HTTPS REST API (docs/API.md). Organised by
 * feature: {@code api} (thin controllers and the problem mapping), {@code auth} (API keys, roles, registered client
 * keys), {@code tls} (the self-signed certificate made at first start), {@code shard} (the engine, the server key and
 * metrics). Ledger logic lives in ledger-core, never here.
 */
package io.glassledger.server;
