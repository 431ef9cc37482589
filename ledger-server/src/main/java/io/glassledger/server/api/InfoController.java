package io.glassledger.server.api;

import io.glassledger.verify.format.Format;
import io.glassledger.server.auth.Allow;
import io.glassledger.server.auth.Role;
import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
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

    private final io.glassledger.verify.shard.ShardMap map;
    private final long persistIntervalMillis;

    private final io.glassledger.server.directory.Directory directory;

    InfoController(Shard shard, Requests requests, io.glassledger.server.LedgerProperties props,
                   io.glassledger.server.directory.Directory directory) {
        this.shard = shard;
        this.directory = directory;
        this.requests = requests;
        this.map = props.cluster().map();
        this.persistIntervalMillis = props.persistInterval().toMillis();
    }

    @Allow({Role.CLIENT, Role.AUDITOR, Role.ADMIN, Role.PEER})
    @GetMapping("/info")
    Dto.ServerInfo info() {
        var l = requests.limits();
        return new Dto.ServerInfo(shard.number(), shard.serverKey().publicKey().hex(), Format.ID,
                System.currentTimeMillis(), l.maxKeyBytes(), l.maxValueBytes(), l.maxTransactionBytes(),
                l.maxKeysPerRequest(), map.shards(), map.version(), persistIntervalMillis, l.maxResponseBytes(),
                l.maxProofItems());
    }

    /** The shard map and the cluster directory as this member knows them (docs/API.md "Cluster"). */
    @Allow({Role.CLIENT, Role.AUDITOR, Role.ADMIN, Role.PEER})
    @GetMapping("/cluster")
    Dto.ClusterDto cluster() {
        java.util.List<Dto.ShardReplicasDto> shards = directory.shardMap().entrySet().stream()
                .map(e -> new Dto.ShardReplicasDto(e.getKey(), e.getValue())).toList();
        Dto.DirectoryDto d = null;
        if (directory.enabled()) {
            java.util.Map<String, Object> m = directory.describe();
            d = new Dto.DirectoryDto((String) m.get("member"), (Integer) m.get("members"), (Integer) m.get("voters"),
                    (String) m.get("role"), (String) m.get("leader"), (Long) m.get("appliedIndex"));
        }
        return new Dto.ClusterDto(map.version(), map.shards(), shards, d);
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
