package io.glassledger.auditor;

import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
import io.glassledger.core.audit.BlockAudit;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.SignedHead;
import io.glassledger.verify.proof.VerificationException;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a violation found by a {@link ShardAuditor} carries, so that a third party can check it from the file alone
 * ({@code ledger-cli evidence}; docs/API.md, "Auditor"): the block as the shard served it, the shard's own signed
 * heads, and for a replay or a stale read what proves it. Fetched from the shard over the audit's own
 * {@link ShardHttp}; a fetch that fails leaves its error in the evidence ({@code shardSignedHeadError},
 * {@code evidenceError}) rather than failing the violation.
 */
final class ShardEvidence {
    private static final int ATTEMPTS = 3;

    private final ShardHttp http;
    private final Duration replayWindow;

    ShardEvidence(ShardHttp http, Duration replayWindow) {
        this.http = http;
        this.replayWindow = replayWindow;
    }

    /**
     * The block as the shard served it, and the shard's signed head for that block, so that the block's record can
     * be tied to the shard's signature.
     */
    Map<String, Object> block(Dto.BlockDto dto, Bytes serverKey) {
        Map<String, Object> ev = new LinkedHashMap<>();
        ev.put("shardBlock", dto);
        sameBlockHead(dto.number(), serverKey, ev);
        return ev;
    }

    /**
     * A signed head off this auditor's history, beside what this auditor holds for the same block.
     *
     * @param auditorHead the last head this auditor verified, or null
     */
    Map<String, Object> fork(String name, SignedHead other, Digest mine, SignedHead auditorHead, Bytes serverKey) {
        Map<String, Object> ev = new LinkedHashMap<>();
        ev.put(name, Wire.signedHead(other));
        ev.put("auditorDigest", Wire.digest(mine));
        if (auditorHead != null) {
            ev.put("auditorSignedHead", Wire.signedHead(auditorHead));
        }
        sameBlockHead(other.digest().blockNo(), serverKey, ev);
        return ev;
    }

    /**
     * What makes a replay or a stale read checkable offline: the transaction; for a replay, the earlier block that
     * carried it with the shard's signed head of that block (or, outside the window, the window); for a stale read,
     * the shard's own signed proof of the key's version in block n − 1.
     */
    void outcome(long n, BlockAudit.Outcome o, Map<String, Object> ev) {
        if (o.txId() == null) {
            return;
        }
        ev.put("txId", o.txId().hex());
        try {
            if ("replayed_transaction".equals(o.kind())) {
                if (o.earlierBlock() == null) {
                    ev.put("replayWindowMillis", replayWindow.toMillis());
                } else if (o.earlierBlock() != n) {
                    Dto.BlockDto earlier = http.get("/v1/blocks/" + o.earlierBlock(), Dto.BlockDto.class);
                    ev.put("earlierBlock", earlier);
                    SignedHead h = Wire.signedHead("head", http.get("/v1/head?block=" + o.earlierBlock(),
                            Dto.SignedHeadDto.class));
                    ev.put("earlierSignedHead", Wire.signedHead(h));
                }
            } else if ("stale_read".equals(o.kind())) {
                ev.put("key", Wire.b64(o.key()));
                ev.put("priorState", http.post("/v1/proofs/keys", new Dto.ProveKeysRequest(
                        List.of(Wire.b64(o.key())), n - 1), Dto.KeysProofDto.class));
            }
        } catch (IOException | RuntimeException e) {
            ev.put("evidenceError", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The shard's own signed head for {@code block}, as this auditor's upstream serves it: beside a contradicting
     * head, two signatures by one key over one block number and two roots; beside a block, what ties the block's
     * record to the shard's signature. Anyone can check either ({@code ledger-cli evidence}).
     */
    private void sameBlockHead(long block, Bytes serverKey, Map<String, Object> ev) {
        // Evidence is worth a retry: a transport failure (seen once: a request timed out right after the shard
        // restarted) would leave a violation that the file alone cannot prove. A refusal is final.
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                SignedHead h = Wire.signedHead("head", http.get("/v1/head?block=" + block, Dto.SignedHeadDto.class));
                h.verify(serverKey);
                ev.put("shardSignedHead", Wire.signedHead(h));
                ev.remove("shardSignedHeadError");
                return;
            } catch (ShardHttp.Refused | RuntimeException | VerificationException e) {
                ev.put("shardSignedHeadError", e.toString());
                return;
            } catch (IOException e) {
                ev.put("shardSignedHeadError", e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
