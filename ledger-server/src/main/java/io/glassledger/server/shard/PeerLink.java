package io.glassledger.server.shard;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.glassledger.api.Dto;
import io.glassledger.api.PinnedTrustManager;
import io.glassledger.api.Wire;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.core.txn.TxState;
import io.glassledger.server.LedgerProperties;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * This shard's way to ask another shard of the cluster for a 2PC transaction's outcome: HTTPS to
 * {@code glassledger.cluster.peers[n]}, the peer's certificate pinned ({@code peer-pin}, or this server's own: a
 * cluster shares one), with the cluster's peer key (role {@code peer}). Nothing else is sent to peers.
 *
 * <p>Every method is thread-safe and non-blocking. A future fails with {@link Unreachable} when the peer cannot be
 * asked or gives no well-formed answer; the caller must then treat the outcome as unknown.
 */
@Component
public class PeerLink {
    private final LedgerProperties.Cluster cluster;
    private final ObjectMapper json;
    private final HttpClient http;
    /** Per shard, the replica that last answered (its leader, for a replicated shard). */
    private final java.util.Map<Integer, Integer> lastGood = new java.util.concurrent.ConcurrentHashMap<>();

    private final io.glassledger.server.directory.Directory directory;

    public PeerLink(LedgerProperties props, ObjectMapper json, Environment env,
                    io.glassledger.server.directory.Directory directory) {
        this.cluster = props.cluster();
        this.directory = directory;
        this.json = json;
        String pin = !cluster.peerPin().isBlank() ? cluster.peerPin() : env.getProperty("glassledger.tls.fingerprint");
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
                .version(HttpClient.Version.HTTP_1_1);
        if (pin != null && !pin.isBlank()) {
            b.sslContext(PinnedTrustManager.sslContext(pin));
        }
        this.http = b.build();
    }

    /** A peer could not be asked, or did not answer with a transaction state. */
    public static final class Unreachable extends RuntimeException {
        Unreachable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** {@code GET /v1/tx/{id}} at shard {@code n}: its state for the transaction, changing nothing there. */
    public CompletableFuture<TxState> status(int n, Bytes txId) {
        return send(n, "GET", "/v1/tx/" + txId.hex());
    }

    /**
     * {@code POST /v1/tx/{id}/resolve} at shard {@code n}, the transaction's primary: its recorded decision,
     * recording an abort first if it has none.
     */
    public CompletableFuture<TxState> resolve(int n, Bytes txId) {
        return send(n, "POST", "/v1/tx/" + txId.hex() + "/resolve");
    }

    private CompletableFuture<TxState> send(int n, String method, String path) {
        if (cluster.peers().size() <= n || cluster.peerKey().isBlank()) {
            return CompletableFuture.failedFuture(new Unreachable("no glassledger.cluster.peers / peer-key to reach "
                    + "shard " + n, null));
        }
        // The cluster directory's shard map when there is one (it follows replicas added and removed), else the
        // configured one.
        List<URI> replicas = directory.replicasOf(n).orElseGet(() -> cluster.peer(n));
        int first = Math.floorMod(lastGood.getOrDefault(n, 0), replicas.size());
        return attempt(n, replicas, first, 0, method, path, null);
    }

    /**
     * Asks replica {@code at} of shard {@code n}; a replica that does not answer, or is not the leader, passes the
     * question to the next (both questions are safe to repeat: a status read, and a resolve that returns the decision
     * recorded by the first). At most two rounds of the replicas.
     */
    private CompletableFuture<TxState> attempt(int n, List<URI> replicas, int at, int tries, String method,
                                               String path, Unreachable last) {
        if (tries >= 2 * replicas.size()) {
            return CompletableFuture.failedFuture(last);
        }
        URI uri = URI.create(replicas.get(at).toString() + path);
        HttpRequest req = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + cluster.peerKey())
                .header(Wire.SHARD_MAP_HEADER, Long.toString(cluster.mapVersion()))
                .header("Accept", "application/json")
                .method(method, HttpRequest.BodyPublishers.noBody()).build();
        return http.sendAsync(req, HttpResponse.BodyHandlers.ofByteArray()).handle((resp, err) -> {
            if (err != null) {
                throw new Unreachable("shard " + n + " did not answer " + method + " " + path + ": " + err, err);
            }
            if (resp.statusCode() != 200) {
                throw new Unreachable("shard " + n + " answered HTTP " + resp.statusCode() + " to " + method + " "
                        + path + ": " + new String(resp.body(), StandardCharsets.UTF_8), null);
            }
            try {
                TxState s = TxState.valueOf(json.readValue(resp.body(), Dto.TxStateDto.class).state());
                lastGood.put(n, at);
                return s;
            } catch (IOException | RuntimeException e) {
                throw new Unreachable("shard " + n + " answered " + method + " " + path
                        + " with no transaction state", e);
            }
        }).handle((s, err) -> {
            if (err == null) {
                return CompletableFuture.completedFuture(s);
            }
            Unreachable u = err instanceof Unreachable x ? x : err.getCause() instanceof Unreachable x ? x
                    : new Unreachable(err.toString(), err);
            if (replicas.size() == 1) {
                return CompletableFuture.<TxState>failedFuture(u);
            }
            return attempt(n, replicas, (at + 1) % replicas.size(), tries + 1, method, path, u);
        }).thenCompose(f -> f);
    }
}
