/**
 * GlassLedger's verification: the code a third party reads next to docs/FORMAT.md. Everything a client, an auditor
 * or an independent verifier needs to check the service's answers, and nothing that runs a ledger. Pure: no RocksDB,
 * no threads, no I/O, no Spring; the only dependency is Bouncy Castle for Ed25519. The engine ({@code ledger-core})
 * depends on this module; the SDK, {@code ledger-cli} and the auditor's checks use it.
 *
 * <p>The public API, by package:
 * <ul>
 *   <li>{@link io.glassledger.verify.hash}: {@code Bytes}, {@code Hash} and every domain-separated hash
 *       ({@code Hashing}, FORMAT §2–§3);</li>
 *   <li>{@link io.glassledger.verify.codec}: the canonical encoding ({@code ByteReader}, {@code ByteWriter}) and
 *       {@code MalformedException};</li>
 *   <li>{@link io.glassledger.verify.entry}: a leaf entry and its hash ({@code Entry}), a write ({@code Mutation}),
 *       index separators (FORMAT §4.2);</li>
 *   <li>{@link io.glassledger.verify.block}: a block's record ({@code Block}, FORMAT §6) and what a block of
 *       transactions appends ({@code BlockSpec.of}, §14.3);</li>
 *   <li>{@link io.glassledger.verify.proof}: the signed digest ({@code Digest}, {@code SignedHead}) and the
 *       proofs with their one verifier ({@code ProofVerifier}: keys, history, append-only); a failed check throws
 *       {@code VerificationException} with the expected and computed roots, never returns false;</li>
 *   <li>{@link io.glassledger.verify.txn}: transactions, their signatures, drafts, promises and
 *       {@code PromiseVerifier};</li>
 *   <li>{@link io.glassledger.verify.shard}: which shard owns a key ({@code ShardMap});</li>
 *   <li>{@link io.glassledger.verify.format}: the format's name ({@code Format}) and every rule by name
 *       ({@code FormatRule});</li>
 *   <li>{@link io.glassledger.verify.crypto}: Ed25519 ({@code Ed25519}, {@code SigningKey}).</li>
 * </ul>
 * {@link io.glassledger.verify.LedgerException} is the one unchecked root of every GlassLedger exception.
 */
package io.glassledger.verify;
