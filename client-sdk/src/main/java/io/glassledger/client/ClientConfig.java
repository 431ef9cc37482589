package io.glassledger.client;

import io.glassledger.core.crypto.SigningKey;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
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
    private static final System.Logger LOG = System.getLogger(GlassLedgerClient.class.getName());

    private final URI url;
    private final String apiKey;
    private final SigningKey signingKey;
    private final Path keyFile;
    private final String pinnedCertSha256;
    private final Path stateFile;
    private final Duration verifyDelay;
    private final Duration proofWait;
    private final Duration requestTimeout;
    private final List<URI> auditors;
    private final Consumer<IntegrityViolation> violationHandler;
    private final int maxRetries;

    private ClientConfig(Builder b) {
        url = Objects.requireNonNull(b.url, "url");
        if (!"https".equalsIgnoreCase(url.getScheme()) || url.getHost() == null) {
            throw new IllegalArgumentException("url must be https://host[:port], got " + url);
        }
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
        violationHandler = Objects.requireNonNull(b.violationHandler, "violationHandler");
        if (b.maxRetries < 0) {
            throw new IllegalArgumentException("maxRetries must be non-negative");
        }
        maxRetries = b.maxRetries;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A SHA-256 fingerprint as 64 lowercase hex digits; accepts upper case and {@code AB:CD:...} (keytool's form). */
    public static String normalizeFingerprint(String fp) {
        String hex = fp.replace(":", "").trim().toLowerCase(java.util.Locale.ROOT);
        if (hex.length() != 64) {
            throw new IllegalArgumentException("a SHA-256 fingerprint is 64 hex digits, got " + hex.length());
        }
        HexFormat.of().parseHex(hex);
        return hex;
    }

    private static Duration nonNegative(String name, Duration d) {
        Objects.requireNonNull(d, name);
        if (d.isNegative()) {
            throw new IllegalArgumentException(name + " is negative");
        }
        return d;
    }

    /** The server, {@code https://host:port}. */
    public URI url() {
        return url;
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

    /** Hears of every {@link IntegrityViolation} once, in addition to the failed call or future. */
    public Consumer<IntegrityViolation> violationHandler() {
        return violationHandler;
    }

    /** Retries of {@link GlassLedgerClient#runTransaction} on {@code conflict} or {@code overloaded}. */
    public int maxRetries() {
        return maxRetries;
    }

    @Override
    public String toString() {
        return "ClientConfig[url=" + url + ", keyFile=" + keyFile + ", pinned=" + pinnedCertSha256 + ", stateFile="
                + stateFile + ", verifyDelay=" + verifyDelay + ", proofWait=" + proofWait + ", auditors=" + auditors
                + "]";
    }

    /** Builder; every setting but url, apiKey and one of signingKey/keyFile has a default. */
    public static final class Builder {
        private URI url;
        private String apiKey;
        private SigningKey signingKey;
        private Path keyFile;
        private String pinnedCertSha256;
        private Path stateFile;
        private Duration verifyDelay = DEFAULT_VERIFY_DELAY;
        private Duration proofWait = DEFAULT_PROOF_WAIT;
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
        private List<URI> auditors = List.of();
        private Consumer<IntegrityViolation> violationHandler = v -> LOG.log(System.Logger.Level.ERROR,
                "integrity violation: " + v.evidence().toMap(), v);
        private int maxRetries = DEFAULT_MAX_RETRIES;

        private Builder() {
        }

        public Builder url(URI v) {
            url = v;
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

        public Builder violationHandler(Consumer<IntegrityViolation> v) {
            violationHandler = v;
            return this;
        }

        public Builder maxRetries(int v) {
            maxRetries = v;
            return this;
        }

        public ClientConfig build() {
            return new ClientConfig(this);
        }
    }
}
