/**
 * The REST API (docs/API.md): thin, package-private controllers that decode requests, check limits, call the shard
 * engine on its own threads and encode responses; {@code Problems} maps every exception to an RFC 9457 body.
 */
package io.glassledger.server.api;
