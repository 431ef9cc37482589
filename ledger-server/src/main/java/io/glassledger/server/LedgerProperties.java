package io.glassledger.server;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Settings under {@code glassledger.*} (application.yml, environment variables such as GLASSLEDGER_DATA_DIR, or
 * command-line {@code --glassledger.data-dir=...}).
 *
 * @param dataDir         ledger, WAL, keys and credentials
 * @param shard           this server's shard number
 * @param persistInterval GlassDB's persist interval: how often committed writes are sealed into a persisted block
 * @param maxUnpersistedWrites committed writes waiting to be persisted beyond which commits are refused with 503
 *                        {@code overloaded}
 * @param ledgerCache     the engine's cache of decoded tree nodes (on the heap)
 * @param batching        GlassDB's transaction batching (false: a block per transaction; a benchmark ablation)
 * @param storeRetryWindow how long a failing block write is retried before the engine gives up and liveness goes
 *                        DOWN (docs/ARCHITECTURE.md "Hostile connections and engine failure")
 * @param limits          request limits (docs/API.md "Limits")
 * @param cluster         the shard map and the peers (docs/ARCHITECTURE.md "Cluster")
 * @param replication     this shard's Raft group (docs/ARCHITECTURE.md "Replication"); none by default
 * @param directory       the cluster directory's Raft group: identities and the shard map, the same on every member
 *                        (docs/ARCHITECTURE.md "Cluster directory"); none by default
 * @param memberTls       mutual TLS between the cluster's members on every Raft port (docs/ARCHITECTURE.md "Trust
 *                        boundary")
 */
