package io.glassledger.client;

import io.glassledger.verify.crypto.SigningKey;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * How a {@link GlassLedgerClient} connects and verifies. Immutable; built by {@link #builder()}, which validates.
 * {@code toString} never shows the API key or the signing key.
 */
public final class ClientConfig {
    public static final Duration DEFAULT_VERIFY_DELAY = Duration.ofMillis(100);
    public static final Duration DEFAULT_PROOF_WAIT = Duration.ofSeconds(2);
    public static final Duration MAX_PROOF_WAIT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);
    public static final int DEFAULT_MAX_RETRIES = 8;
    /** Persist intervals after the verify delay by which a promised block must be provable (see {@link #promiseDeadline}). */
    public static final int DEFAULT_PROMISE_DEADLINE_INTERVALS = 300;
    /** The persist interval assumed when neither the configuration nor the server states one. */
    public static final Duration DEFAULT_PERSIST_INTERVAL = Duration.ofSeconds(1);
    /** The longest persist interval a server may state: a server cannot put a broken promise off further than this. */
    public static final Duration MAX_PERSIST_INTERVAL = Duration.ofSeconds(10);
    /** Promises waiting for their check, per shard, beyond which {@code commit} is refused with {@code verifier_backlog}. */
    public static final int DEFAULT_MAX_UNVERIFIED_PROMISES = 65_536;
    /** The largest response body the client reads (docs/API.md, Limits: the server's own limits are far below it). */
    public static final long DEFAULT_MAX_RESPONSE_BYTES = 64L << 20;
    private static final System.Logger LOG = System.getLogger(GlassLedgerClient.class.getName());

    private final List<URI> shards;
    private final List<List<URI>> replicas;
    private final Long shardMapVersion;
    private final String apiKey;
    private final SigningKey signingKey;
    private final Path keyFile;
    private final String pinnedCertSha256;
    private final Path stateFile;
    private final Duration verifyDelay;
    private final Duration proofWait;
    private final Duration requestTimeout;
    private final List<URI> auditors;
    private final List<String> auditorPins;
    private final Duration auditInterval;
    private final Consumer<IntegrityViolation> violationHandler;
    private final Consumer<PromiseOverdue> overdueHandler;
    private final int maxRetries;
    private final int promiseDeadlineIntervals;
    private final Duration persistInterval;
    private final int maxUnverifiedPromises;
    private final long maxResponseBytes;

    private ClientConfig(Builder b) {
        if (b.shards == null || b.shards.isEmpty()) {
            throw new NullPointerException("url (or shards)");
        }
        shards = List.copyOf(b.shards);
        replicas = b.replicas != null ? b.replicas.stream().map(List::copyOf).toList()
                : shards.stream().map(List::of).toList();
        for (List<URI> rs : replicas) {
            if (rs.isEmpty()) {
                throw new IllegalArgumentException("a shard with no replica URL");
            }
            for (URI url : rs) {
                if (!"https".equalsIgnoreCase(url.getScheme()) || url.getHost() == null) {
                    throw new IllegalArgumentException("url must be https://host[:port], got " + url);
                }
            }
        }
        if (b.shardMapVersion != null && b.shardMapVersion < 1) {
            throw new IllegalArgumentException("shardMapVersion must be at least 1");
        }
        shardMapVersion = b.shardMapVersion;
        apiKey = Objects.requireNonNull(b.apiKey, "apiKey");
        if (apiKey.isBlank()) {
            throw new IllegalArgumentException("apiKey is empty");
        }
        if ((b.signingKey == null) == (b.keyFile == null)) {
            throw new IllegalArgumentException("give exactly one of signingKey and keyFile");
        }
        signingKey = b.signingKey;
        keyFile = b.keyFile;
        pinnedCertSha256 = b.pinnedCertSha256 == null ? null : normalizeFingerprint(b.pinnedCertSha256);
        stateFile = b.stateFile;
        verifyDelay = nonNegative("verifyDelay", b.verifyDelay);
        proofWait = nonNegative("proofWait", b.proofWait);
        if (proofWait.compareTo(MAX_PROOF_WAIT) > 0) {
            throw new IllegalArgumentException("proofWait is at most " + MAX_PROOF_WAIT);
        }
        requestTimeout = nonNegative("requestTimeout", b.requestTimeout);
        if (requestTimeout.isZero()) {
            throw new IllegalArgumentException("requestTimeout must be positive");
        }
        auditors = List.copyOf(b.auditors);
        for (URI a : auditors) {
            if (!"https".equals(a.getScheme())) {
                throw new IllegalArgumentException("auditor " + a + " is not https: an auditor's answer decides "
                        + "whether a fork is reported, so it must not be forgeable on the way");
            }
        }
        auditorPins = b.auditorPins.stream().map(ClientConfig::normalizeFingerprint).toList();
        if (!auditorPins.isEmpty() && auditorPins.size() != auditors.size()) {
            throw new IllegalArgumentException(auditorPins.size() + " auditor pins for " + auditors.size()
                    + " auditors (one per auditor, in the same order)");
        }
        auditInterval = nonNegative("auditInterval", b.auditInterval);
        violationHandler = Objects.requireNonNull(b.violationHandler, "violationHandler");
        overdueHandler = Objects.requireNonNull(b.overdueHandler, "overdueHandler");
        if (b.maxRetries < 0) {
            throw new IllegalArgumentException("maxRetries must be non-negative");
        }
        maxRetries = b.maxRetries;
        if (b.promiseDeadlineIntervals < 1) {
            throw new IllegalArgumentException("promiseDeadlineIntervals must be at least 1");
        }
        promiseDeadlineIntervals = b.promiseDeadlineIntervals;
        if (b.persistInterval != null && (b.persistInterval.isNegative() || b.persistInterval.isZero()
                || b.persistInterval.compareTo(MAX_PERSIST_INTERVAL) > 0)) {
            throw new IllegalArgumentException("persistInterval must be positive and at most " + MAX_PERSIST_INTERVAL);
        }
        persistInterval = b.persistInterval;
        if (b.maxUnverifiedPromises < 1) {
            throw new IllegalArgumentException("maxUnverifiedPromises must be at least 1");
        }
        maxUnverifiedPromises = b.maxUnverifiedPromises;
        if (b.maxResponseBytes < 1024) {
            throw new IllegalArgumentException("maxResponseBytes must be at least 1024");
        }
        maxResponseBytes = b.maxResponseBytes;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A SHA-256 fingerprint as 64 lowercase hex digits; accepts upper case and {@code AB:CD:...} (keytool's form). */
    public static String normalizeFingerprint(String fp) {
        return io.glassledger.api.PinnedTrustManager.normalizeFingerprint(fp);
    }

    private static Duration nonNegative(String name, Duration d) {
        Objects.requireNonNull(d, name);
        if (d.isNegative()) {
            throw new IllegalArgumentException(name + " is negative");
        }
        return d;
    }

    /** The server, {@code https://host:port}; in a cluster, shard 0's. */
    public URI url() {
        return shards.get(0);
    }

    /** Every shard's server in shard order: one for a single server (a replicated shard's first replica). */
    public List<URI> shards() {
        return shards;
    }

    /**
     * The replicas of {@code shard}: requests go to its leader, found and followed among these (one URL for a shard
     * that is not replicated).
     */
    public List<URI> replicas(int shard) {
        return replicas.get(shard);
    }

    /** The shard map version to route with; null: the cluster's, read from {@code /v1/info} at connect. */
    public Long shardMapVersion() {
        return shardMapVersion;
    }

    public String apiKey() {
        return apiKey;
    }

    /** The client's Ed25519 key, or null when it lives in {@link #keyFile()}. */
    public SigningKey signingKey() {
        return signingKey;
    }

    /** A file holding the 32-byte Ed25519 seed as hex (created with mode 600 if missing), or null. */
    public Path keyFile() {
        return keyFile;
    }

    /** Hex SHA-256 of the server's DER certificate, the only one accepted; null for the JDK's default trust. */
    public String pinnedCertSha256() {
        return pinnedCertSha256;
    }

    /** Where trust is kept across runs; null keeps it in memory only (a new client trusts on first use again). */
    public Path stateFile() {
        return stateFile;
    }

    /** Shard {@code shard}'s state file: {@link #stateFile()} itself for one shard, {@code <file>.shard-N} in a cluster. */
    public Path stateFile(int shard) {
        if (stateFile == null || shards.size() == 1) {
            return stateFile;
        }
        return stateFile.resolveSibling(stateFile.getFileName() + ".shard-" + shard);
    }

    /** How long after a commit is acknowledged its promise is checked; zero: commit returns once it verified. */
    public Duration verifyDelay() {
        return verifyDelay;
    }

    /** How long the server may wait for unpersisted blocks in a proof batch. */
    public Duration proofWait() {
        return proofWait;
    }

    public Duration requestTimeout() {
        return requestTimeout;
    }

    /** Auditors that receive this client's trusted state ({@link GlassLedgerClient#audit()}); may be empty. */
    public List<URI> auditors() {
        return auditors;
    }

    /** SHA-256 of each auditor's TLS certificate, in the order of {@link #auditors()}; empty: the JDK's trust. */
    public List<String> auditorPins() {
        return auditorPins;
    }

    /**
     * How often the client sends its trusted state to the auditors by itself (GlassDB: clients audit frequently);
     * zero (the default): only when the application calls {@link GlassLedgerClient#audit()}.
     */
    public Duration auditInterval() {
        return auditInterval;
    }

    /** Hears of every {@link IntegrityViolation} once, in addition to the failed call or future. */
    public Consumer<IntegrityViolation> violationHandler() {
        return violationHandler;
    }

    /**
     * Hears once of every promise that goes {@link PromiseOverdue overdue}: not proven by its deadline, with no
     * evidence against it either (the shard is unavailable, failing over, or withholding). Unlike a violation it
     * accuses no one; the promise stays in the verifier and is asked for again. The default logs a warning (at most
     * one every 10 s, with the count of the others).
     */
    public Consumer<PromiseOverdue> overdueHandler() {
        return overdueHandler;
    }

    /** Retries of {@link GlassLedgerClient#runTransaction} on {@code conflict} or {@code overloaded}. */
    public int maxRetries() {
        return maxRetries;
    }

    /**
     * How many persist intervals after its verify delay a promise may stay unprovable: past acknowledgement +
     * {@link #verifyDelay()} + this many persist intervals ({@link #persistInterval(Duration)}), a promise the shard
     * has not proven is {@link PromiseOverdue overdue} (reported to {@link #overdueHandler()}, and asked for again);
     * not a violation, which takes evidence.
     */
    public int promiseDeadlineIntervals() {
        return promiseDeadlineIntervals;
    }

    /**
     * The persist interval the promise deadline counts in; null (the default): the one the server states in
     * {@code /v1/info} ({@code persistIntervalMillis}, at most {@link #MAX_PERSIST_INTERVAL}), or
     * {@link #DEFAULT_PERSIST_INTERVAL} if it states none.
     */
    public Duration persistInterval() {
        return persistInterval;
    }

    /** The deadline of a promise, counted from its acknowledgement, given the persist interval in force. */
    public Duration promiseDeadline(Duration serverPersistInterval) {
        Duration interval = persistInterval != null ? persistInterval
                : serverPersistInterval == null || serverPersistInterval.isNegative() || serverPersistInterval.isZero()
                ? DEFAULT_PERSIST_INTERVAL
                : serverPersistInterval.compareTo(MAX_PERSIST_INTERVAL) > 0 ? MAX_PERSIST_INTERVAL
                : serverPersistInterval;
        return verifyDelay.plus(interval.multipliedBy(promiseDeadlineIntervals));
    }

    /**
     * Promises of one shard acknowledged and not yet checked, at most. A commit that would exceed it is refused
     * before anything is sent, with the retryable {@code verifier_backlog} ({@link GlassLedgerClient#runTransaction}
     * retries it with backoff): the verifier pushes back rather than holding unchecked promises without bound.
     */
    public int maxUnverifiedPromises() {
        return maxUnverifiedPromises;
    }

    /**
     * The largest response body the client reads; a longer one is refused while it arrives (not buffered whole)
     * with {@code response_too_large}.
     */
    public long maxResponseBytes() {
        return maxResponseBytes;
    }

    @Override
    public String toString() {
        return "ClientConfig[shards=" + shards + ", mapVersion=" + shardMapVersion + ", keyFile=" + keyFile + ", pinned=" + pinnedCertSha256 + ", stateFile="
                + stateFile + ", verifyDelay=" + verifyDelay + ", proofWait=" + proofWait + ", auditors=" + auditors
                + "]";
    }

    /**
     * The default overdue handler: a warning, at most one every 10 s with the count of those it left out (a shard
     * down for a minute under load makes thousands of promises overdue at once).
     */
    private static final class OverdueLog implements Consumer<PromiseOverdue> {
        private static final long EVERY_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        private final java.util.concurrent.atomic.AtomicLong next = new java.util.concurrent.atomic.AtomicLong(
                System.nanoTime());
        private final java.util.concurrent.atomic.AtomicLong quiet = new java.util.concurrent.atomic.AtomicLong();

        @Override
        public void accept(PromiseOverdue o) {
            long now = System.nanoTime();
            long n = next.get();
            if (now - n >= 0 && next.compareAndSet(n, now + EVERY_NANOS)) {
                long left = quiet.getAndSet(0);
                LOG.log(System.Logger.Level.WARNING, o.getMessage() + (left > 0 ? " (and " + left
                        + " more overdue promises since the last warning)" : ""));
            } else {
                quiet.incrementAndGet();
            }
        }
    }

    /** Builder; every setting but url, apiKey and one of signingKey/keyFile has a default. */
    public static final class Builder {
        private List<URI> shards;
        private List<List<URI>> replicas;
        private Long shardMapVersion;
        private String apiKey;
        private SigningKey signingKey;
        private Path keyFile;
        private String pinnedCertSha256;
        private Path stateFile;
        private Duration verifyDelay = DEFAULT_VERIFY_DELAY;
        private Duration proofWait = DEFAULT_PROOF_WAIT;
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
        private List<URI> auditors = List.of();
        private List<String> auditorPins = List.of();
        private Duration auditInterval = Duration.ZERO;
        private Consumer<IntegrityViolation> violationHandler = v -> LOG.log(System.Logger.Level.ERROR,
                "integrity violation: " + v.evidence().toMap(), v);
        private Consumer<PromiseOverdue> overdueHandler = new OverdueLog();
        private int maxRetries = DEFAULT_MAX_RETRIES;
        private int promiseDeadlineIntervals = DEFAULT_PROMISE_DEADLINE_INTERVALS;
        private Duration persistInterval;
        private int maxUnverifiedPromises = DEFAULT_MAX_UNVERIFIED_PROMISES;
        private long maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES;

        private Builder() {
        }

        public Builder url(URI v) {
            shards = v == null ? null : List.of(v);
            replicas = null;
            return this;
        }

        /** A cluster: every shard's server, in shard order (what {@code cluster.properties} lists). */
        public Builder shards(List<URI> v) {
            shards = v == null ? null : List.copyOf(v);
            replicas = null;
            return this;
        }

        /**
         * A cluster of replicated shards: per shard (in shard order) the URLs of its replicas. The client finds each
         * shard's leader among them and follows it when it changes.
         */
        public Builder replicas(List<List<URI>> v) {
            replicas = v == null ? null : v.stream().map(List::copyOf).toList();
            shards = replicas == null ? null : replicas.stream().map(r -> r.isEmpty() ? null : r.get(0)).toList();
            return this;
        }

        public Builder shardMapVersion(long v) {
            shardMapVersion = v;
            return this;
        }

        /**
         * Reads the shard URLs, the map version and the certificate pin from a cluster file written by
         * {@code ./glassledger cluster start} ({@code url.0=…}, {@code map-version=…}, {@code pin=…}).
         */
        public Builder clusterFile(Path file) {
            java.util.Properties p = new java.util.Properties();
            try (var in = java.nio.file.Files.newBufferedReader(file)) {
                p.load(in);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException("cannot read cluster file " + file, e);
            }
            int n = Integer.parseInt(p.getProperty("shards", "0").trim());
            if (n < 1) {
                throw new IllegalArgumentException(file + ": shards must be at least 1");
            }
            List<List<URI>> urls = new java.util.ArrayList<>();
            for (int i = 0; i < n; i++) {
                String u = p.getProperty("url." + i);
                if (u == null) {
                    throw new IllegalArgumentException(file + ": url." + i + " is missing");
                }
                // A replicated shard lists its replicas' URLs, separated by commas.
                List<URI> rs = new java.util.ArrayList<>();
                for (String one : u.split(",")) {
                    if (!one.isBlank()) {
                        rs.add(URI.create(one.trim()));
                    }
                }
                if (rs.isEmpty()) {
                    throw new IllegalArgumentException(file + ": url." + i + " is empty");
                }
                urls.add(rs);
            }
            replicas(urls);
            if (p.getProperty("map-version") != null) {
                shardMapVersion = Long.parseLong(p.getProperty("map-version").trim());
            }
            if (p.getProperty("pin") != null && pinnedCertSha256 == null) {
                pinnedCertSha256 = p.getProperty("pin").trim();
            }
            return this;
        }

        public Builder url(String v) {
            return url(URI.create(v));
        }

        public Builder apiKey(String v) {
            apiKey = v;
            return this;
        }

        public Builder signingKey(SigningKey v) {
            signingKey = v;
            return this;
        }

        public Builder keyFile(Path v) {
            keyFile = v;
            return this;
        }

        public Builder pinnedCertSha256(String v) {
            pinnedCertSha256 = v;
            return this;
        }

        public Builder stateFile(Path v) {
            stateFile = v;
            return this;
        }

        public Builder verifyDelay(Duration v) {
            verifyDelay = v;
            return this;
        }

        public Builder proofWait(Duration v) {
            proofWait = v;
            return this;
        }

        public Builder requestTimeout(Duration v) {
            requestTimeout = v;
            return this;
        }

        public Builder auditors(List<URI> v) {
            auditors = v;
            return this;
        }

        /** The auditors' certificate fingerprints, one per auditor in the same order (self-signed auditors). */
        public Builder auditorPins(List<String> v) {
            auditorPins = v;
            return this;
        }

        public Builder auditInterval(Duration v) {
            auditInterval = v;
            return this;
        }

        public Builder violationHandler(Consumer<IntegrityViolation> v) {
            violationHandler = v;
            return this;
        }

        /** See {@link ClientConfig#overdueHandler()}. */
        public Builder overdueHandler(Consumer<PromiseOverdue> v) {
            overdueHandler = v;
            return this;
        }

        public Builder maxRetries(int v) {
            maxRetries = v;
            return this;
        }

        /** See {@link ClientConfig#promiseDeadlineIntervals()}; at least 1. */
        public Builder promiseDeadlineIntervals(int v) {
            promiseDeadlineIntervals = v;
            return this;
        }

        /** See {@link ClientConfig#persistInterval()}; null: the server's. */
        public Builder persistInterval(Duration v) {
            persistInterval = v;
            return this;
        }

        /** See {@link ClientConfig#maxUnverifiedPromises()}; at least 1. */
        public Builder maxUnverifiedPromises(int v) {
            maxUnverifiedPromises = v;
            return this;
        }

        /** See {@link ClientConfig#maxResponseBytes()}; at least 1024. */
        public Builder maxResponseBytes(long v) {
            maxResponseBytes = v;
            return this;
        }

        public ClientConfig build() {
            return new ClientConfig(this);
        }
    }
}
