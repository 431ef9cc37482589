package io.glassledger.server.api;

import io.glassledger.server.auth.Allow;
import io.glassledger.server.auth.Role;
import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.Transaction;
import io.glassledger.core.txn.TxState;
import io.glassledger.core.txn.TxnEngine;
import io.glassledger.server.auth.AuthStore;
import io.glassledger.server.auth.Principal;
import io.glassledger.server.shard.Participant;
import io.glassledger.server.shard.Shard;
import io.glassledger.server.shard.ShardMetrics;
import java.util.ArrayList;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

@RestController
@RequestMapping("/v1")
class TxController {
    private final Shard shard;
    private final AuthStore auth;
    private final Requests requests;
    private final ShardMetrics metrics;
    private final Participant participant;

    TxController(Shard shard, AuthStore auth, Requests requests, ShardMetrics metrics, Participant participant) {
        this.shard = shard;
        this.participant = participant;
        this.auth = auth;
        this.requests = requests;
        this.metrics = metrics;
    }

    @Allow({Role.CLIENT, Role.ADMIN})
    @PostMapping("/tx/begin")
    Mono<Dto.BeginResponse> begin() {
        return Mono.fromCallable(() -> new Dto.BeginResponse(shard.number(), System.currentTimeMillis(),
                Wire.signedHead(shard.signedHead()))).subscribeOn(shard.reads());
    }

    @Allow({Role.CLIENT, Role.AUDITOR, Role.ADMIN})
    @PostMapping("/get")
    Mono<Dto.ValuesResponse> get(@RequestBody(required = false) Dto.KeysRequest body, ServerWebExchange exchange) {
        Dto.KeysRequest req = requests.body(body);
        List<Bytes> keys = requests.keys("keys", req.keys());
        ResponseBudget.Lease lease = ResponseBudget.of(exchange);
        boolean latest = req.block() == null && req.timestamp() == null;
        // A latest read waits for a replica to confirm it leads (linearizable); a read of a block needs nothing.
        Mono<Void> gate = latest ? Mono.fromFuture(shard::confirmLeader) : Mono.empty();
        return gate.then(Mono.fromCallable(() -> {
            TxnEngine e = shard.engine();
            List<Dto.ValueDto> out = new ArrayList<>(keys.size());
            // Each value is charged before it is base64-encoded into the response.
            if (req.block() == null && req.timestamp() == null) {
                if (!e.isLeader()) {
                    // The latest value is the leader's to say; a follower may be behind (reads of a block are not).
                    throw new io.glassledger.core.txn.TxnException(io.glassledger.core.txn.TxnException.Reason
                            .NOT_LEADER, "latest reads go to shard " + shard.number() + "'s leader", e.leaderHint());
                }
                for (Bytes k : keys) {
                    TxnEngine.Versioned v = e.get(k);
                    charge(lease, k, v.value() == null ? 0 : v.value().length());
                    out.add(new Dto.ValueDto(Wire.b64(k), Wire.b64(v.value()), v.version()));
                }
                return new Dto.ValuesResponse(out, null);
            }
            long block = req.block() != null ? Blocks.persisted(e, req.block()) : Blocks.atTimestamp(e, req.timestamp(), System.currentTimeMillis());
            for (Bytes k : keys) {
                Entry en = e.ledger().entry(k, block);
                boolean absent = en == null || en.isTombstone();
                charge(lease, k, absent ? 0 : en.encodedLength());
                out.add(new Dto.ValueDto(Wire.b64(k), absent ? null : Wire.b64(en.value()),
                        en == null ? 0 : en.version()));
            }
            return new Dto.ValuesResponse(out, block);
        }).subscribeOn(shard.reads()));
    }

    private static void charge(ResponseBudget.Lease lease, Bytes key, long valueBytes) {
        lease.charge(ResponseBudget.FIELD_BYTES + ResponseBudget.base64(key.length())
                + ResponseBudget.base64(valueBytes), "ask for fewer keys");
    }

    @Allow({Role.CLIENT, Role.ADMIN})
    @PostMapping("/tx/commit")
    Mono<Dto.PromiseDto> commit(@RequestBody(required = false) Dto.CommitRequest body, ServerWebExchange exchange) {
        Dto.CommitRequest req = requests.body(body);
        SignedTransaction stx = transaction(req.record(), Principal.of(exchange));
        boolean wait = Boolean.TRUE.equals(req.waitPersisted());
        long t0 = System.nanoTime();
        return Mono.fromFuture(shard.engine().commit(stx, wait))
                .doOnSuccess(p -> metrics.committed(stx.tx().writes().size(), System.nanoTime() - t0))
                .doOnError(metrics::refused)
                .map(Wire::promise);
    }

    @Allow({Role.CLIENT, Role.ADMIN})
    @PostMapping("/tx/prepare")
    Mono<Dto.TxStateDto> prepare(@RequestBody(required = false) Dto.PrepareRequest body, ServerWebExchange exchange) {
        SignedTransaction stx = transaction(requests.body(body).record(), Principal.of(exchange));
        return Mono.fromFuture(shard.engine().prepare(stx)).doOnError(metrics::refused)
                .thenReturn(new Dto.TxStateDto(stx.txId().hex(), TxState.PREPARED.name(), null));
    }

