/**
 * Who may do what: API keys bound to a client identity and a role (client, auditor, admin), stored as SHA-256
 * hashes; the Ed25519 public key each client identity registered (GlassDB's Init(pk)); and the filter that
 * authenticates every request.
 */
package io.glassledger.server.auth;
