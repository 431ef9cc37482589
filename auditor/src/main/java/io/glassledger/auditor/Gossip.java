package io.glassledger.auditor;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.glassledger.api.PinnedTrustManager;
import io.glassledger.api.SignedGossip;
import io.glassledger.api.Wire;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.proof.SignedHead;
import io.glassledger.verify.proof.VerificationException;
import jakarta.annotation.PreDestroy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;

/**
 * GlassDB's Gossip among auditors: every {@code gossip-interval} this auditor POSTs its latest verified signed head
 * of each shard to each peer ({@code /v1/gossip}), and checks what peers send against its own history
 * ({@link ShardAuditor#gossip}): two signed heads of one shard that are not on one linear history are a fork.
 *
 * <p>Every message, and every answer, is signed by its sender's auditor key ({@link SignedGossip},
 * {@link AuditorKey}). A message is accepted only if its key is one of {@code peer-keys}, its signature holds, and it
 * was signed within {@code gossip-max-age}; anything else is refused before any of its heads is looked at. So the
 * state kept per peer is bounded by the configured peers, and a fork found through gossip carries the peer's signed
 * message as evidence. A message replayed within its age repeats what that peer said: every head in it is the shard's
 * own signature, so a replay can neither forge nor hide a fork.
 */
@Component
class Gossip {
    /** Gossip refused: the status and the problem code to answer with. */
    static final class Refused extends RuntimeException {
        final HttpStatus status;
        final String code;

        Refused(HttpStatus status, String code, String detail) {
            super(detail);
            this.status = status;
            this.code = code;
        }
    }

    /** Who reported a head through gossip: a configured peer, and the signed message that carried the head. */
    record Origin(String peer, String key, SignedGossip.Message message) {
    }

    private static final Logger LOG = LoggerFactory.getLogger(Gossip.class);

    private final AuditService service;
    private final List<URI> peers;
    private final List<Bytes> peerKeys = new ArrayList<>();
    private final List<HttpClient> clients = new ArrayList<>();
    private final String self;
    private final SigningKey key;
    private final Duration maxAge;
    private final ObjectMapper json;
    private final ScheduledExecutorService timer;
    /** Keyed by a configured peer's key only: as many entries as peers at most. */
    private final Map<Bytes, Long> lastHeard = new ConcurrentHashMap<>();

