package io.glassledger.core.txn;

import io.glassledger.verify.txn.Transaction;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.Promise;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.proof.Digest;
import io.glassledger.core.txn.TxnException.Reason;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The sequencer thread: takes requests in batches from the queue and, for each in order, validates it
 * ({@link Validator}), appends its records to the {@link EngineLog}, assigns blocks and stages writes
 * ({@link TxnStateMachine}); then one group commit makes the batch durable, and only then are its answers given and
 * its writes published (the {@code after} actions). The single-server and the replicated paths run these same steps;
 * the log decides what durable means.
 *
 * <p>Threads and determinism: this thread is the only one that changes the state machine, the 2PC state and the log
 * once the engine runs, so none of them needs a lock; given the same requests in the same order it writes the same
 * records. A failure here fails the engine (see {@link TxnEngine#health()}); a replica whose entry could not be
 * confirmed answers its batch with OUTCOME_UNKNOWN.
 */
final class Sequencer {
    /** Requests taken per batch at most, besides the first: one group commit (and one log entry) for all. */
    private static final int MAX_BATCH = 8191;

    private final EngineConfig cfg;
    private final Ledger ledger;
    private final TxnStateMachine state;
    private final EngineLog log;
    private final Leadership leadership;
    private final Persister persister;
    private final EngineCounters counters;
    private final Lifecycle life;
    private final TxnEngine.Extension extension;
    private final BlockingQueue<Request> queue;
    private final Consumer<Throwable> fail;

    Sequencer(EngineConfig cfg, Ledger ledger, TxnStateMachine state, EngineLog log, Leadership leadership,
              Persister persister, EngineCounters counters, Lifecycle life, TxnEngine.Extension extension,
              BlockingQueue<Request> queue, Consumer<Throwable> fail) {
        this.cfg = cfg;
        this.ledger = ledger;
        this.state = state;
        this.log = log;
        this.leadership = leadership;
        this.persister = persister;
        this.counters = counters;
        this.life = life;
        this.extension = extension;
        this.queue = queue;
        this.fail = fail;
    }

    /** The sequencer thread's body. */
    void run() {
        List<Request> batch = new ArrayList<>();
        List<Runnable> after = new ArrayList<>();
        while (true) {
            try {
                Request first = queue.poll(50, TimeUnit.MILLISECONDS);
                if (first == null) {
                    if (life.stopSequencer && queue.isEmpty()) {
                        return;
                    }
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, MAX_BATCH);
                long t0 = System.nanoTime();
                for (Request r : batch) {
                    counters.sequenced.increment();
                    process(r, after);
                }
                long t1 = System.nanoTime();
                boolean synced = log.groupCommit();
                long t2 = System.nanoTime();
                counters.validateNanos.add(t1 - t0);
                if (synced) {
                    counters.walSyncs.increment();
                    counters.walSyncNanos.add(t2 - t1);
                    life.observer().walSynced(t2 - t1, batch.size());
                }
                for (Runnable a : after) {
                    a.run();
                }
            } catch (InterruptedException e) {
                return;
            } catch (EngineLog.LostLeadership l) {
                // The entry may yet commit (or not): every request of the batch has an unknown outcome, and this
                // engine's state may hold what the group never accepted. Its owner reopens the replica.
                leadership.lost(l.leader());
                log.discardPending();
                TxnException unknown = new TxnException(Reason.OUTCOME_UNKNOWN, "shard " + cfg.shard()
                        + " lost its leadership before the group confirmed this request; ask the transaction's status"
                        + " at the new leader", l.leader());
                for (Request r : batch) {
                    r.fail(unknown);
                }
                fail.accept(l);
                life.notifyObserver(o -> leadership.notifyLost());
                return;
            } catch (Throwable t) {
                fail.accept(t);
                for (Request r : batch) {
                    r.fail(log.batchFailed(t, leadership.leaderHint(), life.unavailable()));
                }
                return;
            } finally {
                batch.clear();
                after.clear();
            }
        }
    }

    private void process(Request r, List<Runnable> after) throws EngineLog.LostLeadership, InterruptedException {
        if (r instanceof Request.Apply a) {
            log.applyEntry(a, persister);
            return;
        } else if (r instanceof Request.Role role) {
            leadership.takeRole(role, state.blocks.epochBase() - 1, persister);
            return;
        } else if (r instanceof Request.Snapshot q) {
            log.snapshot(q);
            return;
        } else if (r instanceof Request.Truncate t) {
            log.deleteUpTo(t.persisted());
            return;
        }
        if (!leadership.leads()) {
            if (r instanceof Request.Seal q) {
                q.done().complete(null);
            } else {
                r.fail(leadership.notLeader());
            }
            return;
        }
        if (r instanceof Request.Commit c) {
            processCommit(c, after);
        } else if (r instanceof Request.Prepare p) {
            processPrepare(p, after);
        } else if (r instanceof Request.Decide d) {
            processDecide(d, after);
        } else if (r instanceof Request.Seal s) {
            processSeal(s, after);
        } else if (r instanceof Request.Status q) {
            q.done().complete(statusDetailOf(q.txId()));
        } else if (r instanceof Request.Resolve q) {
            processResolve(q, after);
        } else if (r instanceof Request.Extension x) {
            log.append(Wal.EXTENSION, x.payload());
            after.add(() -> x.done().complete(extension.apply(x.payload())));
        }
    }

    private void processCommit(Request.Commit c, List<Runnable> after) {
        Transaction tx = c.stx().tx();
        TxnException bad = state.validator.admit(tx);
        if (bad != null) {
            counters.abort(c.done(), bad);
            return;
        }
        state.validator.remember(tx.txId());
        Digest served = ledger.digest();
        if (tx.isReadOnly()) {
            counters.readOnly.increment();
            c.done().complete(new Promise(tx.txId(), cfg.shard(), 0, served));
            return;
        }
        log.append(Wal.COMMIT, c.stx().recordUnsafe());
        long b = state.blocks.assign(c.stx());
        state.validator.committed(tx.txId(), b);
        state.updatePromisedBound();
        List<CommittedData.Ver> staged = state.data.stage(c.stx(), b, false);
        Promise p = new Promise(tx.txId(), cfg.shard(), b, served);
        after.add(() -> publish(staged, p, c.done(), c.persistNow()));
    }

    private void processPrepare(Request.Prepare p, List<Runnable> after) {
        Transaction tx = p.stx().tx();
        TxnException bad = state.validator.admit(tx);
        if (bad != null) {
            counters.abort(p.done(), bad);
            return;
        }
        state.validator.remember(tx.txId());
        log.append(Wal.PREPARE, p.stx().recordUnsafe());
        state.crossShard.lock(p.stx());
        after.add(() -> p.done().complete(null));
    }

    private void processDecide(Request.Decide d, List<Runnable> after) {
        CrossShardState x = state.crossShard;
        SignedTransaction stx = x.prepared(d.txId());
        if (stx == null) {
            Promise earlier = x.decision(d.txId());
            if (earlier != null && (earlier.blockNo() >= 0) == d.commit()) {
                d.done().complete(!d.commit() ? null : earlier.blockNo() > 0
                        ? new Promise(earlier.txId(), earlier.shard(), earlier.blockNo(), servedFor(earlier.blockNo()))
                        : earlier);
            } else if (earlier != null) {
                counters.abort(d.done(), new TxnException(Reason.ALREADY_DECIDED, "transaction " + d.txId().hex()
                        + " was already decided the other way"));
            } else {
                counters.abort(d.done(), new TxnException(Reason.UNKNOWN_TRANSACTION, "no prepared transaction "
                        + d.txId().hex()));
            }
            return;
        }
        x.unlock(stx);
        if (!d.commit()) {
            log.append(Wal.DECIDE_ABORT, d.txId().toByteArray());
            x.decide(d.txId(), state.promise(d.txId(), -1));
            after.add(() -> d.done().complete(null));
            return;
        }
        log.append(Wal.DECIDE_COMMIT, d.txId().toByteArray());
        Promise p;
        if (stx.tx().isReadOnly()) {
            p = state.promise(d.txId(), 0);
            counters.readOnly.increment();
            after.add(() -> d.done().complete(p));
        } else {
            long b = state.blocks.assign(stx);
            state.updatePromisedBound();
            List<CommittedData.Ver> staged = state.data.stage(stx, b, false);
            p = state.promise(d.txId(), b);
            after.add(() -> publish(staged, p, d.done(), false));
        }
        x.decide(d.txId(), p);
    }

    private void processResolve(Request.Resolve q, List<Runnable> after) {
        Bytes id = q.txId();
        CrossShardState x = state.crossShard;
        if (x.isPrepared(id)) {
            processDecide(new Request.Decide(id, false, new CompletableFuture<>()), after);
        } else if (!x.isDecided(id) && !state.validator.seen(id)) {
            if (Transaction.idMillis(id) < cfg.clock().getAsLong() - TxnEngine.DECISION_RETENTION_MILLIS) {
                after.add(() -> q.done().complete(TxState.UNKNOWN));
                return;
            }
            log.append(Wal.OUTCOME, CrossShardState.outcomeRecord(id, -1));
            x.decide(id, state.promise(id, -1));
        }
        TxState s = statusOf(id);
        after.add(() -> q.done().complete(s));  // after the batch's fsync: the answer is durable
    }

    private void processSeal(Request.Seal s, List<Runnable> after)
            throws EngineLog.LostLeadership, InterruptedException {
        if (state.blocks.isEmpty()) {
            s.done().complete(null);
            return;
        }
        long ts = state.nextSealTimestamp();
        log.append(Wal.SEAL, new ByteWriter(8).u64(ts).toByteArray());
        BlockSequencer.Epoch e = state.seal(ts);
        log.sealed();
        after.add(() -> {
            persister.sealed(e);
            s.done().complete(e);
        });
    }

    /** Runs once the batch is durable: readers see the writes, and the client gets its promise. */
    private void publish(List<CommittedData.Ver> staged, Promise p, CompletableFuture<Promise> done,
                         boolean persistNow) {
        CommittedData.publish(staged);
        counters.committed.increment();
        if (!persistNow) {
            done.complete(p);
            return;
        }
        persister.awaitPersisted(p.blockNo()).whenComplete((x, err) -> {
            if (err != null) {
                done.completeExceptionally(err);
            } else {
                done.complete(p);
            }
        });
        persister.persistSoon();
    }

    /**
     * The served digest is that of block {@code block − 1} (or the persisted head, if lower): no later than the state
     * the transaction was validated against, so a client checks its reads where they were current. The digest at the
     * time of the question would be too new: a read overwritten after the commit would look stale.
     */
    private TxnEngine.TxStatus statusDetailOf(Bytes txId) {
        TxState s = statusOf(txId);
        long block = 0;
        if (s == TxState.COMMITTED) {
            Promise p = state.crossShard.decision(txId);
            Long b = p != null ? Long.valueOf(p.blockNo()) : state.validator.seenBlock(txId);
            block = b == null ? 0 : b;
        }
        return new TxnEngine.TxStatus(s, block, block > 0 ? servedFor(block) : ledger.digest());
    }

    /**
     * The digest a committed transaction's promise is served at when it is handed out again (its status, a repeated
     * 2PC decision): the state just before its block, or the persisted head if that is older. Its reads were current
     * there (they were locked or validated up to its block), and it is at or after any digest a client trusted
     * before sending the transaction (a leader persists what was sealed before its term before it serves). The
     * digest recorded when a replica applied the decision would not be: a follower's head lags the leader's.
     */
    private Digest servedFor(long block) {
        return ledger.digest(Math.min(block - 1, persister.persisted()));
    }

    private TxState statusOf(Bytes txId) {
        if (state.crossShard.isPrepared(txId)) {
            return TxState.PREPARED;
        }
        Promise p = state.crossShard.decision(txId);
        if (p != null) {
            return p.blockNo() >= 0 ? TxState.COMMITTED : TxState.ABORTED;
        }
        return state.validator.seen(txId) ? TxState.COMMITTED : TxState.UNKNOWN;
    }
}
