package io.glassledger.benchmark;

import io.glassledger.client.CommitPromise;
import io.glassledger.client.GlassLedgerClient;
import io.glassledger.client.GlassLedgerException;
import io.glassledger.client.IntegrityViolation;
import io.glassledger.client.Txn;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The failover benchmark's writers: threads sharing one SDK client, each committing, as fast as the cluster takes
 * them, transactions that write keys nobody else writes, each key once: a single-shard transaction writes one key,
 * a cross-shard one (two-phase commit) one key on each of two shards. Every write whose commit returned a promise is
 * <em>acknowledged</em> and remembered (key and value); a commit that failed in any way, its outcome unknown
 * included, is not, and its keys are never written again. After the load: every acknowledged promise's check, and
 * every acknowledged key read back with a verified read.
 */
final class FailoverLoad {
    /**
     * Refusals and failures a writer expects while members are killed: counted by code, backed off from, and the
     * next transaction (new keys) tried. Any other code is {@link #unexpected}, counted and logged, and the load goes
     * on too.
     */
    static final Set<String> EXPECTED = Set.of("not_leader", "unavailable", "outcome_unknown", "incomplete",
            GlassLedgerException.TRANSPORT, "overloaded", "conflict", GlassLedgerException.ABORTED,
            GlassLedgerException.VERIFIER_BACKLOG, "replica_behind", "primary_unreachable", "undecided");
    private static final int SAMPLES = 10;

    /**
     * The promises' checks once the load stopped: verified, failed with a violation, failed otherwise, not done; and
     * how many of the promises say they went overdue ({@link CommitPromise#overdue()}).
     */
    record Verification(long verified, long violated, long failed, long pending, long overdue) {
        long unverified() {
            return violated + failed + pending;
        }
    }

    /** The read-back of every acknowledged key: absent, another value, or not readable (each counts as lost). */
    record ReadBack(long checked, long missing, long wrong, long unread) {
        long lost() {
            return missing + wrong + unread;
        }
    }

    private final GlassLedgerClient client;
    private final String prefix;
    private final double crossShare;
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stop;
    private volatile boolean paused;
    private final ConcurrentHashMap<String, String> acknowledged = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<CommitPromise> promises = new ConcurrentLinkedQueue<>();
    final AtomicLong acked = new AtomicLong();
    final AtomicLong crossShard = new AtomicLong();
    /** Commits that threw an {@link IntegrityViolation} (the client's handler hears of each one too). */
    final AtomicLong violationsThrown = new AtomicLong();
    final AtomicLong unexpected = new AtomicLong();
    final Map<String, LongAdder> refusals = new ConcurrentHashMap<>();
    private final List<String> samples = new CopyOnWriteArrayList<>();

    /**
     * @param prefix     of every key written (unique to the run)
     * @param crossShare the share of transactions that span two shards (0 with one shard)
     */
    FailoverLoad(GlassLedgerClient client, String prefix, double crossShare) {
        this.client = client;
        this.prefix = prefix;
        this.crossShare = client.shards() > 1 ? crossShare : 0;
    }