@Validated
@ConfigurationProperties("glassledger")
public record LedgerProperties(@NotNull @DefaultValue("data") Path dataDir,
                               @Min(0) @DefaultValue("0") int shard,
                               @NotNull @DefaultValue("100ms") Duration persistInterval,
                               @Min(1) @DefaultValue("20000") long maxUnpersistedWrites,
                               @NotNull @DefaultValue("512MB") org.springframework.util.unit.DataSize ledgerCache,
                               @DefaultValue("true") boolean batching,
                               @NotNull @DefaultValue("30s") Duration storeRetryWindow,
                               @Valid @NotNull @DefaultValue Limits limits,
                               @Valid @NotNull @DefaultValue Cluster cluster,
                               @Valid @NotNull @DefaultValue Replication replication,
                               @Valid @NotNull @DefaultValue Directory directory,
                               @Valid @NotNull @DefaultValue Auth auth,
                               @Valid @NotNull @DefaultValue MemberTls memberTls) {

    /**
     * Mutual TLS on the Raft ports (the shard's group and the cluster directory). A member presents the server's own
     * HTTPS certificate and key ({@code server.ssl.*}) and accepts a peer whose certificate is trusted here; a
     * connection without one is refused in the handshake.
     *
     * @param trust a PEM file of the certificates a member's certificate must be (or be issued by): the cluster's CA,
     *              or the members' certificates; empty: this server's own certificate, which a cluster's members share
     *              (the launcher, the image and the Helm chart give them one)
     */
    public record MemberTls(@NotNull @DefaultValue("") String trust) {
        public MemberTls {
            trust = trust.trim();
        }
    }

    /**
     * The API keys of the first-start identities, when configuration gives them (a container's mounted secret, e.g.
     * the file {@code /etc/glassledger/secrets/glassledger.auth.admin-key} through Spring Boot's config tree), so that
     * every member of a cluster starts with the same keys and whoever deploys it holds them. Read at the first start
     * only (the data directory has no API keys yet); afterwards keys change through the admin API. An identity whose
     * key is not given gets a random one, written to {@code credentials.txt}. Each key is at least 24 characters of
     * printable ASCII without spaces, and no two are the same.
     *
     * @param adminKey   the API key of {@code admin} (role admin) made at the first start, e.g. from a mounted secret file;
     *                   empty: a random one (in {@code credentials.txt})
     * @param clientKey  the API key of {@code default} (role client) made at the first start, e.g. from a mounted secret file;
     *                   empty: a random one (in {@code credentials.txt})
     * @param auditorKey the API key of {@code auditor} (role auditor) made at the first start, e.g. from a mounted secret file;
     *                   empty: a random one (in {@code credentials.txt})
     * @param serverKey  the shard's Ed25519 signing key (its 32-byte seed, 64 hex digits), which every replica of a
     *                   replicated shard must share (they sign one ledger); written to {@code <data>/server.key} at
     *                   the first start, and a data directory holding another key is refused; empty: the key in
     *                   {@code server.key}, made at random at the first start
     */
    public record Auth(@NotNull @DefaultValue("") String adminKey, @NotNull @DefaultValue("") String clientKey,
                       @NotNull @DefaultValue("") String auditorKey, @NotNull @DefaultValue("") String serverKey) {
        public Auth {
            adminKey = adminKey.strip();
            clientKey = clientKey.strip();
            auditorKey = auditorKey.strip();
            serverKey = serverKey.strip();
            if (!serverKey.isEmpty() && !serverKey.matches("[0-9a-fA-F]{64}")) {
                throw new IllegalArgumentException("glassledger.auth.server-key: the 32-byte Ed25519 seed as 64 hex "
                        + "digits (" + serverKey.length() + " characters given)");
            }
            java.util.Set<String> seen = new java.util.HashSet<>();
            String[][] named = {{"admin-key", adminKey}, {"client-key", clientKey}, {"auditor-key", auditorKey}};
            for (String[] n : named) {
                if (n[1].isEmpty()) {
                    continue;
                }
                if (n[1].length() < 24 || !n[1].matches("[\\x21-\\x7e]+")) {
                    // Never echo the key itself: it is a secret.
                    throw new IllegalArgumentException("glassledger.auth." + n[0] + ": at least 24 printable ASCII "
                            + "characters without spaces (" + n[1].length() + " given)");
                }
                if (!seen.add(n[1])) {
                    throw new IllegalArgumentException("glassledger.auth." + n[0] + " is the same as another "
                            + "first-start key: each identity needs its own");
                }
            }
        }

        /** The configured key of a first-start identity ({@code admin}, {@code default}, {@code auditor}), or "". */
        public String keyOf(String identity) {
            return switch (identity) {
                case "admin" -> adminKey;
                case "default" -> clientKey;
                case "auditor" -> auditorKey;
                default -> "";
            };
        }

        @Override
        public String toString() {
            return "Auth[adminKey=" + (adminKey.isEmpty() ? "" : "(set)") + ", clientKey="
                    + (clientKey.isEmpty() ? "" : "(set)") + ", auditorKey=" + (auditorKey.isEmpty() ? "" : "(set)")
                    + ", serverKey=" + (serverKey.isEmpty() ? "" : "(set)") + "]";
        }
    }

    /**
     * The cluster directory (docs/ARCHITECTURE.md "Cluster directory"): a Raft group of every member of the cluster
     * whose first {@code voters} members vote and whose others are listeners; its log holds API keys, roles, client
     * keys and the shard map.
     *
     * @param peers  every member's directory Raft address ({@code host:port}), in the same order on every member;
     *               empty: no directory (identities are this server's own). Needs
     *               {@code glassledger.cluster.peer-key}, which seals its entries
     * @param member this member's position in {@code peers}
     * @param voters how many of the first {@code peers} vote, an odd number (the others follow the log as
     *               listeners); read at the directory's first start only: afterwards its log holds the membership
     * @param listen the address this member binds for the directory's Raft when it differs from its {@code peers}
     *               entry; empty: that entry
     * @param self   this member's entry in {@code peers}, which then gives its position instead of {@code member}:
     *               where a member knows its own name but not its number (a Kubernetes pod:
     *               {@code $(POD_NAME).<headless service>:<port>}); empty: {@code member}
     */
    public record Directory(@NotNull @DefaultValue("") java.util.List<String> peers,
                            @Min(0) @DefaultValue("0") int member,
                            @Min(1) @Max(7) @DefaultValue("3") int voters,
                            @NotNull @DefaultValue("") String listen,
                            @NotNull @DefaultValue("") String self) {
        public Directory {
            peers = peers.stream().filter(u -> !u.isBlank()).map(String::trim).toList();
            listen = listen.trim();
            self = self.trim();
            if (!self.isEmpty()) {
                member = positionOf(self, peers, "glassledger.directory");
            }
            if (!peers.isEmpty() && member >= peers.size()) {
                throw new IllegalArgumentException("glassledger.directory.member (" + member + ") is not a position "
                        + "in glassledger.directory.peers (" + peers.size() + ")");
            }
            for (String a : peers) {
                if (!a.matches("[^:\\s]+:[0-9]{1,5}")) {
                    throw new IllegalArgumentException("glassledger.directory.peers: host:port, not " + a);
                }
            }
        }

        public boolean enabled() {
            return !peers.isEmpty();
        }

        /** The address this member binds for the directory's Raft. */
        public String bindAddress() {
            return listen.isEmpty() ? peers.get(member) : listen;
        }
    }

    /**
     * A shard replicated by a Raft group on Apache Ratis (docs/ARCHITECTURE.md "Replication").
     *
     * @param peers          the Raft addresses ({@code host:port}) of the shard's replicas, in replica order; empty:
     *                       a single replica with its own fsynced WAL, no Raft
     * @param urls           the replicas' HTTPS base URLs in the same order: a not-leader answer names the leader's
     * @param replica        this replica's position in {@code peers}; it listens for Raft on that address
     * @param electionTimeout the minimum election timeout (the maximum is twice it): how long followers wait for
     *                       the leader's heartbeat before electing another
     * @param commitTimeout  how long the leader waits for a majority to hold an entry before it gives up (its
     *                       requests then answer {@code outcome_unknown}, and the replica rejoins as a follower)
     * @param snapshotEvery  log entries between snapshots (a RocksDB checkpoint and the journal); the log is purged
     *                       behind each
     * @param logSegmentSize size of a Raft log segment: the log is purged by whole segments
     * @param snapshotMinInterval the least time between two snapshots, whatever {@code snapshotEvery} says: a replica
     *                       fetching one has at least twice this before its files are deleted
     * @param join           this replica is new to a running group: at its first start it waits, without
     *                       campaigning, for the leader to add it ({@code POST /v1/admin/replicas/add}); a new replica
     *                       that started as a member would stand for election and be told to shut down
     * @param listen         the address ({@code host:port}) this replica binds for Raft, when it differs from the
     *                       address the others reach it at (its entry in {@code peers}): behind a proxy or a NAT, or
     *                       binding every interface; empty: that entry
     * @param self           this replica's entry in {@code peers}, which then gives its position instead of
     *                       {@code replica} (a Kubernetes pod: {@code $(POD_NAME).<headless service>:<port>}); empty:
     *                       {@code replica}
     */
    public record Replication(@NotNull @DefaultValue("") java.util.List<String> peers,
                              @NotNull @DefaultValue("") java.util.List<java.net.URI> urls,
                              @Min(0) @Max(6) @DefaultValue("0") int replica,
                              @NotNull @DefaultValue("500ms") Duration electionTimeout,
                              @NotNull @DefaultValue("10s") Duration commitTimeout,
                              @Min(16) @DefaultValue("20000") long snapshotEvery,
                              @NotNull @DefaultValue("8MB") org.springframework.util.unit.DataSize logSegmentSize,
                              @NotNull @DefaultValue("30s") Duration snapshotMinInterval,
                              @DefaultValue("false") boolean join,
                              @NotNull @DefaultValue("") String listen,
                              @NotNull @DefaultValue("") String self) {
        public Replication {
            listen = listen.trim();
            self = self.trim();
            if (!listen.isEmpty() && !listen.matches("[^:\\s]+:[0-9]{1,5}")) {
                throw new IllegalArgumentException("glassledger.replication.listen: host:port, not " + listen);
            }
            peers = peers.stream().filter(u -> !u.isBlank()).map(String::trim).toList();  // "" binds as [""]
            if (!self.isEmpty()) {
                replica = positionOf(self, peers, "glassledger.replication");
            }
            urls = urls.stream().filter(u -> !u.toString().isBlank()).toList();
            if (!peers.isEmpty()) {
                if (peers.size() > 7) {
                    throw new IllegalArgumentException("glassledger.replication.peers: at most 7 replicas");
                }
                if (replica >= peers.size()) {
                    throw new IllegalArgumentException("glassledger.replication.replica (" + replica
                            + ") is not a position in glassledger.replication.peers (" + peers.size() + ")");
                }
                if (urls.size() != peers.size()) {
                    throw new IllegalArgumentException("glassledger.replication.urls must name every replica's "
                            + "HTTPS URL, in the order of glassledger.replication.peers");
                }
            }
        }

        public boolean enabled() {
            return !peers.isEmpty();
        }

        /** The address this replica binds for Raft. */
        public String bindAddress() {
            return listen.isEmpty() ? peers.get(replica) : listen;
        }
    }

    /** The directory of shard {@code shard}'s engine (ledger and WAL) inside the data directory. */
    public static Path shardDir(Path dataDir, int shard) {
        return dataDir.resolve("shard-" + shard);
    }

    /** The position of {@code self} in {@code peers} (names compared without regard to case, as DNS does). */
    static int positionOf(String self, java.util.List<String> peers, String prefix) {
        for (int i = 0; i < peers.size(); i++) {
            if (peers.get(i).equalsIgnoreCase(self)) {
                return i;
            }
        }
        throw new IllegalArgumentException(prefix + ".self (" + self + ") is not an entry of " + prefix + ".peers "
                + peers);
    }

    /**
     * @param shards         shards in the map; keys are placed by {@link io.glassledger.verify.shard.ShardMap}
     * @param mapVersion     the map's version: a request naming another is refused ({@code stale_shard_map})
     * @param peers          every shard's base URL, in shard order (empty: a single shard, no peers); a replicated
     *                       shard's replicas' URLs joined by {@code |}, so that its leader is found among them
     * @param peerKey        the secret peers present to each other (role {@code peer}); empty: none accepted
     * @param peerPin        SHA-256 of the peers' TLS certificate; empty: this server's own (a cluster shares one)
     * @param prepareTimeout a transaction prepared longer than this is resolved with its primary
     * @param resolveInterval how often prepared transactions are checked against the timeout
     */
    public record Cluster(@Min(1) @Max(1024) @DefaultValue("1") int shards,
                          @Min(1) @DefaultValue("1") long mapVersion,
                          @NotNull @DefaultValue("") java.util.List<String> peers,
                          @NotNull @DefaultValue("") String peerKey,
                          @NotNull @DefaultValue("") String peerPin,
                          @NotNull @DefaultValue("5s") Duration prepareTimeout,
                          @NotNull @DefaultValue("1s") Duration resolveInterval) {

        public Cluster {
            peers = peers.stream().filter(u -> !u.isBlank()).toList();  // the empty default binds as [""]
            for (String p : peers) {
                replicasOf(p);  // refuses a malformed URL at start
            }
        }

        /** The base URLs of shard {@code n}'s replicas (one for a shard that is not replicated). */
        public java.util.List<java.net.URI> peer(int n) {
            return replicasOf(peers.get(n));
        }

        private static java.util.List<java.net.URI> replicasOf(String entry) {
            java.util.List<java.net.URI> out = new java.util.ArrayList<>();
            for (String u : entry.split("\\|")) {
                java.net.URI uri = java.net.URI.create(u.trim().replaceAll("/+$", ""));
                if (!"https".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null) {
                    throw new IllegalArgumentException("glassledger.cluster.peers: not an https URL: " + u);
                }
                out.add(uri);
            }
            return java.util.List.copyOf(out);
        }

        public io.glassledger.verify.shard.ShardMap map() {
            return new io.glassledger.verify.shard.ShardMap(mapVersion, shards);
        }
    }

    /**
     * Request limits (docs/API.md "Limits"). The response bounds are in bytes of encoded JSON (base64 included) and
     * are charged before a response's bytes are made: {@code maxResponseBytes} per request (over it: 413
     * {@code response_too_large}), {@code maxResponseBytesInFlight} across all responses being made or sent (over
     * it: 503 {@code overloaded}). A response being serialised takes about twice its size on the heap (the strings and
     * the JSON buffer), so the in-flight bound times two must leave room in the server's heap (1 to 2 GiB by default,
     * of which the node cache takes up to {@code ledger-cache}).
     *
     * @param maxKeyBytes   bytes of a key (413 {@code too_large} beyond)
     * @param maxValueBytes bytes of a value
     * @param maxTransactionBytes bytes of an encoded transaction record; at least a value of {@code max-value-bytes}
     *                      with a key of {@code max-key-bytes} and the record's other fields (4 KiB), so that the
     *                      largest value commits
     * @param maxKeysPerRequest keys of one get or proof request; keys of all items of a proof batch together
     * @param maxHistory    versions one history request may ask for
     * @param maxScan       entries of one scan page
     * @param maxProofWait  how long a proof batch waits for a block still to be persisted
     * @param maxProofItems items of one proof batch (also bounds its distinct blocks and append-only proofs)
     * @param maxResponseBytes bytes of one response as encoded JSON (413 {@code response_too_large} beyond)
     * @param maxResponseBytesInFlight bytes of all responses being made or sent (503 {@code overloaded} beyond)
     */
    public record Limits(@Min(1) @Max(1024) @DefaultValue("1024") int maxKeyBytes,
                         @Min(1) @Max(1 << 20) @DefaultValue("1048576") int maxValueBytes,
                         @Min(256) @Max(64 << 20) @DefaultValue("2097152") int maxTransactionBytes,
                         @Min(1) @Max(100_000) @DefaultValue("10000") int maxKeysPerRequest,
                         @Min(1) @Max(100_000) @DefaultValue("1000") int maxHistory,
                         @Min(1) @Max(100_000) @DefaultValue("10000") int maxScan,
                         @NotNull @DefaultValue("10s") Duration maxProofWait,
                         @Min(1) @Max(10_000) @DefaultValue("256") int maxProofItems,
                         @Min(MIN_RESPONSE_BYTES) @Max(1L << 30) @DefaultValue("16777216") long maxResponseBytes,
                         @Min(MIN_RESPONSE_BYTES) @Max(1L << 34) @DefaultValue("134217728")
                         long maxResponseBytesInFlight) {
        /** Room for one largest value with its key, base64-encoded, and its proof: a single read always fits. */
        public static final long MIN_RESPONSE_BYTES = 4L << 20;
        /**
         * A transaction record's bytes beside one write's key and value (FORMAT.md §14: its length, version, id,
         * client key, shard, participants, reads and writes counts, the value's length, the signature), with room
         * for a few reads and participants.
         */
        public static final int RECORD_OVERHEAD_BYTES = 4096;

        public Limits {
            if ((long) maxTransactionBytes < (long) maxValueBytes + maxKeyBytes + RECORD_OVERHEAD_BYTES) {
                throw new IllegalArgumentException("glassledger.limits.max-transaction-bytes (" + maxTransactionBytes
                        + ") leaves no room for a value of max-value-bytes (" + maxValueBytes + ") with its key and "
                        + "the record around it: at least " + ((long) maxValueBytes + maxKeyBytes
                        + RECORD_OVERHEAD_BYTES));
            }
            if (maxResponseBytesInFlight < maxResponseBytes) {
                throw new IllegalArgumentException("glassledger.limits.max-response-bytes-in-flight ("
                        + maxResponseBytesInFlight + ") is below max-response-bytes (" + maxResponseBytes + ")");
            }
        }
    }
}
