package io.glassledger.benchmark;

import io.glassledger.client.CommitPromise;
import io.glassledger.client.GlassLedgerClient;
import io.glassledger.client.GlassLedgerException;
import io.glassledger.client.Txn;
import io.glassledger.client.VerifierStats;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * YCSB with transactions (GlassDB §5.3): every transaction has 10 operations on distinct keys. The fixed mixes put
 * their reads in one multi-get and buffer their writes; workloads X and Y (§4.1) draw each operation at random. A
 * {@code VerifiedGetLatest} is a read in the transaction, proven through the transaction's promise after the delay;
 * a {@code VerifiedPut} is a write, proven the same way; a {@code VerifiedGetHistory} is a proven read of the key at a
 * random block among the last 100 the client trusts (its proof includes the append-only proof to the client's
 * digest).
 */
final class Ycsb {
    static final int OPS = 10;

    /**
     * @param reads   reads per transaction of a fixed mix; -1 for a random mix
     * @param put     a random mix's share of VerifiedPut
     * @param history a random mix's share of VerifiedGetHistory (the rest are VerifiedGetLatest)
     */
    record Mix(String name, int reads, double put, double history) {
        static final List<Mix> ALL = List.of(new Mix("x", -1, 0.5, 0), new Mix("y", -1, 0.2, 0.4),
                new Mix("read-heavy", 8, 0, 0), new Mix("balanced", 5, 0, 0), new Mix("write-heavy", 2, 0, 0));

        static Mix named(String name) {
            return ALL.stream().filter(m -> m.name.equals(name)).findFirst().orElseThrow(() ->
                    new IllegalArgumentException("unknown workload " + name + "; one of "
                            + ALL.stream().map(Mix::name).toList()));
        }
    }

    /** {@code n} records: key i is the hex of SHA-256("user" || i) cut to {@code keyBytes}; values are random. */
    static final class KeySpace {
        final int keyBytes;
        final int valueBytes;
        private final byte[][] keys;

        KeySpace(int n, int keyBytes, int valueBytes) {
            this.keyBytes = keyBytes;
            this.valueBytes = valueBytes;
            keys = new byte[n][];
            try {
                MessageDigest sha = MessageDigest.getInstance("SHA-256");
                for (int i = 0; i < n; i++) {
                    String hex = HexFormat.of().formatHex(sha.digest(("user" + i).getBytes(StandardCharsets.UTF_8)));
                    StringBuilder k = new StringBuilder(hex);
                    while (k.length() < keyBytes) {
                        k.append(hex);
                    }
                    keys[i] = k.substring(0, keyBytes).getBytes(StandardCharsets.US_ASCII);
                }
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }

        int size() {
            return keys.length;
        }

        byte[] key(int i) {
            return keys[i];
        }

        byte[] value(SplittableRandom r) {
            byte[] v = new byte[valueBytes];
            r.nextBytes(v);
            return v;
        }
    }

    /** One measured window on a running cluster. {@code deferred} false: each commit waits for its proof (delay 0). */
    record Window(String sweep, String config, Mix mix, double zipf, int clients, long delayMs, boolean deferred,
                  double warmup, double seconds) {
    }

    /** The cluster a window runs against, for the result lines. */
    record ClusterSpec(int shards, long persistMs, boolean batching) {
    }

    /** What the window's client threads record; each thread owns its own lists. */
    static final class Load {
        volatile boolean measuring;
        volatile boolean stop;
        volatile Throwable error;
        /** Commits acknowledged at any time of the window, warm-up and drain included (a smoke's proof of life). */
        final java.util.concurrent.atomic.LongAdder anyCommitted = new java.util.concurrent.atomic.LongAdder();
        final List<Recorder> recorders = new java.util.concurrent.CopyOnWriteArrayList<>();
        final java.util.concurrent.ConcurrentLinkedQueue<CommitPromise> promises =
                new java.util.concurrent.ConcurrentLinkedQueue<>();
        final Latencies verify = new Latencies();
    }

