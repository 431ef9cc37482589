package io.glassledger.server.api;

import io.glassledger.server.auth.Allow;
import io.glassledger.server.auth.Role;
import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
import io.glassledger.core.hash.Bytes;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.core.postree.Entry;
import io.glassledger.core.proof.Digest;
import io.glassledger.server.shard.Shard;
import io.glassledger.server.shard.ShardMetrics;
import java.util.List;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
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
    Mono<Dto.HistoryResponse> history(@RequestBody(required = false) Dto.HistoryRequest body) {
        Dto.HistoryRequest req = requests.body(body);
        Bytes key = requests.key("key", req.key());
        int limit = requests.limit("limit", req.limit(), 10, requests.limits().maxHistory());
        return Mono.fromCallable(() -> {
            Digest d = shard.engine().digest();
            Ledger.History h = shard.engine().ledger().proveHistory(key, limit, d.blockNo());
            byte[] proof = h.proof().encode();
            metrics.proofSize(proof.length);
            return new Dto.HistoryResponse(Wire.b64(key), h.versions().stream()
                    .map(v -> new Dto.VersionDto(v.blockNo(), Wire.b64(v.value()))).toList(), Wire.digest(d),
                    Wire.b64(proof), Wire.signedHead(shard.signedHead(d)));
        }).subscribeOn(shard.reads());
    }

    @Allow({Role.CLIENT, Role.AUDITOR, Role.ADMIN})
    @PostMapping("/scan")
    Mono<Dto.ScanResponse> scan(@RequestBody(required = false) Dto.ScanRequest body) {
        Dto.ScanRequest req = requests.body(body);
        Bytes from = requests.optionalKey("from", req.from());
        Bytes to = requests.optionalKey("to", req.to());
        int limit = requests.limit("limit", req.limit(), 100, requests.limits().maxScan());
        return Mono.fromCallable(() -> {
            long block = req.block() == null ? shard.engine().digest().blockNo()
                    : Blocks.persisted(shard.engine(), req.block());
            List<Entry> es = shard.engine().ledger().scan(from, to, block, limit + 1);
            boolean more = es.size() > limit;
            List<Dto.ValueDto> items = es.stream().limit(limit)
                    .map(e -> new Dto.ValueDto(Wire.b64(e.key()), Wire.b64(e.value()), e.version())).toList();
            return new Dto.ScanResponse(items, block, more);
        }).subscribeOn(shard.reads());
    }
}
