package io.glassledger.benchmark;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One replicated shard's replicas seen over their HTTPS API with one API key, for the benchmarks that kill them:
 * which one leads, each one's signed head, and whether they all sign the same blocks. Every call is bounded (5 s per
 * request, the waits by their argument); none throws for a replica that is down.
 *
 * @param probeKey a key (base64) that this shard holds: a latest read of it is what only the leader answers (another
 *                 shard's key is refused as {@code wrong_shard} everywhere)
 */
record ShardReplicas(HttpClient http, String apiKey, List<URI> urls, String probeKey) {
    /** The outcome of {@link #compareSignedHeads}: the common head, how many blocks were compared, how many differ. */
    record Comparison(long head, long compared, long differing) {
    }

    ShardReplicas {
        urls = List.copyOf(urls);
    }

    int size() {
        return urls.size();
    }

    /** GET {@code path} at replica {@code r}; an answer other than 200 is an IOException. */
    String get(int r, String path) throws IOException, InterruptedException {
        HttpResponse<String> resp = http.send(HttpRequest.newBuilder(URI.create(urls.get(r) + path))
                .header("Authorization", "Bearer " + apiKey).timeout(Duration.ofSeconds(5)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (resp.statusCode() != 200) {
            throw new IOException(urls.get(r) + path + ": HTTP " + resp.statusCode());
        }
        return resp.body();
    }

    /** The block of replica {@code r}'s newest signed head, or -1 if it does not answer. */
    long headBlock(int r) {
        try {
            String b = get(r, "/v1/head");
            int i = b.indexOf("\"block\":");
            return Long.parseLong(b.substring(i + 8, b.indexOf(',', i)));
        } catch (IOException | RuntimeException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** Whether replica {@code r} answers a latest read: only a leader that takes requests does. */
    boolean answersLatestRead(int r) {
        try {
            HttpResponse<Void> resp = http.send(HttpRequest.newBuilder(URI.create(urls.get(r) + "/v1/get"))
                    .header("Authorization", "Bearer " + apiKey).header("Content-Type", "application/json")
                    .timeout(Duration.ofSeconds(5)).POST(HttpRequest.BodyPublishers.ofString(
                            "{\"keys\":[\"" + probeKey + "\"]}", StandardCharsets.UTF_8)).build(),
                    HttpResponse.BodyHandlers.discarding());
            return resp.statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The replica that answers a latest read now (one pass over them), or -1. */
    int leader() {
        for (int r = 0; r < urls.size(); r++) {
            if (answersLatestRead(r)) {
                return r;
            }
        }
        return -1;
    }

    /** {@link #leader()} polled every 50 ms until one answers, or -1 after {@code within}. */
    int awaitLeader(Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        do {
            int l = leader();
            if (l >= 0) {
                return l;
            }
            Thread.sleep(50);
        } while (System.nanoTime() < deadline);
        return -1;
    }

    /**
     * Waits (up to {@code within}) for every replica to reach the same head, then compares their signed heads, byte
     * for byte, at up to {@code sample} blocks spread evenly from block 1 to the head (every block if there are no
     * more). Null if the replicas did not reach one head in time.
     */
    Comparison compareSignedHeads(int sample, Duration within) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        long head = -1;
        while (System.nanoTime() < deadline) {
            long h0 = headBlock(0);
            boolean same = h0 > 0;
            for (int r = 1; r < urls.size() && same; r++) {
                same = headBlock(r) == h0;
            }
            if (same) {
                head = h0;
                break;
            }
            Thread.sleep(200);
        }
        if (head < 0) {
            return null;
        }
        List<Long> blocks = new ArrayList<>();
        if (head <= sample) {
            for (long b = 1; b <= head; b++) {
                blocks.add(b);
            }
        } else {
            for (int i = 0; i < sample; i++) {
                blocks.add(1 + (head - 1) * i / (sample - 1));
            }
        }
        long differing = 0;
        for (long b : blocks) {
            String h = get(0, "/v1/head?block=" + b);
            for (int r = 1; r < urls.size(); r++) {
                if (!h.equals(get(r, "/v1/head?block=" + b))) {
                    differing++;
                }
            }
        }
        return new Comparison(head, blocks.size(), differing);
    }
}
