package io.glassledger.server.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.glassledger.client.CommitPromise;
import io.glassledger.client.GlassLedgerClient;
import io.glassledger.client.GlassLedgerException;
import io.glassledger.server.testing.Pacer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * A steady load of single-key commits through one client, for the replication tests: threads that each commit
 * {@code <prefix><thread>-<n>} = {@code v<n>-<tag>} one at a time until stopped or their time is up. What they saw is
 * kept: every acknowledged key and value, its promise, and every attempt with when it began and whether it was
 * acknowledged, so that a test can ask whether commits begun after some moment were acknowledged.
 */
final class CommitLoad {
    /** Acknowledged commits: key to value. */
    final Map<String, String> acked = new ConcurrentHashMap<>();
    final List<CommitPromise> promises = new CopyOnWriteArrayList<>();
    /** Every ended attempt: {begun, ended (nanoTime), 1 if acknowledged else 0}; published once ended. */
    final ConcurrentLinkedQueue<long[]> attempts = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<Thread> threads = new ArrayList<>();

    /**
     * Starts {@code threads} writers that each begin at most {@code perSecond} commits a second (0: as fast as they
     * are acknowledged; {@link Pacer}).
     *
     * @param tag in every value, so that a value read back is this run's (the test's seed)
     * @param bound the writers stop by themselves after this long, should the test never stop them
     */
    CommitLoad(GlassLedgerClient client, String prefix, int threads, int perSecond, String tag, Duration bound) {
        long until = System.nanoTime() + bound.toNanos();
        for (int t = 0; t < threads; t++) {
            String keys = prefix + t + "-";
            Thread th = new Thread(() -> run(client, keys, tag, until, new Pacer(perSecond)), "writer-" + keys);
            th.setDaemon(true);
            th.start();
            this.threads.add(th);
        }
    }

    private void run(GlassLedgerClient client, String keys, String tag, long until, Pacer pacer) {
        for (int n = 0; !stop.get() && System.nanoTime() < until; n++) {
            pacer.awaitSlot();
            String k = keys + n;
            String v = "v" + n + "-" + tag;
            long begun = System.nanoTime();
            long ok = 0;
            try {
                CommitPromise p = client.runTransaction(tx -> {
                    tx.put(k.getBytes(StandardCharsets.UTF_8), v.getBytes(StandardCharsets.UTF_8));
                    return null;
                }).promise();
                acked.put(k, v);
                promises.add(p);
                ok = 1;
            } catch (GlassLedgerException e) {
                // Refused or of unknown outcome: may be there or not. A replica that is no leader refuses at once;
                // the next attempt waits a little rather than spin.
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            } finally {
                attempts.add(new long[] {begun, System.nanoTime(), ok});
            }
        }
    }

    /** Attempts begun after {@code nanoTime} that ended. */
    List<long[]> begunAfter(long nanoTime) {
        return attempts.stream().filter(a -> a[0] > nanoTime).toList();
    }

    /** Commits begun after {@code nanoTime} and acknowledged. */
    long acknowledgedAfter(long nanoTime) {
        return attempts.stream().filter(a -> a[0] > nanoTime && a[2] == 1).count();
    }

    /** When the first commit begun after {@code nanoTime} was acknowledged. */
    long firstAcknowledgedAfter(long nanoTime) {
        return attempts.stream().filter(a -> a[0] > nanoTime && a[2] == 1).mapToLong(a -> a[1]).min().orElseThrow();
    }

    /** Attempts that ended unacknowledged: refused, or of unknown outcome. */
    long unacknowledged() {
        return attempts.stream().filter(a -> a[2] == 0).count();
    }

    /**
     * Reads back every acknowledged commit of {@code loads} through {@code client}, each read verified as {@link
     * GlassLedgerClient#get} verifies it, {@code 64} at a time (one by one, thousands of reads took a minute).
     */
    static void assertReadBack(GlassLedgerClient client, CommitLoad... loads) {
        List<Map.Entry<String, String>> all = new ArrayList<>();
        for (CommitLoad l : loads) {
            all.addAll(l.acked.entrySet());
        }
        for (int from = 0; from < all.size(); from += 64) {
            List<Map.Entry<String, String>> chunk = all.subList(from, Math.min(all.size(), from + 64));
            List<CompletableFuture<byte[]>> reads = chunk.stream()
                    .map(e -> client.getAsync(e.getKey().getBytes(StandardCharsets.UTF_8))).toList();
            for (int i = 0; i < chunk.size(); i++) {
                byte[] v = reads.get(i).orTimeout(2, TimeUnit.MINUTES).join();
                assertThat(v == null ? null : new String(v, StandardCharsets.UTF_8)).as(chunk.get(i).getKey())
                        .isEqualTo(chunk.get(i).getValue());
            }
        }
    }

    /** Stops the writers and waits for them (each ends with its commit in flight: at most a request's timeout). */
    void stop() throws InterruptedException {
        stop.set(true);
        for (Thread th : threads) {
            th.join(TimeUnit.MINUTES.toMillis(2));
        }
    }

    /** Stops the writers without waiting (for a test's {@code finally}). */
    void stopNow() {
        stop.set(true);
    }
}
