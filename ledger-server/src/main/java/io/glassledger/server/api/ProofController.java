package io.glassledger.server.api;

import io.glassledger.server.auth.Allow;
import io.glassledger.server.auth.Role;
import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.core.ledger.ByteBudget;
import io.glassledger.verify.proof.AppendOnlyProof;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.KeyClaim;
import io.glassledger.verify.txn.BlockProof;
import io.glassledger.core.txn.ProofResult;
import io.glassledger.core.txn.TxnEngine;
import io.glassledger.server.shard.Shard;
import io.glassledger.server.shard.ShardMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

@RestController
@RequestMapping("/v1/proofs")
class ProofController {
    private final Shard shard;
    private final Requests requests;
    private final ShardMetrics metrics;

    ProofController(Shard shard, Requests requests, ShardMetrics metrics) {
        this.shard = shard;
        this.requests = requests;
        this.metrics = metrics;
    }

    @Allow({Role.CLIENT, Role.AUDITOR, Role.ADMIN})
    @PostMapping("/keys")
    Mono<Dto.KeysProofDto> keys(@RequestBody(required = false) Dto.ProveKeysRequest body, ServerWebExchange exchange) {
        Dto.ProveKeysRequest req = requests.body(body);
        List<Bytes> keys = requests.keys("keys", req.keys());
        TxnEngine e = shard.engine();
        ResponseBudget.Lease lease = ResponseBudget.of(exchange);
        if (req.block() == null) {
            if (!e.isLeader()) {
                throw new io.glassledger.core.txn.TxnException(io.glassledger.core.txn.TxnException.Reason.NOT_LEADER,
                        "latest reads go to shard " + shard.number() + "'s leader", e.leaderHint());
            }
            // The latest state is proven against its own digest (clients refuse an older block: a stale read), once
            // a replica has confirmed it leads.
            return Mono.fromFuture(shard::confirmLeader).then(Mono.fromCallable(() -> dto(new ProofResult.Ready(
                    e.proveLatest(keys, proofBudget(lease))), true, lease)).subscribeOn(shard.reads()));
        }
        long block = Blocks.persisted(e, req.block());
        return Mono.fromFuture(e.proveWrites(block, keys, Duration.ZERO, proofBudget(lease)))
                .publishOn(shard.reads()).map(r -> dto(r, true, lease));
    }

    /**
     * The raw bytes the engine may collect for this request's proofs: what its response may still take, less base64's
     * third and room for the signed heads. Shared by all items of a batch, so their proofs together stay within it.
     */
    private static ByteBudget proofBudget(ResponseBudget.Lease lease) {
        return new ByteBudget(Math.max(0, lease.remaining() - HEAD_BYTES) * 3 / 4, "the proofs of this request");
    }

    /** A signed head and digest in JSON, charged with each proof that carries them. */
    private static final int HEAD_BYTES = 1024;

    @Allow({Role.CLIENT, Role.AUDITOR, Role.ADMIN})
    @GetMapping("/append-only")
    Mono<Dto.AppendOnlyProofDto> appendOnly(@RequestParam long from, @RequestParam(required = false) Long to,
                                            ServerWebExchange exchange) {
        TxnEngine e = shard.engine();
        ResponseBudget.Lease lease = ResponseBudget.of(exchange);
        return Mono.fromCallable(() -> {
            long head = e.digest().blockNo();
            long t = to == null ? head : to;
            if (shard.replicas().isPresent() && from >= 0 && from <= t && t > head) {
                // A replica persists at its own pace: a block another replica signed may not be here yet. Not a
                // denial of the block (the client would take it for a rollback): ask again, or another replica.
                throw replicaBehind(t, 0);
            }
            if (from < 0 || t > head || from > t) {
                throw new ApiException(from > head ? "stale_digest" : "unknown_block",
                        from > head ? HttpStatus.CONFLICT : HttpStatus.NOT_FOUND,
                        "append-only proof from " + from + " to " + t + " with head " + head);
            }
            return appendOnly(e, from, t, lease);
        }).subscribeOn(shard.reads());
    }