    /** One client thread's counts and latencies (ns). */
    static final class Recorder {
        long committed;
        long conflicts;
        long overloaded;
        long readOnly;
        final Latencies tx = new Latencies();
        final Latencies read = new Latencies();
        final Latencies commit = new Latencies();
        final Latencies history = new Latencies();
    }

    /** A growable list of nanosecond samples; synchronized so that the verifier's callbacks can add too. */
    static final class Latencies {
        private long[] a = new long[1024];
        private int n;

        synchronized void add(long ns) {
            if (n == a.length) {
                a = java.util.Arrays.copyOf(a, n * 2);
            }
            a[n++] = ns;
        }

        synchronized long[] values() {
            return java.util.Arrays.copyOf(a, n);
        }

        static long[] merge(List<Latencies> ls) {
            return ls.stream().flatMapToLong(l -> java.util.Arrays.stream(l.values())).toArray();
        }
    }

    /** Loads every key, in transactions of about 512 KiB; waits until every promise verifies. */
    static void preload(GlassLedgerClient client, KeySpace ks) {
        int perTx = Math.max(1, Math.min(2000, (512 << 10) / (ks.keyBytes + ks.valueBytes + 8)));
        SplittableRandom r = new SplittableRandom(7);
        List<CompletableFuture<?>> ps = new ArrayList<>();
        for (int from = 0; from < ks.size(); from += perTx) {
            while (true) {
                try {
                    Txn tx = client.begin();
                    for (int i = from; i < Math.min(ks.size(), from + perTx); i++) {
                        tx.put(ks.key(i), ks.value(r));
                    }
                    ps.add(tx.commit().verification());
                    break;
                } catch (GlassLedgerException e) {
                    if (!e.retryable()) {
                        throw e;
                    }
                    LockSupport.parkNanos(50_000_000);
                }
            }
        }
        CompletableFuture.allOf(ps.toArray(CompletableFuture[]::new)).join();
    }

