package io.glassledger.server.api;

import io.glassledger.server.auth.Allow;
import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
import io.glassledger.verify.crypto.Ed25519;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.core.txn.TxnEngine;
import io.glassledger.core.txn.TxnException;
import io.glassledger.server.replication.ClientKeyChange;
import io.glassledger.server.shard.Shard;
import io.glassledger.server.auth.AuthStore;
import io.glassledger.server.auth.Principal;
import io.glassledger.server.auth.Role;
import io.glassledger.server.directory.Directory;
import io.glassledger.server.directory.DirectoryEntry;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
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
class ClientController {
    private final AuthStore auth;
    private final Requests requests;
    private final Shard shard;
    private final Directory directory;

    ClientController(AuthStore auth, Requests requests, Shard shard, Directory directory) {
        this.auth = auth;
        this.requests = requests;
        this.shard = shard;
        this.directory = directory;
    }

    /** GlassDB's Init(pk): binds the caller's identity to its Ed25519 public key, once. */
    @Allow({Role.CLIENT, Role.ADMIN})
    @PostMapping("/clients/key")
    Mono<ResponseEntity<Dto.ClientDto>> register(@RequestBody(required = false) Dto.RegisterKeyRequest body,
                                           ServerWebExchange exchange) {
        Principal p = Principal.of(exchange);
        Bytes pk;
        try {
            pk = Wire.hex("publicKey", requests.body(body).publicKey(), Ed25519.PUBLIC_KEY_BYTES);
        } catch (Wire.BadWireException e) {
            throw ApiException.malformed(e.getMessage());
        }
        // FORMAT.md §14.2's key rules, before any log (the directory's, the shard's) carries the key: every member
        // would refuse it when applying it anyway (§15.6).
        if (!Ed25519.isValidPublicKey(pk)) {
            throw ApiException.malformed("publicKey: not a canonical Ed25519 point of the prime-order subgroup "
                    + "(FORMAT.md §14.2 rules 1-2)");
        }
        Dto.ClientDto dto = new Dto.ClientDto(p.clientId(), p.role().wire(), pk.hex());
        if (directory.enabled()) {
            // The cluster directory's log: every member of every shard learns the key.
            if (auth.clientKey(p.clientId()).filter(pk::equals).isPresent()) {
                return Mono.just(ResponseEntity.ok(dto));
            }
            return Mono.fromFuture(directory.submit(List.of(new DirectoryEntry.ClientKey(p.clientId(), pk))))
                    .map(o -> {
                        if (!o.applied()) {
                            throw AuthStore.refusal(o.answer(), p.clientId());
                        }
                        return ResponseEntity.status(HttpStatus.CREATED).body(dto);
                    });
        }
        if (shard.replicas().isEmpty()) {
            boolean created = auth.register(p.clientId(), pk);
            return Mono.just(ResponseEntity.status(created ? HttpStatus.CREATED : HttpStatus.OK).body(dto));
        }
        // A replicated shard registers through its group's log, so that every replica knows the key (and keeps
        // knowing it after a failover); the leader takes it.
        TxnEngine e = shard.engine();
        if (!e.isLeader()) {
            throw new TxnException(TxnException.Reason.NOT_LEADER, "client keys are registered at shard "
                    + shard.number() + "'s leader", e.leaderHint());
        }
        if (auth.clientKey(p.clientId()).filter(pk::equals).isPresent()) {
            return Mono.just(ResponseEntity.ok(dto));
        }
        // (null, "registered", would make an empty Mono: the answer goes through as "" instead)
        return Mono.fromFuture(e.submitExtension(new ClientKeyChange(p.clientId(), pk).encode())
                .thenApply(a -> a == null ? "" : a)).map(answer -> {
            if (!answer.isEmpty()) {
                throw AuthStore.refusal(answer, p.clientId());
            }
            return ResponseEntity.status(HttpStatus.CREATED).body(dto);
        });
    }

    /** Every registered client key (auditors check each block's signatures against them). */
    @Allow({Role.AUDITOR, Role.ADMIN})
    @GetMapping("/clients")
    java.util.List<Dto.ClientKeyDto> clients(ServerWebExchange exchange) {
        if (Principal.of(exchange).role() == Role.CLIENT) {
            throw new ApiException("forbidden", HttpStatus.FORBIDDEN, "clients may read only their own registration");
        }
        return auth.clientKeys().entrySet().stream().map(e -> new Dto.ClientKeyDto(e.getKey(), e.getValue().hex()))
                .toList();
    }

