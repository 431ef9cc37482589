/**
 * Transactions as a client signs them (FORMAT §14): the canonical encoding, the signed record, a draft a client
 * fills in, the server's promise of a block, and {@link io.glassledger.verify.txn.PromiseVerifier}, which checks a
 * kept promise against a trusted digest. Pure; must never depend on the engine that orders them.
 */
package io.glassledger.verify.txn;
