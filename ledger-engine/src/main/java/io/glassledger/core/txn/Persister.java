package io.glassledger.core.txn;

import io.glassledger.verify.LedgerException;
import io.glassledger.verify.block.Block;
import io.glassledger.verify.block.BlockSpec;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.core.store.StoreException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * The persisting thread: every {@link EngineConfig#persistInterval()} (or sooner, {@link #persistSoon()}) it asks
 * the sequencer to seal the open epoch (a WAL record, so blocks are a function of the log; only a leader seals, a
 * follower persists the epochs its log's seals close), appends each sealed epoch's blocks to the ledger in one
 * atomic write, drops them from the committed-data map, and completes those waiting for them.
 *
 * <p>Failures: a {@link StoreException} is retried with backoff for {@link EngineConfig#storeRetryWindow()} (the
 * engine is DEGRADED meanwhile); anything else, or a store that stays broken, fails the engine.
 *
 * <p>Threads: {@link #persist} runs on the persisting thread (or recovery, before it starts); {@link #persisted()},
 * {@link #awaitPersisted} and {@link #persistSoon()} on any thread. The waiters' map is guarded by its own monitor,
 * the wake-up flag by {@code signal}'s.
 */
final class Persister {
    private final EngineConfig cfg;
    private final Ledger ledger;
    private final CommittedData data;
    private final EngineCounters counters;
    private final Lifecycle life;
    private final Leadership leadership;
    private final BlockingQueue<Request> queue;
    private final Consumer<Throwable> fail;
    private final AtomicLong persisted = new AtomicLong();
    private final TreeMap<Long, List<CompletableFuture<Void>>> waiters = new TreeMap<>();
    private final Object signal = new Object();
    private boolean requested;
    /** Sealed epochs to persist, in block order (a leader's seals and a follower's alike). */
    private final LinkedBlockingQueue<BlockSequencer.Epoch> sealedEpochs = new LinkedBlockingQueue<>();
    /** Told of each persisted block so that waiting proofs proceed; none while recovery persists. */
    private volatile LongConsumer onPersisted;

    Persister(EngineConfig cfg, Ledger ledger, long head, CommittedData data, EngineCounters counters, Lifecycle life,
              Leadership leadership, BlockingQueue<Request> queue, Consumer<Throwable> fail) {
        this.cfg = cfg;
        this.ledger = ledger;
        this.data = data;
        this.counters = counters;
        this.life = life;
        this.leadership = leadership;
        this.queue = queue;
        this.fail = fail;
        this.persisted.set(head);
    }

    void onPersisted(LongConsumer c) {
        this.onPersisted = c;
    }

    /** The last block in the ledger. */
    long persisted() {
        return persisted.get();
    }

    /** Hands a sealed epoch to the persisting thread, unless it is in the ledger already. */
    void offerSealed(BlockSequencer.Epoch e) {
        if (e.lastBlock() > persisted.get()) {
            sealedEpochs.add(e);
        }
    }

    /** Hands an epoch the leader sealed to the persisting thread (after its seal is durable). */
    void sealed(BlockSequencer.Epoch e) {
        sealedEpochs.add(e);
    }

    /** The persisting thread's body. */
    void run() {
        long interval = cfg.persistInterval().toNanos();
        long next = System.nanoTime() + interval;
        while (life.failure == null) {
            try {
                synchronized (signal) {
                    long wait;
                    while (!requested && !life.closing && (wait = next - System.nanoTime()) > 0) {
                        TimeUnit.NANOSECONDS.timedWait(signal, wait);
                    }
                    requested = false;
                }
                next = System.nanoTime() + interval;
                if (life.failure != null) {
                    return;
                }
                boolean last = life.closing;
                if (leadership.leads()) {
                    // Only the leader seals; a follower persists the epochs its log's seals close.
                    CompletableFuture<BlockSequencer.Epoch> f = new CompletableFuture<>();
                    queue.add(new Request.Seal(f));
                    while (life.failure == null) {
                        try {
                            f.get(100, TimeUnit.MILLISECONDS);
                            break;
                        } catch (TimeoutException te) {
                            // keep waiting unless the sequencer died
                        } catch (ExecutionException x) {
                            break;
                        }
                    }
                }
                if (life.failure != null) {
                    return;
                }
                boolean any = false;
                for (BlockSequencer.Epoch e; (e = sealedEpochs.poll()) != null; ) {
                    if (e.lastBlock() > persisted.get()) {
                        persistRetrying(e);
                        any = true;
                    }
                }
                if (any) {
                    queue.add(new Request.Truncate(persisted.get()));
                }
                if (last) {
                    return;
                }
            } catch (InterruptedException ie) {
                return;
            } catch (Throwable t) {
                fail.accept(t);
                return;
            }
        }
    }

    /**
     * Persists a sealed epoch, retrying a {@link StoreException} with backoff: the failed write changed nothing and
     * the epoch stays sealed in the WAL, so the same append can be repeated. Gives up (rethrows, and the engine
     * fails) after {@link EngineConfig#storeRetryWindow()}, or at once when the engine is closing.
     */
    private void persistRetrying(BlockSequencer.Epoch e) throws InterruptedException {
        long start = System.nanoTime();
        long delayMillis = 10;
        while (true) {
            try {
                persist(e);
                if (life.storeFailure != null) {
                    life.storeFailure = null;
                    long down = System.nanoTime() - start;
                    life.notifyObserver(o -> o.recovered(down));
                }
                return;
            } catch (StoreException x) {
                if (life.storeFailure == null) {
                    life.storeFailure = x;
                    life.notifyObserver(o -> o.failed(x, false));
                }
                if (life.closing || System.nanoTime() - start >= cfg.storeRetryWindow().toNanos()) {
                    throw x;
                }
                long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMillis);
                synchronized (signal) {
                    long wait;
                    while (!life.closing && (wait = until - System.nanoTime()) > 0) {
                        TimeUnit.NANOSECONDS.timedWait(signal, wait);
                    }
                }
                delayMillis = Math.min(delayMillis * 2, 2_000);
            }
        }
    }

    /** Appends a sealed epoch's blocks to the ledger in one write and completes what waited for them. */
    void persist(BlockSequencer.Epoch e) {
        long t0 = System.nanoTime();
        List<BlockSpec> specs = e.specs();
        List<Block> blocks = ledger.append(specs);
        if (blocks.get(0).number() != e.firstBlock() || blocks.get(blocks.size() - 1).number() != e.lastBlock()) {
            throw new LedgerException("ledger formed blocks " + blocks.get(0).number() + ".." + blocks.get(
                    blocks.size() - 1).number() + " for epoch " + e.firstBlock() + ".." + e.lastBlock());
        }
        long last = e.lastBlock();
        persisted.set(last);
        long keys = data.dropPersisted(specs, last);
        counters.epochs.increment();
        counters.blocks.add(specs.size());
        counters.keys.add(keys);
        long took = System.nanoTime() - t0;
        counters.persistNanos.add(took);
        List<Integer> perBlock = new ArrayList<>(specs.size());
        specs.forEach(sp -> perBlock.add(sp.writes().size()));
        life.observer().persisted(perBlock, took);
        List<CompletableFuture<Void>> ready = new ArrayList<>();
        synchronized (waiters) {
            var head = waiters.headMap(last, true);
            head.values().forEach(ready::addAll);
            head.clear();
        }
        ready.forEach(f -> f.complete(null));
        LongConsumer c = onPersisted;
        if (c != null) {
            c.accept(last);
        }
    }

    /** Completes when block {@code blockNo} is in the ledger (exceptionally if the engine fails first). */
    CompletableFuture<Void> awaitPersisted(long blockNo) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        synchronized (waiters) {
            if (persisted.get() >= blockNo) {
                f.complete(null);
                return f;
            }
            waiters.computeIfAbsent(blockNo, k -> new ArrayList<>()).add(f);
        }
        if (life.failure != null) {
            f.completeExceptionally(life.unavailable());
        }
        return f;
    }

    /** Wakes the persisting thread to seal and persist now rather than at the end of its interval. */
    void persistSoon() {
        synchronized (signal) {
            requested = true;
            signal.notifyAll();
        }
    }

    /** Wakes the persisting thread (and its retry backoff) to see that the engine closes. */
    void wake() {
        synchronized (signal) {
            signal.notifyAll();
        }
    }

    /** After the engine failed: every waiter fails with {@code e}. */
    void failWaiters(TxnException e) {
        List<CompletableFuture<Void>> waiting = new ArrayList<>();
        synchronized (waiters) {
            waiters.values().forEach(waiting::addAll);
            waiters.clear();
        }
        waiting.forEach(w -> w.completeExceptionally(e));
    }
}
