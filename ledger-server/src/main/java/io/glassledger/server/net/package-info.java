/**
 * The server's defences at the connection level, below HTTP routing and authentication: timeouts for the TLS
 * handshake, request headers, request bodies and idle connections, and a cap on open connections. Depends on Reactor
 * Netty and Netty only; knows nothing of the ledger.
 */
package io.glassledger.server.net;