    /** At a participant other than the primary, applied only as the primary decided ({@link Participant}). */
    @Allow({Role.CLIENT, Role.ADMIN})
    @PostMapping("/tx/{txId}/commit")
    Mono<Dto.PromiseDto> decideCommit(@PathVariable String txId, ServerWebExchange exchange) {
        Principal caller = Principal.of(exchange);
        Bytes id = owned(txId, caller);
        return Mono.fromFuture(() -> participant.commit(id, caller.role() == Role.ADMIN)).map(Wire::promise);
    }

    @Allow({Role.CLIENT, Role.ADMIN})
    @PostMapping("/tx/{txId}/abort")
    Mono<Dto.TxStateDto> decideAbort(@PathVariable String txId, ServerWebExchange exchange) {
        Principal caller = Principal.of(exchange);
        Bytes id = owned(txId, caller);
        return Mono.fromFuture(() -> participant.abort(id, caller.role() == Role.ADMIN))
                .then(Mono.just(new Dto.TxStateDto(id.hex(), TxState.ABORTED.name(), null)));
    }

    /**
     * Asked of a transaction's primary participant by another participant whose prepare timed out (roles peer and
     * admin): the recorded decision, recording an abort first if there is none.
     */
    @Allow({Role.ADMIN, Role.PEER})
    @PostMapping("/tx/{txId}/resolve")
    Mono<Dto.TxStateDto> resolve(@PathVariable String txId) {
        Bytes id = txId(txId);
        return Mono.fromFuture(shard.engine().resolve(id)).map(s -> new Dto.TxStateDto(id.hex(), s.name(), null));
    }

    @Allow({Role.CLIENT, Role.AUDITOR, Role.ADMIN, Role.PEER})
    @GetMapping("/tx/{txId}")
    Mono<Dto.TxStateDto> status(@PathVariable String txId) {
        Bytes id = txId(txId);
        // A committed transaction whose block is still remembered (the replay window) comes with its promise, so
        // that a client whose commit lost its answer (a leader that failed mid-commit) can take it from here.
        return Mono.fromFuture(shard::confirmLeader).then(Mono.defer(() -> Mono.fromFuture(shard.engine()
                .statusDetail(id)))).map(s -> new Dto.TxStateDto(id.hex(),
                s.state().name(), s.state() == TxState.COMMITTED && s.block() > 0
                        ? Wire.promise(new io.glassledger.verify.txn.Promise(id, shard.number(), s.block(), s.served()))
                        : null));
    }

    /** Only the client whose key signed a prepared transaction (or an admin) may decide it. */
    private Bytes owned(String hex, Principal caller) {
        Bytes id = txId(hex);
        var signer = shard.engine().preparedBy(id);
        if (signer.isPresent() && caller.role() != io.glassledger.server.auth.Role.ADMIN
                && !signer.equals(auth.clientKey(caller.clientId()))) {
            throw new ApiException("forbidden", HttpStatus.FORBIDDEN, "transaction " + hex
                    + " was prepared by another client");
        }
        return id;
    }

    private static Bytes txId(String hex) {
        try {
            return Wire.hex("txId", hex, Transaction.TX_ID_BYTES);
        } catch (Wire.BadWireException e) {
            throw ApiException.malformed(e.getMessage());
        }
    }

    /** Decodes a signed transaction and checks it is within limits and signed by the caller's registered key. */
    private SignedTransaction transaction(String b64, Principal caller) {
        if (b64 == null) {
            throw ApiException.malformed("record: missing");
        }
        var l = requests.limits();
        if (b64.length() > (l.maxTransactionBytes() + 2) / 3 * 4 + 4) {
            throw ApiException.tooLarge("transaction record over " + l.maxTransactionBytes() + " bytes");
        }
        Bytes rec = requests.decode("record", b64);
        if (rec.length() > l.maxTransactionBytes()) {
            throw ApiException.tooLarge("transaction record of " + rec.length() + " bytes, the limit is "
                    + l.maxTransactionBytes());
        }
        SignedTransaction stx;
        try {
            stx = SignedTransaction.decode(rec);
        } catch (Transaction.ValueTooLongException e) {
            throw ApiException.tooLarge("a value of " + e.length() + " bytes, the limit is " + l.maxValueBytes());
        } catch (RuntimeException e) {
            throw ApiException.malformed("record: not a signed transaction (" + e.getMessage() + ")");
        }
        for (Transaction.Read r : stx.tx().reads()) {
            requests.owned("record.reads", r.key());
        }
        for (Mutation m : stx.tx().writes()) {
            requests.owned("record.writes", m.key());
            if (m.key().length() > l.maxKeyBytes()) {
                throw ApiException.tooLarge("a written key of " + m.key().length() + " bytes, the limit is "
                        + l.maxKeyBytes());
            }
            if (!m.isDelete() && m.value().length() > l.maxValueBytes()) {
                throw ApiException.tooLarge("a value of " + m.value().length() + " bytes, the limit is "
                        + l.maxValueBytes());
            }
        }
        Bytes registered = auth.clientKey(caller.clientId()).orElseThrow(() -> new ApiException("wrong_client_key",
                HttpStatus.FORBIDDEN, "client " + caller.clientId() + " has not registered an Ed25519 key"));
        if (!registered.equals(stx.tx().clientKey())) {
            throw new ApiException("wrong_client_key", HttpStatus.FORBIDDEN, "the transaction is signed by key "
                    + stx.tx().clientKey().hex() + ", not the key registered for client " + caller.clientId());
        }
        return stx;
    }
}
