package io.glassledger.auditor;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.glassledger.api.Dto;
import io.glassledger.api.PinnedTrustManager;
import io.glassledger.api.Wire;
import io.glassledger.core.proof.SignedHead;
import jakarta.annotation.PreDestroy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * GlassDB's Gossip among auditors: every {@code gossip-interval} this auditor POSTs its latest verified signed head
 * of each shard to each peer ({@code /v1/gossip}), and checks what peers send against its own history
 * ({@link ShardAuditor#gossip}): two signed heads of one shard that are not on one linear history are a fork.
 */
@Component
class Gossip {
    /** The body of {@code POST /v1/gossip}. */
    record Message(String from, List<Dto.SignedHeadDto> heads) {
    }

    private static final Logger LOG = LoggerFactory.getLogger(Gossip.class);

    private final AuditService service;
    private final List<URI> peers;
    private final List<HttpClient> clients = new ArrayList<>();
    private final String self;
    private final ObjectMapper json;
    private final ScheduledExecutorService timer;
    private final Map<String, Long> lastHeard = new ConcurrentHashMap<>();

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
        }
        this.json = json;
        this.self = "auditor@" + env.getProperty("server.address", "127.0.0.1") + ":"
                + env.getProperty("server.port", "8480");
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "auditor-gossip");
            t.setDaemon(true);
            return t;
        });
        if (!peers.isEmpty()) {
            long every = props.gossipInterval().toMillis();
            timer.scheduleWithFixedDelay(this::round, every, every, TimeUnit.MILLISECONDS);
        }
    }

    Message heads() {
        List<Dto.SignedHeadDto> heads = new ArrayList<>();
        for (ShardAuditor a : service.shards()) {
            SignedHead h = a.lastHead();
            if (h != null) {
                heads.add(Wire.signedHead(h));
            }
        }
        return new Message(self, heads);
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
            HttpRequest req = HttpRequest.newBuilder(URI.create(peer.toString().replaceAll("/+$", "") + "/v1/gossip"))
                    .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
            clients.get(i).sendAsync(req, HttpResponse.BodyHandlers.ofByteArray()).thenAccept(resp -> {
                if (resp.statusCode() == 200) {
                    try {
                        receive(json.readValue(resp.body(), Message.class));  // the peer answers with its heads
                    } catch (Exception e) {
                        LOG.warn("unreadable gossip answer from {}: {}", peer, e.toString());
                    }
                }
            }).exceptionally(e -> {
                LOG.debug("gossip to {} failed: {}", peer, e.toString());
                return null;
            });
        }
    }

    /** Checks each head a peer sent; returns how many contradicted this auditor's history. */
    int receive(Message m) {
        int forks = 0;
        if (m == null || m.heads() == null) {
            return 0;
        }
        lastHeard.put(String.valueOf(m.from()), System.currentTimeMillis());
        for (Dto.SignedHeadDto d : m.heads()) {
            SignedHead h;
            try {
                h = Wire.signedHead("heads", d);
            } catch (Wire.BadWireException e) {
                continue;
            }
            if (h.shard() < 0 || h.shard() >= service.shards().size()) {
                continue;
            }
            if ("fork".equals(service.shards().get(h.shard()).gossip(h, String.valueOf(m.from())))) {
                forks++;
            }
        }
        return forks;
    }

    Map<String, Long> lastHeard() {
        return Map.copyOf(lastHeard);
    }

    @PreDestroy
    void close() {
        timer.shutdownNow();
    }
}
