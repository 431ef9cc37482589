package io.glassledger.core.txn;

import io.glassledger.verify.txn.Transaction;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.Promise;
import io.glassledger.verify.LedgerException;
import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.core.ledger.Ledger;
import java.util.List;
import java.util.Map;

/**
 * The in-memory state the log determines: the open epoch's block assignment ({@link BlockSequencer}), the
 * committed-data map, the 2PC state and the replay window, and {@link #applyRecord}, the one way a logged record
 * turns into that state (WAL replay at start, a follower applying the group's log). A leader reaches the same state
 * by processing requests ({@link Sequencer}) through the same fields.
 *
 * <p>Determinism: applying the same records to the same ledger gives the same blocks on every replica. Threads: only
 * the sequencer thread (or recovery, before it starts) calls it; {@link #promisedBound()} is read by any thread.
 */
final class TxnStateMachine {
    private final EngineConfig cfg;
    private final Ledger ledger;
    final BlockSequencer blocks;
    final CommittedData data;
    final CrossShardState crossShard;
    final Validator validator;
    private final TxnEngine.Extension extension;
    private final EngineLog log;
    private long lastSealTimestamp;
    private volatile long promisedBound;

    TxnStateMachine(EngineConfig cfg, Ledger ledger, long epochBase, CommittedData data, CrossShardState crossShard,
                    Validator validator, TxnEngine.Extension extension, EngineLog log) {
        this.cfg = cfg;
        this.ledger = ledger;
        this.blocks = new BlockSequencer(epochBase, cfg.batching());
        this.data = data;
        this.crossShard = crossShard;
        this.validator = validator;
        this.extension = extension;
        this.log = log;
        this.lastSealTimestamp = ledger.head().block().timestamp();
    }

    /** One past the highest block number promised so far: proofs of blocks below it can be asked for. */
    long promisedBound() {
        return promisedBound;
    }

    /** Publishes the sequencer's bound after an assignment. */
    void updatePromisedBound() {
        promisedBound = blocks.nextBlockBound();
    }

    /** The seal timestamp for now: never before the last seal's, so block timestamps never go back. */
    long nextSealTimestamp() {
        return Math.max(cfg.clock().getAsLong(), lastSealTimestamp);
    }

    /** Seals the open epoch at {@code ts} (null if it is empty). */
    BlockSequencer.Epoch seal(long ts) {
        BlockSequencer.Epoch e = blocks.seal(ts);
        lastSealTimestamp = ts;
        return e;
    }

    /** A decision's promise: the block (0 read-only, -1 aborted) at the current digest. */
    Promise promise(Bytes txId, long block) {
        return new Promise(txId, cfg.shard(), block, ledger.digest());
    }

    /**
     * Applies one logged record to the in-memory state: in WAL replay at start ({@code live} false: the open epoch's
     * transactions are collected in {@code openTxs} and staged at the end) and when a replica applies the group's
     * log ({@code live} true: staged at once, visible). Sealed epochs go to {@code sealed}, in order.
     */
    void applyRecord(Wal.Record r, boolean live, List<Map.Entry<SignedTransaction, Long>> openTxs,
                     List<BlockSequencer.Epoch> sealed) {
        switch (r.type()) {
            case Wal.COMMIT -> {
                SignedTransaction stx = SignedTransaction.decode(r.payload());
                long b = blocks.assign(stx);
                validator.committed(stx.txId(), b);
                placeCommitted(stx, b, live, openTxs);
            }
            case Wal.PREPARE -> {
                SignedTransaction stx = SignedTransaction.decode(r.payload());
                if (!crossShard.isPrepared(stx.txId())) {
                    validator.remember(stx.txId());
                    crossShard.lock(stx);
                }
            }
            case Wal.DECIDE_COMMIT, Wal.DECIDE_ABORT -> {
                Bytes id = Bytes.of(r.payload());
                SignedTransaction stx = crossShard.prepared(id);
                if (stx == null) {
                    throw new LedgerException("the log decides unknown transaction " + id.hex());
                }
                crossShard.unlock(stx);
                if (r.type() == Wal.DECIDE_COMMIT) {
                    long b = 0;
                    if (!stx.tx().isReadOnly()) {
                        b = blocks.assign(stx);
                        placeCommitted(stx, b, live, openTxs);
                    }
                    crossShard.decide(id, promise(id, b));
                } else {
                    crossShard.decide(id, promise(id, -1));
                }
            }
            case Wal.OUTCOME -> {
                ByteReader in = new ByteReader(r.payload());
                Bytes id = in.bytes(Transaction.TX_ID_BYTES);
                long b = in.u64();
                if (!crossShard.isPrepared(id)) {
                    crossShard.decide(id, promise(id, b));
                }
            }
            case Wal.SEAL -> {
                long ts = new ByteReader(r.payload()).u64();
                BlockSequencer.Epoch e = seal(ts);
                openTxs.clear();
                if (e == null) {
                    throw new LedgerException("the log seals an empty epoch");
                }
                sealed.add(e);
            }
            case Wal.EXTENSION -> {
                if (extension != null) {
                    extension.apply(r.payload());
                }
            }
            case Wal.APPLIED -> {
                ByteReader in = new ByteReader(r.payload());
                log.restoreApplied(in.u64(), in.u64());
            }
            default -> throw new LedgerException("unknown log record type " + r.type());
        }
    }

    private void placeCommitted(SignedTransaction stx, long block, boolean live,
                                List<Map.Entry<SignedTransaction, Long>> openTxs) {
        if (live) {
            data.stage(stx, block, true);
        } else {
            openTxs.add(Map.entry(stx, block));
        }
    }
}
