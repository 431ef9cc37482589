package io.glassledger.server.api;

import io.glassledger.server.auth.Allow;
import io.glassledger.server.auth.Role;
import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.core.ledger.ProofTooLargeException;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.Version;
import io.glassledger.server.shard.Shard;
import io.glassledger.server.shard.ShardMetrics;
import java.util.List;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

@RestController
@RequestMapping("/v1")
class ReadController {
    private final Shard shard;
    private final Requests requests;
    private final ShardMetrics metrics;

    ReadController(Shard shard, Requests requests, ShardMetrics metrics) {
        this.shard = shard;
        this.requests = requests;
        this.metrics = metrics;
    }

    @Allow({Role.CLIENT, Role.AUDITOR, Role.ADMIN})
    @PostMapping("/history")
    Mono<Dto.HistoryResponse> history(@RequestBody(required = false) Dto.HistoryRequest body,
                                      ServerWebExchange exchange) {
        Dto.HistoryRequest req = requests.body(body);
        Bytes key = requests.key("key", req.key());
        int limit = requests.limit("limit", req.limit(), 10, requests.limits().maxHistory());
        ResponseBudget.Lease lease = ResponseBudget.of(exchange);
        return Mono.fromCallable(() -> {
            Digest d = shard.engine().digest();
            // The ledger stops collecting versions once their raw bytes could not fit the response in base64.
            Ledger.History h;
            try {
                h = shard.engine().ledger().proveHistory(key, limit, d.blockNo(), rawBudget(lease));
            } catch (ProofTooLargeException x) {
                throw lease.tooLarge(x.getMessage() + ": ask for a smaller limit");
            }
            byte[] proof = h.proof().encode();
            metrics.proofSize(proof.length);
            long bytes = HEAD_BYTES + ResponseBudget.base64(key.length()) + ResponseBudget.base64(proof.length);
            for (Version v : h.versions()) {
                bytes += ResponseBudget.FIELD_BYTES
                        + (v.value() == null ? 0 : ResponseBudget.base64(v.value().length()));
            }
            lease.charge(bytes, "ask for a smaller limit");
            return new Dto.HistoryResponse(Wire.b64(key), limit, h.versions().stream()
                    .map(v -> new Dto.VersionDto(v.blockNo(), Wire.b64(v.value()))).toList(), Wire.digest(d),
                    Wire.b64(proof), Wire.signedHead(shard.signedHead(d)));
        }).subscribeOn(shard.reads());
    }

    /**
     * A scan page ends early, with {@code more}, where its next entry would take the response over its byte budget;
     * the client continues after the last key, as after a page cut by {@code limit}.
     */
    @Allow({Role.CLIENT, Role.AUDITOR, Role.ADMIN})
    @PostMapping("/scan")
    Mono<Dto.ScanResponse> scan(@RequestBody(required = false) Dto.ScanRequest body, ServerWebExchange exchange) {
        Dto.ScanRequest req = requests.body(body);
        Bytes from = requests.optionalKey("from", req.from());
        Bytes to = requests.optionalKey("to", req.to());
        int limit = requests.limit("limit", req.limit(), 100, requests.limits().maxScan());
        ResponseBudget.Lease lease = ResponseBudget.of(exchange);
        return Mono.fromCallable(() -> {
            long block = req.block() == null ? shard.engine().digest().blockNo()
                    : Blocks.persisted(shard.engine(), req.block());
            // Half the budget in raw entry bytes: base64 takes 4/3 and each item's JSON a few dozen bytes more.
            Ledger.ScanPage page = shard.engine().ledger().scan(from, to, block, limit,
                    Math.max(0, lease.remaining() - HEAD_BYTES) / 2);
            if (page.entries().isEmpty() && page.more()) {
                throw lease.tooLarge("the first entry of the range does not fit");
            }
            long bytes = HEAD_BYTES;
            for (Entry e : page.entries()) {
                bytes += ResponseBudget.FIELD_BYTES + ResponseBudget.base64(e.encodedLength());
            }
            lease.charge(bytes, "ask for a smaller limit");
            List<Dto.ValueDto> items = page.entries().stream()
                    .map(e -> new Dto.ValueDto(Wire.b64(e.key()), Wire.b64(e.value()), e.version())).toList();
            return new Dto.ScanResponse(items, block, page.more());
        }).subscribeOn(shard.reads());
    }

    /** Raw bytes (keys, values, hashes) that fit what the response may still take once base64-encoded. */
    static long rawBudget(ResponseBudget.Lease lease) {
        return Math.max(0, lease.remaining() - HEAD_BYTES) * 3 / 4;
    }

    /** A digest, a signed head and the response's own fields in JSON. */
    static final int HEAD_BYTES = 1024;
}