    /** Runs one window's load with {@code client} (made for it: its delay is the window's). */
    static Load run(GlassLedgerClient client, KeySpace ks, Window w) throws InterruptedException {
        Load load = new Load();
        ZipfSampler zipf = w.zipf() > 0 ? new ZipfSampler(ks.size(), w.zipf()) : null;
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < w.clients(); i++) {
            long seed = 1000L * (i + 1) + w.hashCode();
            Thread t = new Thread(() -> loop(client, ks, w, zipf, load, new SplittableRandom(seed)), "ycsb-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        Thread.sleep((long) (w.warmup() * 1000));
        load.measuring = true;
        Thread.sleep((long) (w.seconds() * 1000));
        load.measuring = false;
        load.stop = true;
        for (Thread t : threads) {
            t.join(120_000);
        }
        return load;
    }

    private static void loop(GlassLedgerClient client, KeySpace ks, Window w, ZipfSampler zipf, Load load,
                             SplittableRandom r) {
        Recorder rec = new Recorder();
        load.recorders.add(rec);
        int[] picks = new int[OPS];
        try {
            while (!load.stop) {
                for (int i = 0; i < OPS; ) {
                    int k = zipf == null ? r.nextInt(ks.size()) : zipf.next(r);
                    boolean dup = false;
                    for (int j = 0; j < i && !dup; j++) {
                        dup = picks[j] == k;
                    }
                    if (!dup) {
                        picks[i++] = k;
                    }
                }
                List<byte[]> reads = new ArrayList<>();
                List<Integer> writes = new ArrayList<>();
                List<Integer> histories = new ArrayList<>();
                for (int i = 0; i < OPS; i++) {
                    if (w.mix().reads() >= 0) {
                        if (i < w.mix().reads()) {
                            reads.add(ks.key(picks[i]));
                        } else {
                            writes.add(picks[i]);
                        }
                    } else {
                        double u = r.nextDouble();
                        if (u < w.mix().put()) {
                            writes.add(picks[i]);
                        } else if (u < w.mix().put() + w.mix().history()) {
                            histories.add(picks[i]);
                        } else {
                            reads.add(ks.key(picks[i]));
                        }
                    }
                }
                transaction(client, ks, w, load, rec, r, reads, writes, histories);
            }
        } catch (Throwable t) {
            load.error = t;
            load.stop = true;
        }
    }

    private static void transaction(GlassLedgerClient client, KeySpace ks, Window w, Load load, Recorder rec,
                                    SplittableRandom r, List<byte[]> reads, List<Integer> writes,
                                    List<Integer> histories) throws Exception {
        long t0 = System.nanoTime();
        List<CompletableFuture<byte[]>> hist = new ArrayList<>();
        List<Long> histStart = new ArrayList<>();
        for (int k : histories) {
            byte[] key = ks.key(k);
            long head = client.trustedState(client.shardOf(key)).digest().blockNo();
            long at = Math.max(1, head - r.nextInt(100));
            histStart.add(System.nanoTime());
            hist.add(client.getAsync(key, Math.min(at, head)));
        }
        while (!load.stop) {
            try {
                Txn tx = client.begin();
                if (!reads.isEmpty()) {
                    long r0 = System.nanoTime();
                    tx.getAll(reads);
                    if (load.measuring) {
                        rec.read.add(System.nanoTime() - r0);
                    }
                }
                for (int i : writes) {
                    tx.put(ks.key(i), ks.value(r));
                }
                long c0 = System.nanoTime();
                CommitPromise p = tx.commit();
                long c1 = System.nanoTime();
                load.anyCommitted.increment();
                if (load.measuring) {
                    rec.committed++;
                    if (writes.isEmpty()) {
                        rec.readOnly++;
                    }
                    rec.commit.add(c1 - c0);
                    load.promises.add(p);
                    if (w.deferred()) {
                        p.verification().whenComplete((v, e) -> {
                            if (e == null) {
                                load.verify.add(System.nanoTime() - c1);
                            }
                        });
                    }
                }
                break;
            } catch (GlassLedgerException e) {
                Refusal why = Refusal.of(e);
                if (load.measuring) {
                    if (why == Refusal.CONFLICT) {
                        rec.conflicts++;
                    } else {
                        rec.overloaded++;
                    }
                }
                if (why == Refusal.OVERLOADED) {
                    Refusal.backOff(r);
                }
            }
        }
        for (int i = 0; i < hist.size(); i++) {
            hist.get(i).get(60, TimeUnit.SECONDS);  // a failed proof throws: the run fails
            if (load.measuring) {
                rec.history.add(System.nanoTime() - histStart.get(i));
            }
        }
        if (load.measuring) {
            rec.tx.add(System.nanoTime() - t0);
        }
    }

    /** Waits for every promise of a window; returns {verified, failed, pending}. */
    static long[] settle(java.util.Collection<CommitPromise> promises, java.util.function.Consumer<String> log) {
        long verified = 0;
        long failed = 0;
        long pending = 0;
        long deadline = System.nanoTime() + 120_000_000_000L;
        for (CommitPromise p : promises) {
            try {
                p.verification().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                verified++;
            } catch (java.util.concurrent.TimeoutException e) {
                pending++;
            } catch (Exception e) {
                if (failed++ < 5) {
                    log.accept("promise " + p.txId().hex() + " failed verification: " + e.getCause());
                }
            }
        }
        return new long[] {verified, failed, pending};
    }

    static VerifierStats delta(VerifierStats a, VerifierStats b) {
        return new VerifierStats(b.batches() - a.batches(), b.proofs() - a.proofs(), b.proofBytes() - a.proofBytes(),
                b.claims() - a.claims(), b.appendOnlyBytes() - a.appendOnlyBytes(), b.overdue() - a.overdue(),
                b.overdueProven() - a.overdueProven());
    }

    private Ycsb() {
    }
}