    /** Two digests and O(log n) hashes: small, but charged like any other part of a response. */
    private Dto.AppendOnlyProofDto appendOnly(TxnEngine e, long from, long to, ResponseBudget.Lease lease) {
        Digest a = e.digest(from);
        Digest b = e.digest(to);
        String proof = null;
        lease.charge(HEAD_BYTES, "ask for fewer items");
        if (from < to) {
            AppendOnlyProof p = e.proveAppendOnly(from, to);
            byte[] enc = p.encode();
            metrics.proofSize(enc.length);
            lease.charge(ResponseBudget.base64(enc.length), "ask for fewer items");
            proof = Wire.b64(enc);
        }
        return new Dto.AppendOnlyProofDto(Wire.digest(a), Wire.digest(b), proof);
    }

    @Allow({Role.CLIENT, Role.AUDITOR, Role.ADMIN})
    @PostMapping("/batch")
    Mono<Dto.ProofBatchResponse> batch(@RequestBody(required = false) Dto.ProofBatchRequest body,
                                       ServerWebExchange exchange) {
        Dto.ProofBatchRequest req = requests.body(body);
        if (req.items() == null || req.items().isEmpty()) {
            throw ApiException.malformed("items: at least one");
        }
        int maxItems = requests.limits().maxProofItems();
        if (req.items().size() > maxItems) {
            // Items bound the traversals, the distinct blocks and the append-only proofs of one request.
            throw ApiException.tooLarge("items: " + req.items().size() + " items, the limit is " + maxItems
                    + " (glassledger.limits.max-proof-items): split the batch");
        }
        ResponseBudget.Lease lease = ResponseBudget.of(exchange);
        ByteBudget budget = proofBudget(lease);
        TxnEngine e = shard.engine();
        long wait = req.waitMillis() == null ? 0 : req.waitMillis();
        if (wait < 0 || wait > requests.limits().maxProofWait().toMillis()) {
            throw ApiException.malformed("waitMillis: 0.." + requests.limits().maxProofWait().toMillis());
        }
        if (shard.replicas().isPresent()) {
            // A replica of a replicated shard may not have persisted yet a block the group promised or signed (the
            // client's trusted block, or an item's): a follower lags the leader, and a new leader may not have
            // persisted what its predecessor signed. It waits for its own persistence, then answers as a single
            // server would; behind for longer, it says so (retryable), never stale_digest, which would accuse the
            // shard of a rollback that is only this replica's lag. The SDK then asks elsewhere or later.
            long needed = req.trustedBlock() == null ? -1 : req.trustedBlock();
            if (!e.isLeader()) {
                for (Dto.ProofItem item : req.items()) {
                    if (item != null) {
                        needed = Math.max(needed, item.block());
                    }
                }
            }
            if (needed > e.digest().blockNo()) {
                long neededBlock = needed;
                long followerWait = Math.max(wait, REPLICA_MIN_WAIT_MILLIS);
                return Mono.fromFuture(e.awaitPersisted(needed).orTimeout(followerWait, TimeUnit.MILLISECONDS))
                        .onErrorMap(java.util.concurrent.TimeoutException.class, x -> replicaBehind(neededBlock,
                                followerWait))
                        .then(Mono.defer(() -> answerBatch(req, lease, budget, e, wait)));
            }
        }
        return answerBatch(req, lease, budget, e, wait);
    }

    /** How long a replica waits for its own persistence of the blocks a proof batch names, at least. */
    private static final long REPLICA_MIN_WAIT_MILLIS = 1_000;

    private static ApiException replicaBehind(long block, long waitedMillis) {
        return new ApiException("replica_behind", HttpStatus.SERVICE_UNAVAILABLE, "this replica has not persisted "
                + "block " + block + (waitedMillis > 0 ? " within " + waitedMillis + " ms" : "") + ": ask again, or "
                + "ask the shard's leader", true);
    }

