package io.glassledger.api;

import java.util.List;

/**
 * Request and response bodies of the REST API, one record per body (docs/API.md). Byte strings are base64, hashes
 * and Ed25519 keys and signatures are hex; a null value means "absent" (never written, or deleted).
 */
public final class Dto {
    private Dto() {
    }

    /** A digest: block number and 32-byte root (FORMAT.md §8). */
    public record DigestDto(long block, String hash) {
    }

    /** A signed ledger head (FORMAT.md §16). */
    public record SignedHeadDto(int shard, long block, String hash, long timestamp, String serverKey,
                                String signature) {
    }

    /**
     * {@code GET /v1/info}. persistIntervalMillis: how often the shard persists a block (clients count a promise's
     * deadline in it); maxResponseBytes and maxProofItems: the response and proof-batch bounds. Each null from
     * servers that predate it.
     */
    public record ServerInfo(int shard, String serverKey, String format, long serverTimeMillis,
                             long maxKeyBytes, long maxValueBytes, long maxTransactionBytes, int maxKeysPerRequest,
                             Integer shards, Long mapVersion, Long persistIntervalMillis, Long maxResponseBytes,
                             Integer maxProofItems) {
    }

    /** {@code POST /v1/tx/begin}: what a transaction starts from. */
    public record BeginResponse(int shard, long serverTimeMillis, SignedHeadDto head) {
    }

    public record KeysRequest(List<String> keys, Long block, Long timestamp) {
    }

    /** value null: absent. version: the block that wrote it (0: never written). */
    public record ValueDto(String key, String value, long version) {
    }

    /** block null: the latest committed state, including committed writes not yet in a block. */
    public record ValuesResponse(List<ValueDto> items, Long block) {
    }

    /** A signed transaction record (FORMAT.md §14.2), base64. waitPersisted: delay 0, answer once its block is persisted. */
    public record CommitRequest(String record, Boolean waitPersisted) {
    }

    public record PrepareRequest(String record) {
    }

    /**
     * A commit's promise (GlassDB §3.3.3). block is 0 for a read-only transaction; served is the digest the shard
     * had when it acknowledged.
     */
    public record PromiseDto(String txId, int shard, long block, DigestDto served) {
    }

    /** state: PREPARED, COMMITTED, ABORTED or UNKNOWN; promise when committed and still remembered. */
    public record TxStateDto(String txId, String state, PromiseDto promise) {
    }

    public record HistoryRequest(String key, Integer limit) {
    }

    /** value null: a deletion. */
    public record VersionDto(long block, String value) {
    }

    /**
     * The key's last versions at {@code digest}, newest first, with a history proof (FORMAT.md §12) and the
     * server's signed head of {@code digest}. {@code limit} is the one the proof is for (the request's, or the
     * default), which its verification needs.
     */
    public record HistoryResponse(String key, int limit, List<VersionDto> versions, DigestDto digest, String proof,
                                  SignedHeadDto head) {
    }

    public record ScanRequest(String from, String to, Integer limit, Long block) {
    }

    public record ScanResponse(List<ValueDto> items, long block, boolean more) {
    }

    /** A claim: the key has value (null: absent) in the state of the proof's block. */
    public record ClaimDto(String key, String value) {
    }

    /** {@code POST /v1/proofs/keys}: block null for the latest persisted block (a current-value proof). */
    public record ProveKeysRequest(List<String> keys, Long block) {
    }

    /**
     * A keys proof (FORMAT.md §10) of {@code claims} in the state of {@code block}, against {@code digest}.
     * status PENDING (block not yet persisted; digest, claims and proof null) or READY. head: the server's signed
     * head of {@code digest} (on {@code /v1/proofs/keys}; null inside a batch, whose answer carries one head).
     */
    public record KeysProofDto(long block, String status, DigestDto digest, List<ClaimDto> claims, String proof,
                               SignedHeadDto head) {
    }

    public record AppendOnlyProofDto(DigestDto from, DigestDto to, String proof) {
    }