    Gossip(AuditService service, AuditorProperties props, ObjectMapper json,
           org.springframework.core.env.Environment env) {
        this.service = service;
        this.peers = props.peers();
        for (int i = 0; i < peers.size(); i++) {
            HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
            if (!props.peerPins().isEmpty()) {
                b.sslContext(PinnedTrustManager.sslContext(props.peerPins().get(i)));
            }
            clients.add(b.build());
            peerKeys.add(Bytes.fromHex(props.peerKeys().get(i)));
        }
        this.json = json;
        this.maxAge = props.gossipMaxAge();
        this.key = AuditorKey.loadOrCreate(props.dataDir());
        this.self = "auditor@" + env.getProperty("server.address", "127.0.0.1") + ":"
                + env.getProperty("server.port", "8480");
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "auditor-gossip");
            t.setDaemon(true);
            return t;
        });
        LOG.info("auditor gossip key (peers list it in glassledger.auditor.peer-keys): {}", key.publicKey().hex());
        if (!peers.isEmpty()) {
            long every = props.gossipInterval().toMillis();
            timer.scheduleWithFixedDelay(this::round, every, every, TimeUnit.MILLISECONDS);
        }
    }

    /** This auditor's public gossip key. */
    Bytes publicKey() {
        return key.publicKey();
    }

    /** This auditor's latest verified head of each shard, signed now. */
    SignedGossip.Message heads() {
        List<SignedHead> heads = new ArrayList<>();
        for (ShardAuditor a : service.shards()) {
            SignedHead h = a.lastHead();
            if (h != null) {
                heads.add(h);
            }
        }
        return SignedGossip.sign(key, self, System.currentTimeMillis(), heads);
    }

    private void round() {
        byte[] body;
        try {
            body = json.writeValueAsBytes(heads());
        } catch (Exception e) {
            return;
        }
        for (int i = 0; i < peers.size(); i++) {
            URI peer = peers.get(i);
            int index = i;
            HttpRequest req = HttpRequest.newBuilder(URI.create(peer.toString().replaceAll("/+$", "") + "/v1/gossip"))
                    .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
            clients.get(i).sendAsync(req, HttpResponse.BodyHandlers.ofByteArray()).thenAccept(resp -> {
                if (resp.statusCode() != 200) {
                    LOG.warn("gossip to {} refused: HTTP {} {}", peer, resp.statusCode(),
                            new String(resp.body(), java.nio.charset.StandardCharsets.UTF_8));
                    return;
                }
                try {
                    // The peer answers with its heads, signed by its own key: the key configured for it, no other.
                    SignedGossip.Message answer = json.readValue(resp.body(), SignedGossip.Message.class);
                    if (answer == null || !peerKeys.get(index).hex().equalsIgnoreCase(answer.key())) {
                        throw new Refused(HttpStatus.FORBIDDEN, "unknown_peer", "the answer is not signed by the "
                                + "key configured for " + peer);
                    }
                    receive(answer);
                } catch (Exception e) {
                    LOG.warn("gossip answer from {} not accepted: {}", peer, e.toString());
                }
            }).exceptionally(e -> {
                LOG.debug("gossip to {} failed: {}", peer, e.toString());
                return null;
            });
        }
    }

    /**
     * Authenticates a peer's message, then checks each head it sent; returns how many contradicted this auditor's
     * history.
     *
     * @throws Refused the message is malformed (400), unsigned or stale (401), or from no configured peer (403)
     */
    int receive(SignedGossip.Message m) {
        if (m == null) {
            throw new Refused(HttpStatus.BAD_REQUEST, "malformed", "expected a signed gossip message");
        }
        int index = m.key() == null ? -1 : indexOf(m.key());
        if (m.key() == null || m.signature() == null) {
            throw new Refused(HttpStatus.UNAUTHORIZED, "unauthenticated", "gossip must be signed by a peer's "
                    + "auditor key (fields key and signature)");
        }
        if (index < 0) {
            throw new Refused(HttpStatus.FORBIDDEN, "unknown_peer", "key " + abbreviate(m.key()) + " is not one of "
                    + "this auditor's peers (glassledger.auditor.peer-keys)");
        }
        if (m.heads() != null && m.heads().size() > service.shards().size()) {
            throw new Refused(HttpStatus.BAD_REQUEST, "malformed", "more heads than the " + service.shards().size()
                    + " shards audited here");
        }
        List<SignedHead> heads;
        try {
            heads = SignedGossip.verify(m);
        } catch (Wire.BadWireException e) {
            throw new Refused(HttpStatus.BAD_REQUEST, "malformed", e.getMessage());
        } catch (VerificationException e) {
            throw new Refused(HttpStatus.UNAUTHORIZED, "bad_gossip_signature", e.getMessage());
        }
        long age = System.currentTimeMillis() - m.sentAt();
        if (Math.abs(age) > maxAge.toMillis()) {
            throw new Refused(HttpStatus.UNAUTHORIZED, "stale_gossip", "signed " + age + " ms ago; accepted within "
                    + maxAge.toMillis() + " ms either way");
        }
        lastHeard.put(peerKeys.get(index), System.currentTimeMillis());
        Origin origin = new Origin(peers.get(index).toString(), peerKeys.get(index).hex(), m);
        int forks = 0;
        for (SignedHead h : heads) {
            if (h.shard() >= service.shards().size()) {
                continue;
            }
            if ("fork".equals(service.shards().get(h.shard()).gossip(h, origin))) {
                forks++;
            }
        }
        return forks;
    }

    private int indexOf(String hex) {
        for (int i = 0; i < peerKeys.size(); i++) {
            if (peerKeys.get(i).hex().equalsIgnoreCase(hex)) {
                return i;
            }
        }
        return -1;
    }

    private static String abbreviate(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "…";
    }

    /** Per configured peer (its URL): when a message signed by it was last accepted, or null if never. */
    Map<String, Long> lastHeard() {
        Map<String, Long> out = new LinkedHashMap<>();
        for (int i = 0; i < peers.size(); i++) {
            out.put(peers.get(i).toString(), lastHeard.get(peerKeys.get(i)));
        }
        return out;
    }

    @PreDestroy
    void close() {
        timer.shutdownNow();
    }
}
