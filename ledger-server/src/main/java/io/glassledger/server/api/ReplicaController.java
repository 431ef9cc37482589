package io.glassledger.server.api;

import io.glassledger.api.Dto;
import io.glassledger.core.txn.TxnEngine;
import io.glassledger.core.txn.TxnException;
import io.glassledger.server.auth.Allow;
import io.glassledger.server.auth.Role;
import io.glassledger.server.replication.ReplicaGroup;
import io.glassledger.server.shard.Shard;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.ratis.protocol.RaftPeer;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * A replicated shard's membership (docs/API.md "Replicas", admin only): its replicas as this replica knows them, and
 * adding or removing one while the shard serves, through Raft's configuration change at the leader.
 */
@RestController
@RequestMapping("/v1/admin/replicas")
class ReplicaController {
    private static final java.util.regex.Pattern ID = java.util.regex.Pattern.compile("r[0-9]{1,3}");
    private static final java.util.regex.Pattern RAFT = java.util.regex.Pattern.compile("[A-Za-z0-9.-]{1,253}:[0-9]{1,5}");

    private final Shard shard;
    private final Requests requests;
    private final io.glassledger.server.directory.Directory directory;

    ReplicaController(Shard shard, Requests requests, io.glassledger.server.directory.Directory directory) {
        this.shard = shard;
        this.requests = requests;
        this.directory = directory;
    }

    /**
     * Changes the group to {@code peers}, then the shard map in the cluster directory (so that peers and the auditor
     * find the new replica set), then answers the group as it now is. A directory that does not take the map change
     * leaves the group changed and says so in the log: the next membership change writes the map again.
     */
    private Mono<Dto.ReplicasResponse> change(ReplicaGroup g, List<RaftPeer> peers) {
        return Mono.fromFuture(g.reconfigure(peers)).then(Mono.defer(() -> {
            if (!directory.enabled()) {
                return Mono.empty();
            }
            List<String> urls = peers.stream().map(RaftPeer::getClientAddress).toList();
            return Mono.fromFuture(directory.submit(List.of(new io.glassledger.server.directory.DirectoryEntry
                    .ShardReplicas(shard.number(), urls)))).then();
        })).then(Mono.fromCallable(this::list));
    }

    private ReplicaGroup group() {
        return shard.replicas().orElseThrow(() -> new ApiException("not_replicated", HttpStatus.CONFLICT,
                "shard " + shard.number() + " is a single server, not a Raft group (glassledger.replication.peers)"));
    }

    @Allow({Role.ADMIN})
    @GetMapping
    Dto.ReplicasResponse list() {
        ReplicaGroup g = group();
        Map<String, Object> d = g.describe();
        String leader = (String) d.get("leader");
        List<Dto.ReplicaDto> out = new ArrayList<>();
        try {
            for (RaftPeer p : g.members()) {
                String url = p.getClientAddress();
                out.add(new Dto.ReplicaDto(p.getId().toString(), p.getAddress(), url,
                        url != null && url.equals(leader) ? "LEADER" : "FOLLOWER"));
            }
        } catch (IOException e) {
            throw new ApiException("unavailable", HttpStatus.SERVICE_UNAVAILABLE, e.getMessage(), true);
        }
        return new Dto.ReplicasResponse(shard.number(), g.self(), leader,
                ((Number) d.getOrDefault("term", 0L)).longValue(), ((Number) d.getOrDefault("commitIndex", 0L))
                .longValue(), out);
    }

    /**
     * Adds a replica: start its server first (with the group's replicas and itself in
     * {@code glassledger.replication.peers}, an empty data directory and the shard's key), then add it here; it is
     * caught up from a snapshot and the log before it counts in the majority.
     */
    @Allow({Role.ADMIN})
    @PostMapping("/add")
    Mono<Dto.ReplicasResponse> add(@RequestBody(required = false) Dto.ReplicaDto body) {
        Dto.ReplicaDto req = requests.body(body);
        if (req.id() == null || !ID.matcher(req.id()).matches()) {
            throw ApiException.malformed("id: r0 to r999, the new replica's position in its peers list");
        }
        if (req.raft() == null || !RAFT.matcher(req.raft()).matches()) {
            throw ApiException.malformed("raft: host:port of the new replica's Raft server");
        }
        java.net.URI url;
        try {
            url = java.net.URI.create(req.url() == null ? "" : req.url());
        } catch (IllegalArgumentException e) {
            throw ApiException.malformed("url: " + e.getMessage());
        }
        if (!"https".equalsIgnoreCase(url.getScheme()) || url.getHost() == null) {
            throw ApiException.malformed("url: the new replica's https://host:port");
        }
        ReplicaGroup g = leaderGroup();
        List<RaftPeer> peers = current(g);
        if (peers.stream().anyMatch(p -> p.getId().toString().equals(req.id()))) {
            throw new ApiException("replica_exists", HttpStatus.CONFLICT, "the group already has replica " + req.id());
        }
        peers.add(ReplicaGroup.peer(req.id(), req.raft(), url.toString()));
        return change(g, peers);
    }

    /** Removes a replica (the leader included: it steps down once the change is committed). */
    @Allow({Role.ADMIN})
    @PostMapping("/remove")
    Mono<Dto.ReplicasResponse> remove(@RequestBody(required = false) Dto.RemoveReplicaRequest body) {
        Dto.RemoveReplicaRequest req = requests.body(body);
        if (req.id() == null || !ID.matcher(req.id()).matches()) {
            throw ApiException.malformed("id: the peer id of the replica to remove (r0, r1, ...)");
        }
        ReplicaGroup g = leaderGroup();
        List<RaftPeer> peers = current(g);
        if (!peers.removeIf(p -> p.getId().toString().equals(req.id()))) {
            throw new ApiException("unknown_replica", HttpStatus.NOT_FOUND, "the group has no replica " + req.id());
        }
        if (peers.isEmpty()) {
            throw new ApiException("last_replica", HttpStatus.CONFLICT, "a group keeps at least one replica");
        }
        return change(g, peers);
    }

    private ReplicaGroup leaderGroup() {
        ReplicaGroup g = group();
        TxnEngine e = shard.engine();
        if (!e.isLeader()) {
            throw new TxnException(TxnException.Reason.NOT_LEADER, "membership changes go to shard "
                    + shard.number() + "'s leader", e.leaderHint());
        }
        return g;
    }

    private static List<RaftPeer> current(ReplicaGroup g) {
        try {
            return new ArrayList<>(g.members());
        } catch (IOException e) {
            throw new ApiException("unavailable", HttpStatus.SERVICE_UNAVAILABLE, e.getMessage(), true);
        }
    }
}
