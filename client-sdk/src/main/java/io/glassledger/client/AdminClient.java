package io.glassledger.client;

import io.glassledger.api.Dto;
import io.glassledger.api.PinnedTrustManager;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * The admin API of one server ({@code /v1/admin/*}, an {@code admin} API key): API keys for identities, listed by id
 * and revoked. Unlike {@link GlassLedgerClient} it registers no signing key and keeps no trusted state: it verifies
 * nothing, it only asks. Every call fails with {@link GlassLedgerException} as the client's do.
 */
public final class AdminClient implements AutoCloseable {
    private final Api api;

    private AdminClient(Api api) {
        this.api = api;
    }

    /** @param pinnedCertSha256 the server certificate's SHA-256 (hex), or null for the JDK's trust */
    public static AdminClient connect(URI url, String adminApiKey, String pinnedCertSha256, Duration timeout) {
        return new AdminClient(new Api(url, adminApiKey, pinnedCertSha256 == null ? null
                : PinnedTrustManager.sslContext(ClientConfig.normalizeFingerprint(pinnedCertSha256)), timeout,
                ClientConfig.DEFAULT_MAX_RESPONSE_BYTES));
    }

    /**
     * The admin API of a replicated shard: requests go to its leader among {@code replicas} (found and followed as
     * {@link GlassLedgerClient} does).
     */
    public static AdminClient connect(List<URI> replicas, String adminApiKey, String pinnedCertSha256,
                                      Duration timeout) {
        return new AdminClient(new Api(replicas, adminApiKey, pinnedCertSha256 == null ? null
                : PinnedTrustManager.sslContext(ClientConfig.normalizeFingerprint(pinnedCertSha256)), timeout,
                ClientConfig.DEFAULT_MAX_RESPONSE_BYTES));
    }

    /** The shard's Raft group as the answering replica knows it. */
    public Dto.ReplicasResponse replicas() {
        return Violations.join(api.get("/v1/admin/replicas", Dto.ReplicasResponse.class));
    }

    /**
     * Adds a replica (already started with the group and itself as its peers, and
     * {@code glassledger.replication.join=true}) to the group, at its leader.
     *
     * @param id      its peer id, {@code r<n>}
     * @param raft    its Raft address, {@code host:port}
     * @param url     its HTTPS base URL
     */
    public Dto.ReplicasResponse addReplica(String id, String raft, String url) {
        return Violations.join(api.post("/v1/admin/replicas/add", new Dto.ReplicaDto(id, raft, url, null),
                Dto.ReplicasResponse.class));
    }

    /** Removes the replica with peer id {@code id} from the group, at its leader. */
    public Dto.ReplicasResponse removeReplica(String id) {
        return Violations.join(api.post("/v1/admin/replicas/remove", new Dto.RemoveReplicaRequest(id),
                Dto.ReplicasResponse.class));
    }

    /** A new API key for {@code clientId} with {@code role} ({@code client}, {@code auditor} or {@code admin}). */
    public Dto.ApiKeyResponse createKey(String clientId, String role) {
        return Violations.join(api.post("/v1/admin/api-keys", new Dto.ApiKeyRequest(clientId, role),
                Dto.ApiKeyResponse.class));
    }

    /** Every API key by its id, with its identity, role and the identity's registered Ed25519 key. */
    public List<Dto.ApiKeyDto> listKeys() {
        return List.of(Violations.join(api.get("/v1/admin/api-keys", Dto.ApiKeyDto[].class)));
    }

    /** Revokes the API key with this id; the identity's registered Ed25519 key stays. */
    public Dto.ApiKeyDto revokeKey(String keyId) {
        return Violations.join(api.post("/v1/admin/api-keys/revoke", new Dto.RevokeKeyRequest(keyId),
                Dto.ApiKeyDto.class));
    }

    @Override
    public void close() {
        api.close();
    }
}
