package io.glassledger.api;

import java.util.Map;
import java.util.Set;

/**
 * What the OpenAPI documents of the server and the auditor say about the bodies of {@link Dto} beyond their Java
 * types: wire patterns, ranges, enumerations, which request fields are required and which response fields may be
 * null. Kept as data here, beside the records, so that both services publish the same contract and the records
 * stay free of documentation annotations (the SDK shares them). Every response field is always present (the
 * services write nulls), so every response property is required; a field not listed as nullable is never null.
 */
public final class OpenApiShapes {
    /** Standard padded base64 (RFC 4648 §4), as {@link Wire#b64} writes it. */
    public static final String BASE64 = "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$";
    /** The same, not empty: keys, transaction records, proofs and block records. */
    public static final String BASE64_NONEMPTY =
            "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{4}|[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)$";
    public static final String HEX32 = "^[0-9a-f]{64}$";
    public static final String HEX16 = "^[0-9a-f]{32}$";
    public static final String SIGNATURE = "^[0-9a-f]{128}$";
    public static final String CLIENT_ID = "^[A-Za-z0-9._-]{1,64}$";
    /** An API key's id: the first 16 hex digits of its SHA-256. */
    public static final String KEY_ID = "^[0-9a-f]{16}$";

    /** A constraint on one property: a pattern (of the string, or of each item of an array), a minimum, an enum. */
    public record Rule(String pattern, Long minimum, java.util.List<String> values) {
        static Rule pattern(String p) {
            return new Rule(p, null, null);
        }

        static Rule min(long m) {
            return new Rule(null, m, null);
        }

        static Rule oneOf(String... v) {
            return new Rule(null, null, java.util.List.of(v));
        }
    }

    /** Request bodies: the properties the server refuses to go without. */
    public static final Map<String, Set<String>> REQUIRED_IN_REQUESTS = Map.ofEntries(
            Map.entry("KeysRequest", Set.of("keys")),
            Map.entry("CommitRequest", Set.of("record")),
            Map.entry("PrepareRequest", Set.of("record")),
            Map.entry("HistoryRequest", Set.of("key")),
            Map.entry("ScanRequest", Set.of()),
            Map.entry("ProveKeysRequest", Set.of("keys")),
            Map.entry("ProofItem", Set.of("block", "keys")),
            Map.entry("ProofBatchRequest", Set.of("items")),
            Map.entry("RegisterKeyRequest", Set.of("publicKey")),
            Map.entry("ApiKeyRequest", Set.of("clientId", "role")),
            Map.entry("RevokeKeyRequest", Set.of("keyId")),
            Map.entry("AuditRequest", Set.of("shard", "block", "hash")));

    /** Response bodies (every property required) and the properties that may be null. */
    public static final Map<String, Set<String>> NULLABLE_IN_RESPONSES = Map.ofEntries(
            Map.entry("DigestDto", Set.of()),
            Map.entry("SignedHeadDto", Set.of()),
            Map.entry("ServerInfo", Set.of("shards", "mapVersion")),
            Map.entry("BeginResponse", Set.of()),
            Map.entry("ValueDto", Set.of("value")),
            Map.entry("ValuesResponse", Set.of("block")),
            Map.entry("PromiseDto", Set.of()),
            Map.entry("TxStateDto", Set.of("promise")),
            Map.entry("VersionDto", Set.of("value")),
            Map.entry("HistoryResponse", Set.of()),
            Map.entry("ScanResponse", Set.of()),
            Map.entry("ClaimDto", Set.of("value")),
            Map.entry("KeysProofDto", Set.of("digest", "claims", "proof", "head")),
            Map.entry("AppendOnlyProofDto", Set.of("proof")),
            Map.entry("ProofBatchResponse", Set.of()),
            Map.entry("BlockDto", Set.of()),
            Map.entry("ClientKeyDto", Set.of()),
            Map.entry("ClientDto", Set.of("role")),
            Map.entry("ApiKeyResponse", Set.of()),
            Map.entry("ApiKeyDto", Set.of("publicKey")),
            Map.entry("ClusterDto", Set.of("directory")),
            Map.entry("DirectoryDto", Set.of("leader")),
            Map.entry("ShardReplicasDto", Set.of()));

    /** Nullable properties of request bodies (absent or null mean the same). */
    public static final Map<String, Set<String>> NULLABLE_IN_REQUESTS = Map.of("AuditRequest", Set.of("signedHead"));

