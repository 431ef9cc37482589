package io.glassledger.core.txn;

import io.glassledger.verify.txn.Transaction;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.block.Block;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.txn.TxnException.Reason;
import java.util.HashMap;
import java.util.Map;

/**
 * Optimistic concurrency control in log order, and the replay window: a transaction is admitted only if its id is
 * new and its clock is within {@link EngineConfig#replayWindow()}, its reads are still the latest committed versions
 * (published or not), and no prepared transaction holds a lock it conflicts with.
 *
 * <p>Deterministic given the log and the clock; the sequencer thread (or recovery, before it starts) is its only
 * caller. The worker pool's early check ({@link Admission}) is separate and only an optimisation.
 */
final class Validator {
    private final EngineConfig cfg;
    private final CommittedData data;
    private final CrossShardState crossShard;
    /** Transaction ids admitted within the replay window, with the block of a one-phase commit (else 0). */
    private final Map<Bytes, Long> seen = new HashMap<>();
    private long lastSeenPrune;

    Validator(EngineConfig cfg, CommittedData data, CrossShardState crossShard) {
        this.cfg = cfg;
        this.data = data;
        this.crossShard = crossShard;
    }

    /** Null if {@code tx} may commit or prepare now, else why not. */
    TxnException admit(Transaction tx) {
        long now = cfg.clock().getAsLong();
        pruneSeen(now);
        if (seen.containsKey(tx.txId()) || crossShard.isPrepared(tx.txId()) || crossShard.isDecided(tx.txId())) {
            return new TxnException(Reason.DUPLICATE, "transaction " + tx.txId().hex() + " was already submitted");
        }
        long skew = Math.abs(now - Transaction.idMillis(tx.txId()));
        if (skew > cfg.replayWindow().toMillis()) {
            return new TxnException(Reason.STALE, "transaction id clock is " + skew + " ms from the shard's, more than "
                    + cfg.replayWindow().toMillis());
        }
        for (Transaction.Read rd : tx.reads()) {
            Bytes holder = crossShard.writeLockHolder(rd.key());
            if (holder != null) {
                return new TxnException(Reason.CONFLICT, "key read is held by prepared transaction " + holder.hex());
            }
            long current = data.currentVersion(rd.key());
            if (current != rd.version()) {
                return new TxnException(Reason.CONFLICT, "read version " + rd.version() + " of a key is stale (now "
                        + current + ")");
            }
        }
        for (Mutation m : tx.writes()) {
            if (crossShard.locked(m.key())) {
                return new TxnException(Reason.CONFLICT, "key written is held by a prepared transaction");
            }
        }
        return null;
    }

    /** Forgets ids older than the replay window (at most every 10 s): they are refused as stale anyway. */
    void pruneSeen(long now) {
        if (now - lastSeenPrune > 10_000) {
            long floor = now - cfg.replayWindow().toMillis();
            seen.keySet().removeIf(id -> Transaction.idMillis(id) < floor);
            lastSeenPrune = now;
        }
    }

    /** Records an admitted id (block not known yet, or none: a prepare). */
    void remember(Bytes txId) {
        seen.putIfAbsent(txId, 0L);
    }

    /** Records a one-phase commit's block. */
    void committed(Bytes txId, long block) {
        seen.put(txId, block);
    }

    boolean seen(Bytes txId) {
        return seen.containsKey(txId);
    }

    /** The block of a remembered one-phase commit (0 if unknown or a prepare), or null if not remembered. */
    Long seenBlock(Bytes txId) {
        return seen.get(txId);
    }

    /** At start: ids of recent blocks in the ledger (the WAL's were added in replay). */
    void rebuildSeen(Ledger ledger) {
        long floor = cfg.clock().getAsLong() - 2 * cfg.replayWindow().toMillis();
        for (long n = ledger.head().block().number(); n > 0; n--) {
            Block b = ledger.block(n);
            if (b.timestamp() < floor) {
                break;
            }
            long block = n;
            b.txIds().stream().filter(id -> id.length() == Transaction.TX_ID_BYTES).forEach(id -> seen.put(id, block));
        }
    }
}
