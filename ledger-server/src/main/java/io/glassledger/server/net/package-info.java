/**
 * The server's defences at the connection level, below HTTP routing and authentication, for the API port and the
 * management port (health probes and metrics, on a port of their own so that the API's connections cannot keep
 * them from answering): admission (caps in all and per client address; idle connections give way to new ones),
 * timeouts for the TLS handshake, request headers, request bodies and idle connections, and quiet logging of what
 * peers get wrong. Depends on Spring Boot's web server, Reactor Netty and Netty only; knows nothing of the ledger.
 */
package io.glassledger.server.net;