    @Allow({Role.CLIENT, Role.AUDITOR, Role.ADMIN})
    @GetMapping("/clients/{clientId}")
    Dto.ClientDto client(@PathVariable String clientId, ServerWebExchange exchange) {
        Principal p = Principal.of(exchange);
        if (p.role() == Role.CLIENT && !p.clientId().equals(clientId)) {
            throw new ApiException("forbidden", HttpStatus.FORBIDDEN, "a client may only read its own registration");
        }
        Bytes pk = auth.clientKey(clientId).orElseThrow(() -> new ApiException("unknown_client", HttpStatus.NOT_FOUND,
                "client " + clientId + " has registered no key"));
        return new Dto.ClientDto(clientId, null, pk.hex());
    }

    @Allow({Role.ADMIN})
    @PostMapping("/admin/api-keys")
    Mono<ResponseEntity<Dto.ApiKeyResponse>> newKey(@RequestBody(required = false) Dto.ApiKeyRequest body) {
        Dto.ApiKeyRequest req = requests.body(body);
        if (req.role() == null) {
            throw ApiException.malformed("role: missing");
        }
        Role role = Role.parse(req.role());
        if (!directory.enabled()) {
            String key = auth.newKey(req.clientId(), role);
            return Mono.just(created(req.clientId(), role, key));
        }
        if (req.clientId() == null || !req.clientId().matches("[A-Za-z0-9._-]{1,64}")) {
            throw new IllegalArgumentException("clientId must be 1-64 of A-Z a-z 0-9 . _ -");
        }
        // Made here, valid everywhere once the directory's log holds its hash (never the key).
        AuthStore.NewKey k = AuthStore.generateKey();
        return Mono.fromFuture(directory.submit(List.of(new DirectoryEntry.ApiKey(k.hashHex(), req.clientId(),
                role.wire())))).map(o -> {
                    if (!o.applied()) {
                        throw new IllegalArgumentException("the cluster directory refused the key: " + o.answer());
                    }
                    return created(req.clientId(), role, k.key());
                });
    }

    private static ResponseEntity<Dto.ApiKeyResponse> created(String clientId, Role role, String key) {
        return ResponseEntity.status(HttpStatus.CREATED).body(new Dto.ApiKeyResponse(clientId, role.wire(), key,
                AuthStore.keyId(key)));
    }

    /** Every API key by its id (never the key), with the Ed25519 key its identity registered. */
    @Allow({Role.ADMIN})
    @GetMapping("/admin/api-keys")
    java.util.List<Dto.ApiKeyDto> apiKeys() {
        return auth.apiKeys().stream().map(k -> new Dto.ApiKeyDto(k.keyId(), k.clientId(), k.role().wire(),
                auth.clientKey(k.clientId()).map(Bytes::hex).orElse(null))).toList();
    }

    /** Revokes one API key; the identity's registered Ed25519 key stays (docs/API.md, Client keys). */
    @Allow({Role.ADMIN})
    @PostMapping("/admin/api-keys/revoke")
    Mono<Dto.ApiKeyDto> revoke(@RequestBody(required = false) Dto.RevokeKeyRequest body) {
        Dto.RevokeKeyRequest req = requests.body(body);
        if (req.keyId() == null || !req.keyId().matches("[0-9a-f]{16}")) {
            throw ApiException.malformed("keyId: 16 lowercase hex digits, as GET /v1/admin/api-keys lists them");
        }
        if (!directory.enabled()) {
            return Mono.just(dto(auth.revoke(req.keyId())));
        }
        AuthStore.ApiKeyInfo k = auth.apiKeys().stream().filter(i -> i.keyId().equals(req.keyId())).findFirst()
                .orElseThrow(() -> AuthStore.revokeRefusal("unknown_api_key", req.keyId()));
        return Mono.fromFuture(directory.submit(List.of(new DirectoryEntry.Revoke(req.keyId())))).map(o -> {
            if (!o.applied()) {
                throw AuthStore.revokeRefusal(o.answer(), req.keyId());
            }
            return dto(k);
        });
    }

    private Dto.ApiKeyDto dto(AuthStore.ApiKeyInfo k) {
        return new Dto.ApiKeyDto(k.keyId(), k.clientId(), k.role().wire(),
                auth.clientKey(k.clientId()).map(Bytes::hex).orElse(null));
    }
}
