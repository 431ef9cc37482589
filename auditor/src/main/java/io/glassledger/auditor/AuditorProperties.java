package io.glassledger.auditor;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings under {@code glassledger.auditor.*}.
 *
 * @param dataDir      the auditor's own ledgers (one RocksDB per shard), trusted state and violations
 * @param cluster      a cluster file ({@code cluster.properties}: shard URLs and certificate pin); or give
 *                     {@code shards} and {@code pin}
 * @param shards       every shard's URL in shard order
 * @param pin          SHA-256 of the shards' TLS certificate
 * @param pinCertificate instead of {@code pin}: the shards' certificate as a PEM file (e.g. the cluster's mounted
 *                     Kubernetes TLS secret's {@code tls.crt}); the pin is its first certificate's SHA-256
 * @param apiKey       an API key with role {@code auditor} (or admin) on every shard
 * @param pollInterval how often each shard's head is fetched
 * @param webhook      optional: every violation is POSTed here as JSON
 * @param peers        other auditors, which this one sends its latest signed heads to ({@code POST /v1/gossip});
 *                     HTTPS only
 * @param peerPins     SHA-256 of each peer's TLS certificate, in the order of {@code peers}; empty: the JDK's trust
 * @param peerKeys     each peer's Ed25519 gossip key (hex, its {@code <data>/auditor.key}'s public key, logged at its
 *                     start and shown in its {@code /v1/status}), in the order of {@code peers}; required with peers.
 *                     Gossip is accepted only when signed by one of these keys, and answers only when signed by the
 *                     key of the peer asked
 * @param gossipInterval how often this auditor sends its latest signed heads to each peer
 * @param gossipMaxAge gossip signed longer ago than this (or this far in the future) is refused
 * @param auditCatchUpInterval a client's audit beyond the audited block starts at most one catch-up per shard per
 *                     this interval (others wait for the one in flight, or are answered {@code pending})
 * @param maxConcurrentAudits audits answered at once; beyond, 503 {@code overloaded} with {@code Retry-After}
 * @param maxClientKeys the most client keys taken from a shard's {@code GET /v1/clients}
 * @param spotCheckEvery every this many rounds, one block verified earlier is fetched again and compared
 * @param clientKeys   optional: the client keys this auditor accepts, one {@code <hex public key> [client id]} per
 *                     line ({@code #} comments); unset: every key the shards list at {@code GET /v1/clients}. A shard
 *                     that registered a key of its own to sign writes with is caught only with this list.
 * @param replayWindow how far a transaction id's clock may be from its block's timestamp: at least the shards'
 *                     replay window (2 min) plus the longest delay from a commit to its block's seal. An id further
 *                     away, or one an earlier block carried, is a {@code replayed_transaction}; the auditor remembers
 *                     the ids of one window per shard.
 * @param maxSilence   a shard that no replica has answered for longer than this (since the last answer, or since the
 *                     start) makes the auditor's readiness DOWN and its status not {@code ok}: it is not being audited
 */
@ConfigurationProperties("glassledger.auditor")
public record AuditorProperties(@DefaultValue("auditor-data") Path dataDir, Path cluster,
                                @DefaultValue("") List<URI> shards, @DefaultValue("") String pin,
                                @DefaultValue("") String apiKey, @DefaultValue("500ms") Duration pollInterval,
                                URI webhook, @DefaultValue("") List<URI> peers,
                                @DefaultValue("") List<String> peerPins,
                                @DefaultValue("2s") Duration gossipInterval,
                                @DefaultValue("10") int spotCheckEvery, Path clientKeys,
                                @DefaultValue("") List<String> peerKeys,
                                @DefaultValue("2m") Duration gossipMaxAge,
                                @DefaultValue("1s") Duration auditCatchUpInterval,
                                @DefaultValue("16") int maxConcurrentAudits,
                                @DefaultValue("100000") int maxClientKeys,
                                @DefaultValue("3m") Duration replayWindow,
                                Path pinCertificate,
                                @DefaultValue("60s") Duration maxSilence) {
    public AuditorProperties {
        shards = shards.stream().filter(u -> !u.toString().isBlank()).toList();
        peers = peers.stream().filter(u -> !u.toString().isBlank()).toList();
        peerPins = peerPins.stream().filter(p -> !p.isBlank()).toList();
        peerKeys = peerKeys.stream().filter(k -> !k.isBlank()).map(String::strip).toList();
        for (URI u : peers) {
            if (!"https".equals(u.getScheme())) {
                throw new IllegalArgumentException("glassledger.auditor.peers: " + u + " is not https (an auditor's "
                        + "answers decide whether a fork is reported, so they travel over TLS)");
            }
        }
        if (!peerPins.isEmpty() && peerPins.size() != peers.size()) {
            throw new IllegalArgumentException("glassledger.auditor.peer-pins: " + peerPins.size() + " pins for "
                    + peers.size() + " peers (one per peer, in the same order)");
        }
        if (peerKeys.size() != peers.size()) {
            throw new IllegalArgumentException("glassledger.auditor.peer-keys: " + peerKeys.size() + " keys for "
                    + peers.size() + " peers (each peer's gossip key, in the order of peers: gossip is accepted only "
                    + "from them)");
        }
        for (String k : peerKeys) {
            if (!k.matches("[0-9a-fA-F]{64}")) {
                throw new IllegalArgumentException("glassledger.auditor.peer-keys: " + k + " is not a 32-byte "
                        + "Ed25519 public key in hex");
            }
        }
        if (maxSilence.isNegative() || maxSilence.isZero()) {
            throw new IllegalArgumentException("glassledger.auditor.max-silence must be positive, not " + maxSilence);
        }
        if (maxConcurrentAudits < 1 || maxClientKeys < 1) {
            throw new IllegalArgumentException("glassledger.auditor.max-concurrent-audits and max-client-keys must "
                    + "be positive");
        }
    }
}