    /** {@code Schema.property} to its rule. */
    public static final Map<String, Rule> RULES = Map.ofEntries(
            Map.entry("DigestDto.block", Rule.min(0)),
            Map.entry("DigestDto.hash", Rule.pattern(HEX32)),
            Map.entry("SignedHeadDto.shard", Rule.min(0)),
            Map.entry("SignedHeadDto.block", Rule.min(0)),
            Map.entry("SignedHeadDto.hash", Rule.pattern(HEX32)),
            Map.entry("SignedHeadDto.serverKey", Rule.pattern(HEX32)),
            Map.entry("SignedHeadDto.signature", Rule.pattern(SIGNATURE)),
            Map.entry("ServerInfo.shard", Rule.min(0)),
            Map.entry("ServerInfo.serverKey", Rule.pattern(HEX32)),
            Map.entry("KeysRequest.keys", Rule.pattern(BASE64_NONEMPTY)),
            Map.entry("KeysRequest.block", Rule.min(0)),
            Map.entry("KeysRequest.timestamp", Rule.min(0)),
            Map.entry("ValueDto.key", Rule.pattern(BASE64_NONEMPTY)),
            Map.entry("ValueDto.value", Rule.pattern(BASE64)),
            Map.entry("ValueDto.version", Rule.min(0)),
            Map.entry("ValuesResponse.block", Rule.min(0)),
            Map.entry("CommitRequest.record", Rule.pattern(BASE64_NONEMPTY)),
            Map.entry("PrepareRequest.record", Rule.pattern(BASE64_NONEMPTY)),
            Map.entry("PromiseDto.txId", Rule.pattern(HEX16)),
            Map.entry("PromiseDto.shard", Rule.min(0)),
            Map.entry("PromiseDto.block", Rule.min(0)),
            Map.entry("TxStateDto.txId", Rule.pattern(HEX16)),
            Map.entry("TxStateDto.state", Rule.oneOf("PREPARED", "COMMITTED", "ABORTED", "UNKNOWN")),
            Map.entry("HistoryRequest.key", Rule.pattern(BASE64_NONEMPTY)),
            Map.entry("HistoryRequest.limit", Rule.min(1)),
            Map.entry("VersionDto.block", Rule.min(0)),
            Map.entry("VersionDto.value", Rule.pattern(BASE64)),
            Map.entry("HistoryResponse.key", Rule.pattern(BASE64_NONEMPTY)),
            Map.entry("HistoryResponse.limit", Rule.min(1)),
            Map.entry("HistoryResponse.proof", Rule.pattern(BASE64_NONEMPTY)),
            Map.entry("ScanRequest.from", Rule.pattern(BASE64_NONEMPTY)),
            Map.entry("ScanRequest.to", Rule.pattern(BASE64_NONEMPTY)),
            Map.entry("ScanRequest.limit", Rule.min(1)),
            Map.entry("ScanRequest.block", Rule.min(0)),
            Map.entry("ScanResponse.block", Rule.min(0)),
            Map.entry("ClaimDto.key", Rule.pattern(BASE64_NONEMPTY)),
            Map.entry("ClaimDto.value", Rule.pattern(BASE64)),
            Map.entry("ProveKeysRequest.keys", Rule.pattern(BASE64_NONEMPTY)),
            Map.entry("ProveKeysRequest.block", Rule.min(0)),
            Map.entry("KeysProofDto.block", Rule.min(0)),
            Map.entry("KeysProofDto.status", Rule.oneOf("READY", "PENDING")),
            Map.entry("KeysProofDto.proof", Rule.pattern(BASE64_NONEMPTY)),
            Map.entry("AppendOnlyProofDto.proof", Rule.pattern(BASE64_NONEMPTY)),
            Map.entry("ProofItem.block", Rule.min(0)),
            Map.entry("ProofItem.keys", Rule.pattern(BASE64_NONEMPTY)),
            Map.entry("ProofBatchRequest.trustedBlock", Rule.min(0)),
            Map.entry("ProofBatchRequest.waitMillis", Rule.min(0)),
            Map.entry("BlockDto.number", Rule.min(0)),
            Map.entry("BlockDto.hash", Rule.pattern(HEX32)),
            Map.entry("BlockDto.lowerRoot", Rule.pattern(HEX32)),
            Map.entry("BlockDto.upperRoot", Rule.pattern(HEX32)),
            Map.entry("BlockDto.record", Rule.pattern(BASE64_NONEMPTY)),
            Map.entry("BlockDto.transactions", Rule.pattern(BASE64_NONEMPTY)),
            Map.entry("AuditRequest.shard", Rule.min(0)),
            Map.entry("AuditRequest.block", Rule.min(0)),
            Map.entry("AuditRequest.hash", Rule.pattern(HEX32)),
            Map.entry("ClientKeyDto.clientId", Rule.pattern(CLIENT_ID)),
            Map.entry("ClientKeyDto.publicKey", Rule.pattern(HEX32)),
            Map.entry("RegisterKeyRequest.publicKey", Rule.pattern(HEX32)),
            Map.entry("ClientDto.publicKey", Rule.pattern(HEX32)),
            Map.entry("ClientDto.role", Rule.oneOf("client", "auditor", "admin", "peer")),
            Map.entry("ApiKeyRequest.clientId", Rule.pattern(CLIENT_ID)),
            Map.entry("ApiKeyRequest.role", Rule.oneOf("client", "auditor", "admin", "peer")),
            Map.entry("ApiKeyResponse.clientId", Rule.pattern(CLIENT_ID)),
            Map.entry("ApiKeyResponse.role", Rule.oneOf("client", "auditor", "admin", "peer")),
            Map.entry("ApiKeyResponse.keyId", Rule.pattern(KEY_ID)),
            Map.entry("ApiKeyDto.keyId", Rule.pattern(KEY_ID)),
            Map.entry("ApiKeyDto.clientId", Rule.pattern(CLIENT_ID)),
            Map.entry("ApiKeyDto.role", Rule.oneOf("client", "auditor", "admin", "peer")),
            Map.entry("ApiKeyDto.publicKey", Rule.pattern(HEX32)),
            Map.entry("RevokeKeyRequest.keyId", Rule.pattern(KEY_ID)));

    private OpenApiShapes() {
    }
}
