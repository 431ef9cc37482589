package io.glassledger.server.api;

import io.glassledger.server.auth.Allow;
import io.glassledger.server.auth.Role;
import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.server.shard.Shard;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

@RestController
@RequestMapping("/v1")
class InfoController {
    private final Shard shard;
    private final Requests requests;

    private final io.glassledger.core.shard.ShardMap map;
    private final long persistIntervalMillis;

    InfoController(Shard shard, Requests requests, io.glassledger.server.LedgerProperties props) {
        this.shard = shard;
        this.requests = requests;
        this.map = props.cluster().map();
        this.persistIntervalMillis = props.persistInterval().toMillis();
    }

    @Allow({Role.CLIENT, Role.AUDITOR, Role.ADMIN, Role.PEER})
    @GetMapping("/info")
    Dto.ServerInfo info() {
        var l = requests.limits();
        return new Dto.ServerInfo(shard.number(), shard.serverKey().publicKey().hex(), Ledger.FORMAT,
                System.currentTimeMillis(), l.maxKeyBytes(), l.maxValueBytes(), l.maxTransactionBytes(),
                l.maxKeysPerRequest(), map.shards(), map.version(), persistIntervalMillis, l.maxResponseBytes(),
                l.maxProofItems());
    }

    /** The latest persisted digest, signed; with {@code block}, the signed head of that persisted block. */
    @Allow({Role.CLIENT, Role.AUDITOR, Role.ADMIN})
    @GetMapping("/head")
    Mono<Dto.SignedHeadDto> head(@org.springframework.web.bind.annotation.RequestParam(required = false) Long block) {
        return Mono.fromCallable(() -> {
            if (block == null) {
                return Wire.signedHead(shard.signedHead());
            }
            long n = Blocks.persisted(shard.engine(), block);
            return Wire.signedHead(shard.signedHead(shard.engine().digest(n)));
        }).subscribeOn(shard.reads());
    }
}
