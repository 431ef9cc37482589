package io.glassledger.core.txn;

import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.Promise;
import io.glassledger.verify.hash.Bytes;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

/**
 * What the sequencer thread takes from its queue, in the order it is put there: client requests (after
 * {@link Admission}), a replica's committed log entries, role changes, and the persisting thread's seals and WAL
 * truncations. Each kind is a record; the sequencer's dispatch in {@link Sequencer} is exhaustive over them.
 */
sealed interface Request {
    /**
     * Completes this request's future exceptionally with {@code e}; requests without a future ignore it. Called when
     * the request cannot be processed: the engine failed, or (while sequencing) it is not the leader.
     */
    void fail(TxnException e);

    /** One-phase commit of a single-shard transaction. */
    record Commit(SignedTransaction stx, CompletableFuture<Promise> done, boolean persistNow) implements Request {
        @Override
        public void fail(TxnException e) {
            done.completeExceptionally(e);
        }
    }

    /** 2PC phase one. */
    record Prepare(SignedTransaction stx, CompletableFuture<Void> done) implements Request {
        @Override
        public void fail(TxnException e) {
            done.completeExceptionally(e);
        }
    }

    /** 2PC phase two. */
    record Decide(Bytes txId, boolean commit, CompletableFuture<Promise> done) implements Request {
        @Override
        public void fail(TxnException e) {
            done.completeExceptionally(e);
        }
    }

    /** The persisting thread asks the leader to seal the open epoch; null when there was nothing to seal. */
    record Seal(CompletableFuture<BlockSequencer.Epoch> done) implements Request {
        @Override
        public void fail(TxnException e) {
            done.completeExceptionally(e);
        }
    }

    /** Drop WAL segments whose epochs are all persisted (through block {@code persisted}). */
    record Truncate(long persisted) implements Request {
        @Override
        public void fail(TxnException e) {
        }
    }

    /** A transaction's state, answered in log order. */
    record Status(Bytes txId, CompletableFuture<TxnEngine.TxStatus> done) implements Request {
        @Override
        public void fail(TxnException e) {
            done.completeExceptionally(e);
        }
    }

    /** The primary participant's durable decision (see {@link TxnEngine#resolve(Bytes)}). */
    record Resolve(Bytes txId, CompletableFuture<TxState> done) implements Request {
        @Override
        public void fail(TxnException e) {
            done.completeExceptionally(e);
        }
    }

    /** A committed log entry for a replica to apply (replicated shards). */
    record Apply(long term, long index, byte[] entry, CompletableFuture<Void> done) implements Request {
        @Override
        public void fail(TxnException e) {
            done.completeExceptionally(e);
        }
    }

    /**
     * This replica became the group's leader (all earlier entries applied), or stopped being it; {@code generation}
     * orders role changes, so one put back to wait for persistence never undoes a later one.
     */
    record Role(boolean leader, String leaderHint, long generation) implements Request {
        @Override
        public void fail(TxnException e) {
        }
    }

    /** A snapshot of the applied state into {@code dir}. */
    record Snapshot(Path dir, CompletableFuture<ReplicatedLog.Position> done) implements Request {
        @Override
        public void fail(TxnException e) {
            done.completeExceptionally(e);
        }
    }

    /** A replicated shard's change other than a transaction (see {@link TxnEngine.Extension}). */
    record Extension(byte[] payload, CompletableFuture<String> done) implements Request {
        @Override
        public void fail(TxnException e) {
            done.completeExceptionally(e);
        }
    }
}