    void start(int writers, long seed) {
        SplittableRandom seeds = new SplittableRandom(seed);
        for (int w = 0; w < writers; w++) {
            int id = w;
            SplittableRandom r = seeds.split();
            Thread t = new Thread(() -> write(id, r), "failover-writer-" + w);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    /** Stops the writers and waits for them (each may be inside a commit, itself bounded by the request timeout). */
    boolean stop(Duration within) throws InterruptedException {
        stop = true;
        long deadline = System.nanoTime() + within.toNanos();
        for (Thread t : threads) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
        return threads.stream().noneMatch(Thread::isAlive);
    }

    /**
     * Holds the writers before their next transaction (a commit under way completes): while killed members' JVMs
     * start, which on 2 cores otherwise compete with the survivors serving the load and take minutes.
     */
    void pause() {
        paused = true;
    }

    void resume() {
        paused = false;
    }

    long acknowledgedKeys() {
        return acknowledged.size();
    }

    /** Up to ten unexpected errors, as {@code code: message}. */
    List<String> samples() {
        return List.copyOf(samples);
    }

    private void write(int w, SplittableRandom r) {
        long seq = 0;
        int failures = 0;
        byte[] nonce = new byte[6];
        while (!stop) {
            if (paused) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
                continue;
            }
            List<String> keys = r.nextDouble() < crossShare ? crossKeys(w, seq) : List.of(prefix + w + "/" + seq);
            r.nextBytes(nonce);
            String value = "v" + w + "." + seq + "." + HexFormat.of().formatHex(nonce);
            seq++;
            try {
                Txn tx = client.begin();
                for (String k : keys) {
                    tx.put(k, value);
                }
                CommitPromise p = tx.commit();
                for (String k : keys) {
                    acknowledged.put(k, value);
                }
                promises.add(p);
                acked.incrementAndGet();
                if (p.crossShard()) {
                    crossShard.incrementAndGet();
                }
                failures = 0;
            } catch (GlassLedgerException e) {
                refusals.computeIfAbsent(e.code(), c -> new LongAdder()).increment();
                if (!EXPECTED.contains(e.code())) {
                    unexpected(e);
                }
                backOff(r, failures++, e.retryAfter());
            } catch (IntegrityViolation v) {
                violationsThrown.incrementAndGet();
                backOff(r, failures++, null);
            } catch (RuntimeException e) {
                unexpected(e);
                backOff(r, failures++, null);
            }
        }
    }

    /** Two keys of the writer's sequence number on two different shards. */
    private List<String> crossKeys(int w, long seq) {
        String a = prefix + w + "/" + seq + "/a";
        int shardA = client.shardOf(a.getBytes(StandardCharsets.UTF_8));
        for (int i = 0; i < 1000; i++) {
            String b = prefix + w + "/" + seq + "/b" + i;
            if (client.shardOf(b.getBytes(StandardCharsets.UTF_8)) != shardA) {
                return List.of(a, b);
            }
        }
        throw new IllegalStateException("no key on another shard than " + a + "'s");
    }

    private void unexpected(RuntimeException e) {
        unexpected.incrementAndGet();
        if (samples.size() < SAMPLES) {
            samples.add(e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    /** 20 ms doubling to 1 s, half of it random, or the server's Retry-After if longer. */
    private static void backOff(SplittableRandom r, int failures, Duration retryAfter) {
        long ms = Math.min(1000, 20L << Math.min(failures, 6));
        ms = ms / 2 + r.nextLong(ms / 2 + 1);
        if (retryAfter != null) {
            ms = Math.max(ms, Math.min(5000, retryAfter.toMillis()));
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(ms));
    }

    /**
     * Waits, all together at most {@code within}, for every acknowledged promise's check; a promise still unchecked
     * then is pending. {@code log} hears of the first failures.
     */
    Verification awaitVerification(Duration within, java.util.function.Consumer<String> log)
            throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        long verified = 0;
        long violated = 0;
        long failed = 0;
        long pending = 0;
        long overdue = 0;
        for (CommitPromise p : promises) {
            try {
                p.verification().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                verified++;
            } catch (TimeoutException e) {
                pending++;
                if (pending <= 3) {
                    log.accept("promise of tx " + p.txId().hex() + " (block " + p.block() + ") still unchecked"
                            + p.overdue().map(o -> "; overdue: " + o.getMessage()).orElse(""));
                }
            } catch (ExecutionException e) {
                Throwable c = e.getCause();
                if (c instanceof IntegrityViolation) {
                    violated++;
                } else {
                    failed++;
                }
                if (violated + failed <= 5) {
                    log.accept("promise of tx " + p.txId().hex() + " (block " + p.block() + ") failed: " + c);
                }
            }
            if (p.overdue().isPresent()) {
                overdue++;
            }
        }
        return new Verification(verified, violated, failed, pending, overdue);
    }

    /**
     * Reads back every acknowledged key with verified reads ({@link GlassLedgerClient#get(byte[])}: the latest value,
     * proven against a signed head the client checks) on {@code readers} threads, each read tried up to 5 times on a
     * retryable error; all together at most {@code within} (keys not read by then are unread).
     */
    ReadBack readBack(int readers, Duration within, java.util.function.Consumer<String> log)
            throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        ConcurrentLinkedQueue<Map.Entry<String, String>> queue = new ConcurrentLinkedQueue<>(acknowledged.entrySet());
        LongAdder checked = new LongAdder();
        LongAdder missing = new LongAdder();
        LongAdder wrong = new LongAdder();
        LongAdder unread = new LongAdder();
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < readers; i++) {
            Thread t = new Thread(() -> {
                SplittableRandom r = new SplittableRandom();
                Map.Entry<String, String> e;
                while ((e = queue.poll()) != null) {
                    if (System.nanoTime() > deadline) {
                        unread.increment();
                        continue;
                    }
                    String got = null;
                    boolean read = false;
                    for (int attempt = 0; attempt < 5 && !read && System.nanoTime() < deadline; attempt++) {
                        try {
                            got = client.get(e.getKey());
                            read = true;
                        } catch (GlassLedgerException ex) {
                            if (!ex.retryable()) {
                                log.accept("read of " + e.getKey() + " failed: " + ex.getMessage());
                                break;
                            }
                            backOff(r, attempt + 3, ex.retryAfter());
                        } catch (RuntimeException ex) {
                            log.accept("read of " + e.getKey() + " failed: " + ex);
                            break;
                        }
                    }
                    checked.increment();
                    if (!read) {
                        unread.increment();
                    } else if (got == null) {
                        missing.increment();
                        if (missing.sum() <= SAMPLES) {
                            log.accept("LOST: acknowledged key " + e.getKey() + " (value " + e.getValue()
                                    + ") reads as absent");
                        }
                    } else if (!got.equals(e.getValue())) {
                        wrong.increment();
                        if (wrong.sum() <= SAMPLES) {
                            log.accept("LOST: acknowledged key " + e.getKey() + " reads " + got + ", not "
                                    + e.getValue());
                        }
                    }
                }
            }, "failover-reader-" + i);
            t.setDaemon(true);
            ts.add(t);
            t.start();
        }
        for (Thread t : ts) {
            // A read in flight at the deadline ends within its own request timeout.
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())) + 60_000);
        }
        long left = queue.size();
        return new ReadBack(checked.sum(), missing.sum(), wrong.sum(), unread.sum() + left);
    }
}
