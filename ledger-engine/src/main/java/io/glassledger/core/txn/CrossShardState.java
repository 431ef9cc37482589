package io.glassledger.core.txn;

import io.glassledger.verify.txn.Transaction;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.Promise;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.entry.Mutation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The 2PC participant's state: transactions prepared here and not yet decided, the read and write locks they hold,
 * and the decisions remembered for {@link TxnEngine#DECISION_RETENTION_MILLIS} so that a repeated decision or a
 * participant's question gets the same answer.
 *
 * <p>Threads: the sequencer thread (or recovery, before it starts) is the only one that reads or writes the
 * prepared set, the locks and the decisions; {@link #held} is a concurrent copy that any thread may read.
 */
final class CrossShardState {
    private static final int MAX_DECISIONS = 1_000_000;

    private final LongSupplier clock;
    private final Map<Bytes, SignedTransaction> prepared = new LinkedHashMap<>();
    private final ConcurrentHashMap<Bytes, TxnEngine.Held> held = new ConcurrentHashMap<>();
    private final Map<Bytes, Integer> readLocks = new HashMap<>();
    private final Map<Bytes, Bytes> writeLocks = new HashMap<>();
    /** Decisions by transaction id: block number, 0 for a read-only commit, -1 for an abort. */
    private final LinkedHashMap<Bytes, Promise> decided;

    CrossShardState(LongSupplier clock) {
        this.clock = clock;
        this.decided = new LinkedHashMap<>(1024, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Bytes, Promise> e) {
                return size() > MAX_DECISIONS || Transaction.idMillis(e.getKey())
                        < clock.getAsLong() - TxnEngine.DECISION_RETENTION_MILLIS;
            }
        };
    }

    /** The prepared transaction, or null. */
    SignedTransaction prepared(Bytes txId) {
        return prepared.get(txId);
    }

    boolean isPrepared(Bytes txId) {
        return prepared.containsKey(txId);
    }

    /** The recorded decision, or null. */
    Promise decision(Bytes txId) {
        return decided.get(txId);
    }

    boolean isDecided(Bytes txId) {
        return decided.containsKey(txId);
    }

    void decide(Bytes txId, Promise p) {
        decided.put(txId, p);
    }

    /** The prepared transaction holding a write lock on {@code key}, or null. */
    Bytes writeLockHolder(Bytes key) {
        return writeLocks.get(key);
    }

    /** Whether {@code key} is read or written by a prepared transaction. */
    boolean locked(Bytes key) {
        return writeLocks.containsKey(key) || readLocks.containsKey(key);
    }

    /** Prepares {@code stx}: holds its read and write locks until {@link #unlock}. */
    void lock(SignedTransaction stx) {
        prepared.put(stx.txId(), stx);
        held.put(stx.txId(), new TxnEngine.Held(stx, System.nanoTime()));
        for (Transaction.Read r : stx.tx().reads()) {
            readLocks.merge(r.key(), 1, Integer::sum);
        }
        for (Mutation m : stx.tx().writes()) {
            writeLocks.put(m.key(), stx.txId());
        }
    }

    void unlock(SignedTransaction stx) {
        prepared.remove(stx.txId());
        held.remove(stx.txId());
        for (Transaction.Read r : stx.tx().reads()) {
            readLocks.computeIfPresent(r.key(), (k, n) -> n == 1 ? null : n - 1);
        }
        for (Mutation m : stx.tx().writes()) {
            writeLocks.remove(m.key());
        }
    }

    /** The records of the transactions still prepared, for a new WAL segment to carry. */
    List<byte[]> preparedRecords() {
        List<byte[]> carried = new ArrayList<>(prepared.size());
        prepared.values().forEach(p -> carried.add(p.recordUnsafe()));
        return carried;
    }

    /** The OUTCOME records of the decisions within the retention, for a new WAL segment to carry. */
    List<byte[]> outcomeRecords() {
        List<byte[]> outcomes = new ArrayList<>();
        long floor = clock.getAsLong() - TxnEngine.DECISION_RETENTION_MILLIS;
        decided.forEach((id, p) -> {
            if (Transaction.idMillis(id) >= floor) {
                outcomes.add(outcomeRecord(id, p.blockNo()));
            }
        });
        return outcomes;
    }

    /** A {@link Wal#OUTCOME} record: {@code txId || u64 block} (block -1: aborted). */
    static byte[] outcomeRecord(Bytes txId, long block) {
        return new ByteWriter(24).raw(txId.unsafeArray()).u64(block).toByteArray();
    }

    // Any thread.

    Optional<TxnEngine.Held> held(Bytes txId) {
        return Optional.ofNullable(held.get(txId));
    }

    List<Bytes> heldIds() {
        return List.copyOf(held.keySet());
    }

    List<TxnEngine.Held> allHeld() {
        return List.copyOf(held.values());
    }
}
