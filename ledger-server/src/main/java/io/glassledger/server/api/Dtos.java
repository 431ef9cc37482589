package io.glassledger.server.api;

import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
import io.glassledger.core.proof.KeyClaim;
import io.glassledger.core.proof.SignedHead;
import io.glassledger.core.txn.BlockProof;
import io.glassledger.core.txn.Promise;

/** Core values to response bodies. */
final class Dtos {
    private Dtos() {
    }

    static Dto.PromiseDto promise(Promise p) {
        return new Dto.PromiseDto(p.txId().hex(), p.shard(), p.blockNo(), Wire.digest(p.served()));
    }

    /** @param encodedProof {@code bp.proof().encode()}, which the caller has already made and charged */
    static Dto.KeysProofDto proof(BlockProof bp, byte[] encodedProof, SignedHead head) {
        return new Dto.KeysProofDto(bp.blockNo(), "READY", Wire.digest(bp.digest()),
                bp.claims().stream().map(Dtos::claim).toList(), Wire.b64(encodedProof),
                head == null ? null : Wire.signedHead(head));
    }

    static Dto.KeysProofDto pending(long block) {
        return new Dto.KeysProofDto(block, "PENDING", null, null, null, null);
    }

    static Dto.ClaimDto claim(KeyClaim c) {
        return new Dto.ClaimDto(Wire.b64(c.key()), Wire.b64(c.value()));
    }
}
