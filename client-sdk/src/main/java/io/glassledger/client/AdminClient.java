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
