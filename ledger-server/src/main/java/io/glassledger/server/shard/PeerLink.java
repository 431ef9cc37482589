package io.glassledger.server.shard;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.glassledger.api.Dto;
import io.glassledger.api.PinnedTrustManager;
import io.glassledger.api.Wire;
import io.glassledger.core.hash.Bytes;
import io.glassledger.core.txn.TxState;
import io.glassledger.server.LedgerProperties;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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

    public PeerLink(LedgerProperties props, ObjectMapper json, Environment env) {
        this.cluster = props.cluster();
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
        URI uri = URI.create(cluster.peers().get(n).toString().replaceAll("/+$", "") + path);
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
                return TxState.valueOf(json.readValue(resp.body(), Dto.TxStateDto.class).state());
            } catch (IOException | RuntimeException e) {
                throw new Unreachable("shard " + n + " answered " + method + " " + path
                        + " with no transaction state", e);
            }
        });
    }
}
