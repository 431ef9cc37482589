package io.glassledger.core.txn;

import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.block.BlockSpec;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The committed-data map: every write committed and not yet in the ledger, by key, as a chain of versions in block
 * order, in front of the ledger for reads.
 *
 * <p>Threads: the sequencer thread (or recovery, before it starts) stages versions; the thread that ends a group
 * commit makes them visible; the persisting thread drops them once their blocks are in the ledger; any thread reads.
 * Each key's chain is guarded by its own monitor, so readers of different keys never contend. A reader sees a staged
 * version only once it is visible, that is once its commit is durable; the sequencer's validation sees every one.
 */
final class CommittedData {
    /** One committed version of a key: the block that holds (or will hold) it, and its value (null: deleted). */
    static final class Ver {
        final long blockNo;
        final Bytes value;
        volatile boolean visible;

        Ver(long blockNo, Bytes value, boolean visible) {
            this.blockNo = blockNo;
            this.value = value;
            this.visible = visible;
        }
    }

    private final Ledger ledger;
    private final ConcurrentHashMap<Bytes, ArrayList<Ver>> committed = new ConcurrentHashMap<>();
    /** Writes staged and not yet persisted: the backlog {@link EngineConfig#maxUnpersistedWrites()} bounds. */
    private final AtomicLong unpersistedWrites = new AtomicLong();

    CommittedData(Ledger ledger) {
        this.ledger = ledger;
    }

    /** The latest published value of {@code key}: the committed-data map first, then the ledger. Any thread. */
    TxnEngine.Versioned get(Bytes key) {
        ArrayList<Ver> chain = committed.get(key);
        if (chain != null) {
            synchronized (chain) {
                for (int i = chain.size() - 1; i >= 0; i--) {
                    Ver v = chain.get(i);
                    if (v.visible) {
                        return new TxnEngine.Versioned(v.value, v.blockNo);
                    }
                }
            }
        }
        Entry e = ledger.latestEntry(key);
        return e == null ? new TxnEngine.Versioned(null, 0)
                : new TxnEngine.Versioned(e.isTombstone() ? null : e.value(), e.version());
    }

    /** No value in the latest committed state, published or not: never written, or deleted. */
    boolean absentNow(Bytes key) {
        ArrayList<Ver> chain = committed.get(key);
        if (chain != null) {
            synchronized (chain) {
                if (!chain.isEmpty()) {
                    return chain.get(chain.size() - 1).value == null;
                }
            }
        }
        Entry e = ledger.latestEntry(key);
        return e == null || e.isTombstone();
    }

    /** The latest committed version, published or not. */
    long currentVersion(Bytes key) {
        ArrayList<Ver> chain = committed.get(key);
        if (chain != null) {
            synchronized (chain) {
                if (!chain.isEmpty()) {
                    return chain.get(chain.size() - 1).blockNo;
                }
            }
        }
        Entry e = ledger.latestEntry(key);
        return e == null ? 0 : e.version();
    }

    /**
     * Adds the writes of a transaction assigned to block {@code blockNo}; invisible ones wait for
     * {@link #publish(List)}. Sequencer thread (or recovery) only: the chains stay in block order.
     */
    List<Ver> stage(SignedTransaction stx, long blockNo, boolean visible) {
        List<Ver> out = new ArrayList<>(stx.tx().writes().size());
        unpersistedWrites.addAndGet(stx.tx().writes().size());
        for (Mutation m : stx.tx().writes()) {
            if (m.isDelete() && absentNow(m.key())) {
                // The ledger leaves no entry for it (FORMAT §6), so the key's version must not move either.
                continue;
            }
            Ver v = new Ver(blockNo, m.value(), visible);
            out.add(v);
            committed.compute(m.key(), (k, chain) -> {
                ArrayList<Ver> c = chain == null ? new ArrayList<>(2) : chain;
                synchronized (c) {
                    c.add(v);
                }
                return c;
            });
        }
        return out;
    }

    /** Makes staged versions visible to readers: once their commit is durable. */
    static void publish(List<Ver> staged) {
        for (Ver v : staged) {
            v.visible = true;
        }
    }

    /**
     * Drops the versions of blocks up to {@code last}, now in the ledger, for the writes of {@code specs}; returns
     * how many writes it looked at. Persisting thread (or recovery).
     */
    long dropPersisted(List<BlockSpec> specs, long last) {
        long keys = 0;
        for (var spec : specs) {
            unpersistedWrites.addAndGet(-spec.writes().size());
            for (Mutation m : spec.writes()) {
                keys++;
                committed.computeIfPresent(m.key(), (k, c) -> {
                    synchronized (c) {
                        c.removeIf(v -> v.blockNo <= last);
                        return c.isEmpty() ? null : c;
                    }
                });
            }
        }
        return keys;
    }

    long unpersistedWrites() {
        return unpersistedWrites.get();
    }

    /** After recovery: replayed epochs were never staged, so persisting them drove the count below 0. */
    void resetUnpersisted() {
        unpersistedWrites.set(0);
    }
}
