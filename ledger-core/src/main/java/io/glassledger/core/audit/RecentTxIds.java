package io.glassledger.core.audit;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.block.Block;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.Transaction;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The transaction ids of audited blocks that a later block could still carry again: an auditor's memory for
 * catching a replayed transaction (FORMAT.md §15.3, ARCHITECTURE.md "What an auditor can and cannot detect").
 *
 * <p>A transaction id carries its client's clock (§14.1). A shard admits an id only within its replay window of its
 * own clock, and seals it into a block shortly after, so an honest block's ids all lie within {@code window} of the
 * block's timestamp, for a {@code window} that covers the shard's replay window and the delay from commit to seal.
 * An id outside that window of its block's timestamp is a replay; an id inside it that an earlier audited block
 * already carried is a replay. Block timestamps never go back, so an id older than the latest block's timestamp
 * minus the window can never again be accepted and is forgotten: the memory holds one window of ids.
 *
 * <p>Not thread-safe: one per audited shard, used by its audit thread.
 */
public final class RecentTxIds {
    private record Seen(long clock, Bytes id) {
    }

    private final long windowMillis;
    private final Map<Bytes, Long> blockOf = new HashMap<>();
    private final PriorityQueue<Seen> byClock = new PriorityQueue<>((a, b) -> Long.compare(a.clock(), b.clock()));

    public RecentTxIds(long windowMillis) {
        if (windowMillis <= 0) {
            throw new IllegalArgumentException("the replay window must be positive");
        }
        this.windowMillis = windowMillis;
    }

    public long windowMillis() {
        return windowMillis;
    }

    /** True if an id with this clock may appear in a block with this timestamp. */
    public boolean inWindow(Bytes txId, long blockTimestamp) {
        long c = Transaction.idMillis(txId);
        return c >= blockTimestamp - windowMillis && c <= blockTimestamp + windowMillis;
    }

    /** The audited block that already carried {@code txId}, or null. */
    public Long seenIn(Bytes txId) {
        return blockOf.get(txId);
    }

    /** Records the ids of an audited block and forgets the ids that no later block may carry. */
    public void add(long block, long blockTimestamp, List<Bytes> txIds) {
        for (Bytes id : txIds) {
            if (blockOf.put(id, block) == null) {
                byClock.add(new Seen(Transaction.idMillis(id), id));
            }
        }
        long floor = blockTimestamp - windowMillis;
        while (!byClock.isEmpty() && byClock.peek().clock() < floor) {
            blockOf.remove(byClock.poll().id());
        }
    }

    /** Ids remembered now (bounded by the ids of one window). */
    public int size() {
        return blockOf.size();
    }

    /**
     * Rebuilds the memory from an audited ledger, walking back from its head over every block whose timestamp is
     * within two windows of the head's (an id within one window of the head's timestamp sits in such a block).
     */
    public static RecentTxIds rebuild(Ledger own, long windowMillis) {
        RecentTxIds r = new RecentTxIds(windowMillis);
        Block head = own.head().block();
        long oldest = head.timestamp() - 2 * windowMillis;
        long first = head.number();
        while (first > 1 && own.block(first - 1).timestamp() >= oldest) {
            first--;
        }
        for (long n = first; n <= head.number() && n >= 1; n++) {
            Bytes rec = own.blockTransactions(n);
            if (rec == null) {
                continue;
            }
            List<Bytes> ids = SignedTransaction.decodeList(rec).stream().map(SignedTransaction::txId).toList();
            r.add(n, own.block(n).timestamp(), ids);
        }
        return r;
    }
}