    private Mono<Dto.ProofBatchResponse> answerBatch(Dto.ProofBatchRequest req, ResponseBudget.Lease lease,
                                                     ByteBudget budget, TxnEngine e, long wait) {
        long head = e.digest().blockNo();
        boolean replicated = shard.replicas().isPresent();
        if (req.trustedBlock() != null && (req.trustedBlock() < 0 || req.trustedBlock() > head)) {
            if (replicated && req.trustedBlock() > head) {
                throw replicaBehind(req.trustedBlock(), 0);  // its persistence is a moment behind its own wait
            }
            throw new ApiException("stale_digest", HttpStatus.CONFLICT, "trusted block " + req.trustedBlock()
                    + " is beyond this shard's head " + head + ": a digest this server never gave");
        }
        int total = 0;
        List<CompletableFuture<ProofResult>> fs = new ArrayList<>();
        for (Dto.ProofItem item : req.items()) {
            if (item == null) {
                throw ApiException.malformed("items: null item");
            }
            List<Bytes> keys = requests.keys("items.keys", item.keys());
            total += keys.size();
            if (total > requests.limits().maxKeysPerRequest()) {
                throw ApiException.tooLarge("a batch of more than " + requests.limits().maxKeysPerRequest() + " keys");
            }
            if (item.block() < 0 || item.block() >= e.promisedBound()) {
                if (replicated && !e.isLeader() && item.block() >= 0) {
                    throw replicaBehind(item.block(), 0);  // a follower judges no promise it has not applied
                }
                throw new ApiException("unknown_block", HttpStatus.NOT_FOUND, "block " + item.block()
                        + " was never promised");
            }
            fs.add(e.proveWrites(item.block(), keys, Duration.ofMillis(wait), budget));
        }
        // allOf completes with null, an empty Mono: the answer is built after it, on the read executor.
        return Mono.fromFuture(CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)))
                .then(Mono.fromCallable(() -> {
                    List<Dto.KeysProofDto> proofs = new ArrayList<>(fs.size());
                    TreeMap<Long, Digest> digests = new TreeMap<>();
                    // Items of one block share a proof: encoded once, though charged (and sent) once per item.
                    Map<BlockProof, byte[]> encoded = new IdentityHashMap<>();
                    for (CompletableFuture<ProofResult> f : fs) {
                        ProofResult r = f.join();
                        if (r instanceof ProofResult.Ready ready) {
                            byte[] enc = encoded.computeIfAbsent(ready.proof(), this::encode);
                            proofs.add(dto(ready.proof(), enc, false, lease));
                            digests.put(ready.proof().digest().blockNo(), ready.proof().digest());
                        } else {
                            proofs.add(Wire.pendingProof(((ProofResult.Pending) r).blockNo()));
                        }
                    }
                    List<Dto.AppendOnlyProofDto> ao = new ArrayList<>();
                    if (req.trustedBlock() != null) {
                        for (long b : digests.keySet()) {
                            if (b > req.trustedBlock()) {
                                ao.add(appendOnly(e, req.trustedBlock(), b, lease));
                            }
                        }
                    }
                    return new Dto.ProofBatchResponse(proofs, ao, Wire.signedHead(shard.signedHead()));
                }).subscribeOn(shard.reads()));
    }

    private Dto.KeysProofDto dto(ProofResult r, boolean signed, ResponseBudget.Lease lease) {
        if (r instanceof ProofResult.Ready ready) {
            return dto(ready.proof(), encode(ready.proof()), signed, lease);
        }
        lease.charge(ResponseBudget.FIELD_BYTES, "ask for fewer items");
        return Wire.pendingProof(((ProofResult.Pending) r).blockNo());
    }

    /** The proof's encoding: within the engine's byte budget, which charged its parts as it collected them. */
    private byte[] encode(BlockProof bp) {
        byte[] proof = bp.proof().encode();
        metrics.proofSize(proof.length);
        return proof;
    }

    /** Charges the answer's base64 and JSON before making it. */
    private Dto.KeysProofDto dto(BlockProof bp, byte[] proof, boolean signed, ResponseBudget.Lease lease) {
        long bytes = HEAD_BYTES + ResponseBudget.base64(proof.length);
        for (KeyClaim c : bp.claims()) {
            bytes += ResponseBudget.FIELD_BYTES + ResponseBudget.base64(c.key().length())
                    + (c.value() == null ? 0 : ResponseBudget.base64(c.value().length()));
        }
        lease.charge(bytes, "ask for fewer keys or items");
        return Wire.keysProof(bp, proof, signed ? shard.signedHead(bp.digest()) : null);
    }
}