    /** One group of a proof batch: keys in the state of one block. */
    public record ProofItem(long block, List<String> keys) {
    }

    /**
     * {@code POST /v1/proofs/batch}: proofs of many blocks' keys (deferred verification) and append-only proofs
     * from the client's trusted block to every digest used. waitMillis: how long to wait for unpersisted blocks.
     */
    public record ProofBatchRequest(List<ProofItem> items, Long trustedBlock, Long waitMillis) {
    }

    public record ProofBatchResponse(List<KeysProofDto> proofs, List<AppendOnlyProofDto> appendOnly,
                                     SignedHeadDto head) {
    }

    /** A block for auditors: record (FORMAT.md §6.1), its signed transactions (§14.2), and its digest. */
    public record BlockDto(long number, long timestamp, String hash, String lowerRoot, String record,
                           List<String> transactions, DigestDto digest, String upperRoot) {
    }

    /**
     * {@code POST <auditor>/v1/audit}: what a client trusts about a shard (GlassDB's Audit(digest, block_no)); the
     * SDK's {@code AuditRequest} has this shape. {@code signedHead} may be null.
     */
    public record AuditRequest(int shard, long block, String hash, SignedHeadDto signedHead) {
    }

    /** A registered client key ({@code GET /v1/clients}). */
    public record ClientKeyDto(String clientId, String publicKey) {
    }

    /** {@code POST /v1/clients/key}: GlassDB's Init(pk) for the calling client identity. */
    public record RegisterKeyRequest(String publicKey) {
    }

    public record ClientDto(String clientId, String role, String publicKey) {
    }

    /** {@code POST /v1/admin/api-keys} (admin). */
    public record ApiKeyRequest(String clientId, String role) {
    }

    /**
     * A replica of a replicated shard's Raft group (docs/API.md "Replicas"): its peer id ({@code r<n>}), its Raft
     * address ({@code host:port}) and its HTTPS base URL. In answers, {@code role} is what it is to this replica's
     * knowledge (the leader, or a follower) and may be null.
     */
    public record ReplicaDto(String id, String raft, String url, String role) {
    }

    /** This replica's view of its shard's group. */
    public record ReplicasResponse(int shard, String self, String leader, long term, long commitIndex,
                                   java.util.List<ReplicaDto> replicas) {
    }

    /** One shard of the cluster directory's shard map: its replicas' base URLs. */
    public record ShardReplicasDto(int shard, java.util.List<String> replicas) {
    }

    /**
     * This member's view of the cluster directory: its member id, how many members and voters, its Raft role
     * ({@code LEADER}, {@code FOLLOWER}, {@code CANDIDATE}, {@code LISTENER}), the leader's member id (null when none
     * is known) and the last entry applied here.
     */
    public record DirectoryDto(String member, int members, int voters, String role, String leader,
                               long appliedIndex) {
    }

    /**
     * The cluster as this member knows it: the shard map's version and, from the cluster directory, each shard's
     * replicas (empty without a directory: then the configuration's map is the only one) and the directory's state
     * (null without one).
     */
    public record ClusterDto(long mapVersion, int shards, java.util.List<ShardReplicasDto> replicas,
                             DirectoryDto directory) {
    }

    /** Removes the replica with this peer id from the group. */
    public record RemoveReplicaRequest(String id) {
    }

    /** The new key (shown once) and the id it is listed and revoked by. */
    public record ApiKeyResponse(String clientId, String role, String apiKey, String keyId) {
    }

    /**
     * An API key as {@code GET /v1/admin/api-keys} lists it: never the key itself, only its id (the first 16 hex digits
     * of its SHA-256), its identity and role, and the Ed25519 key that identity registered (null if none yet).
     */
    public record ApiKeyDto(String keyId, String clientId, String role, String publicKey) {
    }

    /** {@code POST /v1/admin/api-keys/revoke} (admin). */
    public record RevokeKeyRequest(String keyId) {
    }
}
