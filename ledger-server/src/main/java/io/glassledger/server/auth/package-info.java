/**
 * Who may do what: API keys bound to a client identity and a role (client, auditor, admin), stored as SHA-256
 * hashes; the Ed25519 public key each client identity registered (GlassDB's Init(pk)); and the filter that
 * authenticates every request and authorizes it from the handler that will run ({@code @Allow}/{@code @Public} on
 * each controller method, {@code RouteAccess} for the framework's handlers), never from
 * the path string. Its refusals are {@code api.Problems} bodies; it depends on no controller.
 */
package io.glassledger.server.auth;
