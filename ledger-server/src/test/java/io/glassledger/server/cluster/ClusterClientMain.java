package io.glassledger.server.cluster;

import io.glassledger.api.Dto;
import io.glassledger.api.PinnedTrustManager;
import io.glassledger.api.Wire;
import io.glassledger.client.ClientConfig;
import io.glassledger.client.GlassLedgerClient;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.TxnDraft;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * A bank client in its own JVM, for {@link ClusterIT} to kill with SIGKILL: it runs transfers through the SDK on
 * two threads and, in between, prepares transfers at every participant by hand and never decides them, printing
 * {@code PREPARED <txId>} once all participants voted yes. Each transfer also writes its marker key, so the test
 * finds afterwards which of this client's transfers committed.
 *
 * <p>Arguments: cluster file, API key, key file, accounts.
 */
public final class ClusterClientMain {
    private ClusterClientMain() {
    }

    public static void main(String[] args) throws Exception {
        Path clusterFile = Path.of(args[0]);
        String apiKey = args[1];
        SigningKey key = SigningKey.generate();
        int accounts = Integer.parseInt(args[3]);
        ClientConfig cfg = ClientConfig.builder().clusterFile(clusterFile).apiKey(apiKey).signingKey(key)
                .stateFile(Path.of(args[2])).build();
        try (GlassLedgerClient client = GlassLedgerClient.connect(cfg)) {
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                long seed = t;
                Thread th = new Thread(() -> transfers(client, accounts, seed), "bank-" + t);
                th.setDaemon(true);
                th.start();
                threads.add(th);
            }
            HttpClient http = HttpClient.newBuilder().sslContext(PinnedTrustManager.sslContext(
                    cfg.pinnedCertSha256())).version(HttpClient.Version.HTTP_1_1).build();
            SplittableRandom r = new SplittableRandom(99);
            while (true) {
                try {
                    prepareOnly(client, cfg, http, key, accounts, r);
                } catch (RuntimeException e) {
                    // a conflict with a transfer: try other accounts
                }
                Thread.sleep(200);
            }
        }
    }

    private static void transfers(GlassLedgerClient client, int accounts, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        while (true) {
            try {
                int a = r.nextInt(accounts);
                int b = (a + 1 + r.nextInt(accounts - 1)) % accounts;
                client.runTransaction(tx -> ClusterIT.transfer(tx, a, b, 1 + r.nextInt(5)));
            } catch (RuntimeException e) {
                // outcomes are checked from the ledger afterwards
            }
        }
    }

    /** Phase one of a transfer at every participant, by hand, and no decision: a coordinator that dies here. */
    private static void prepareOnly(GlassLedgerClient client, ClientConfig cfg, HttpClient http, SigningKey key,
                                    int accounts, SplittableRandom r) throws Exception {
        int a = r.nextInt(accounts);
        int b = (a + 1 + r.nextInt(accounts - 1)) % accounts;
        // What a transfer would send, with the versions read from the shards.
        TreeMap<Integer, TxnDraft> drafts = new TreeMap<>();
        Bytes id = client.begin().txId();
        Bytes ka = ClusterIT.account(a);
        Bytes kb = ClusterIT.account(b);
        Bytes marker = ClusterIT.marker(id);
        List<Bytes> written = List.of(ka, kb, marker);
        int primary = client.shardOf(written.stream().min(Bytes::compareTo).orElseThrow().toByteArray());
        List<Integer> participants = new ArrayList<>(List.of(primary));
        for (Bytes k : written) {
            int s = client.shardOf(k.toByteArray());
            if (!participants.contains(s)) {
                participants.add(s);
            }
        }
        if (participants.size() < 2) {
            return;
        }
        for (int s : participants) {
            drafts.put(s, new TxnDraft(key, s, participants, id));
        }
        for (Bytes k : List.of(ka, kb)) {
            Dto.ValuesResponse v = post(http, cfg, apiKey(cfg), client.shardOf(k.toByteArray()), "/v1/get",
                    "{\"keys\":[\"" + Wire.b64(k) + "\"]}", Dto.ValuesResponse.class);
            drafts.get(client.shardOf(k.toByteArray())).read(k, v.items().get(0).version());
            drafts.get(client.shardOf(k.toByteArray())).put(k, Bytes.of("0".getBytes(StandardCharsets.UTF_8)));
        }
        drafts.get(client.shardOf(marker.toByteArray())).put(marker, Bytes.of(("prepared-only " + a + " " + b)
                .getBytes(StandardCharsets.UTF_8)));
        for (int s : participants) {
            SignedTransaction stx = drafts.get(s).sign();
            post(http, cfg, apiKey(cfg), s, "/v1/tx/prepare", "{\"record\":\"" + Wire.b64(stx.record()) + "\"}",
                    Dto.TxStateDto.class);
        }
        System.out.println("PREPARED " + id.hex());
        System.out.flush();
    }

    private static String apiKey(ClientConfig cfg) {
        return cfg.apiKey();
    }

    private static <T> T post(HttpClient http, ClientConfig cfg, String apiKey, int shard, String path, String body,
                              Class<T> type) throws Exception {
        // A replicated shard: the replica that is its leader takes it (the others answer 421 not_leader).
        HttpResponse<byte[]> resp = null;
        for (URI base : cfg.replicas(shard)) {
            resp = http.send(HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + apiKey)
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            if (resp.statusCode() != 421) {
                break;
            }
        }
        if (resp.statusCode() != 200) {
            throw new IllegalStateException(path + " answered " + resp.statusCode() + ": "
                    + new String(resp.body(), StandardCharsets.UTF_8));
        }
        return new com.fasterxml.jackson.databind.ObjectMapper().readValue(resp.body(), type);
    }
}
