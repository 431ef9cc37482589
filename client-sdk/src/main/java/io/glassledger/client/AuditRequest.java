package io.glassledger.client;

import io.glassledger.api.Dto;
import io.glassledger.api.Wire;

/**
 * The body of {@code POST <auditor>/v1/audit} ({@link GlassLedgerClient#audit()}): what this client trusts about a
 * shard, so the auditor can check it against its own view (same block, same hash; otherwise an append-only proof
 * between the two) and gossip it. {@code signedHead} is the newest head the client holds for that trust (at
 * {@code block}, or older when trust last moved on an unsigned proof digest); null if it holds none.
 */
public record AuditRequest(int shard, long block, String hash, Dto.SignedHeadDto signedHead) {
    static AuditRequest of(TrustedState s) {
        return new AuditRequest(s.shard(), s.digest().blockNo(), s.digest().root().hex(),
                s.signedHead() == null ? null : Wire.signedHead(s.signedHead()));
    }
}
