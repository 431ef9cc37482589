package io.glassledger.core.audit;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.block.Block;
import io.glassledger.verify.block.BlockSpec;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.Transaction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * GlassDB's VerifyBlock as a function: a shard's block {@code theirs} with the signed transactions it carries is
 * checked and re-executed on the auditor's own ledger, whose resulting block must hash the same. Checked, in order:
 * <ol>
 *   <li>each transaction is for this shard, validly signed, by a registered key; the ids are the block's;</li>
 *   <li>no transaction is a replay: its id lies within the replay window of the block's timestamp, and no earlier
 *       audited block (nor this one) carried it ({@link RecentTxIds});</li>
 *   <li>the block is a serial step (FORMAT.md §15.2): replaying the transactions in order on the audited state, each
 *       read finds exactly the version it recorded;</li>
 *   <li>re-executing the writes gives the block's hash.</li>
 * </ol>
 * Needs no network and no Spring: the auditor service and {@code benchmark/run audit} both use it.
 */
public final class BlockAudit {
    /**
     * The result: {@code kind} null when the block matched (then {@code mine} is the auditor's block, now appended),
     * else one of {@code bad_block}, {@code bad_signature}, {@code unregistered_key}, {@code replayed_transaction},
     * {@code stale_read}, {@code block_mismatch}. For a replay or a stale read, {@code txId} names the transaction;
     * {@code earlierBlock} the block that carried a replayed id before; {@code key} and {@code version} the stale
     * read and the version the audited state had there.
     */
    public record Outcome(String kind, String detail, Block mine, int writes, Bytes txId, Long earlierBlock,
                          Bytes key, Long version) {
        Outcome(String kind, String detail, Block mine, int writes) {
            this(kind, detail, mine, writes, null, null, null, null);
        }

        public boolean ok() {
            return kind == null;
        }
    }

    private BlockAudit() {
    }

    /**
     * Audits block {@code theirs}, the block after {@code own}'s head. On success the block is appended to
     * {@code own} and its ids to {@code recent}; on failure neither changes.
     */
    public static Outcome replay(Ledger own, int shard, Block theirs, List<SignedTransaction> txs,
                                 Predicate<Bytes> registered, RecentTxIds recent) {
        long n = theirs.number();
        if (n != own.head().block().number() + 1) {
            return new Outcome("bad_block", "block " + n + " does not follow the audited block "
                    + own.head().block().number(), null, 0);
        }
        List<Bytes> ids = new ArrayList<>(txs.size());
        for (SignedTransaction stx : txs) {
            ids.add(stx.txId());
            if (stx.tx().shard() != shard) {
                return new Outcome("bad_block", "transaction " + stx.txId().hex() + " is for shard "
                        + stx.tx().shard(), null, 0);
            }
            if (!stx.signatureValid()) {
                return new Outcome("bad_signature", "transaction " + stx.txId().hex() + " is not signed by its "
                        + "client key " + stx.tx().clientKey().hex(), null, 0);
            }
            if (!registered.test(stx.tx().clientKey())) {
                return new Outcome("unregistered_key", "transaction " + stx.txId().hex() + " is signed by "
                        + stx.tx().clientKey().hex() + ", which no client registered", null, 0);
            }
        }
        if (!ids.equals(theirs.txIds())) {
            return new Outcome("block_mismatch", "block " + n + " lists other transaction ids than the "
                    + "transactions it carries", null, 0);
        }
        Outcome replayed = replays(n, theirs.timestamp(), ids, recent);
        if (replayed != null) {
            return replayed;
        }
        Outcome stale = staleRead(own, n, txs);
        if (stale != null) {
            return stale;
        }
        BlockSpec spec = BlockSpec.of(theirs.timestamp(), txs);
        Block mine;
        try {
            mine = own.append(List.of(spec)).get(0);
        } catch (IllegalArgumentException e) {
            return new Outcome("bad_block", "block " + n + " cannot be formed from its transactions: "
                    + e.getMessage(), null, 0);
        }
        if (!mine.hash().equals(theirs.hash())) {
            return new Outcome("block_mismatch", "re-executing block " + n + "'s signed transactions gives lower "
                    + "root " + mine.lowerRoot().hex() + "; the shard's block says " + theirs.lowerRoot().hex(), mine,
                    spec.writes().size());
        }
        recent.add(n, theirs.timestamp(), ids);
        return new Outcome(null, null, mine, spec.writes().size());
    }

    private static Outcome replays(long n, long timestamp, List<Bytes> ids, RecentTxIds recent) {
        Set<Bytes> inBlock = new HashSet<>();
        for (Bytes id : ids) {
            if (!recent.inWindow(id, timestamp)) {
                return new Outcome("replayed_transaction", "transaction " + id.hex() + " has id clock "
                        + Transaction.idMillis(id) + ", " + Math.abs(timestamp - Transaction.idMillis(id))
                        + " ms from block " + n + "'s timestamp " + timestamp + ", outside the replay window of "
                        + recent.windowMillis() + " ms", null, 0, id, null, null, null);
            }
            Long earlier = recent.seenIn(id);
            if (earlier != null || !inBlock.add(id)) {
                long first = earlier != null ? earlier : n;
                return new Outcome("replayed_transaction", "transaction " + id.hex() + " of block " + n
                        + " was already committed in block " + first, null, 0, id, first, null, null);
            }
        }
        return null;
    }

    /**
     * Replays the block's transactions in order on the audited state (the head, block n − 1, plus the writes of
     * the block's earlier transactions, whose version is n): each read must find the version it recorded.
     */
    private static Outcome staleRead(Ledger own, long n, List<SignedTransaction> txs) {
        Map<Bytes, Boolean> written = new HashMap<>();  // key -> live after this block's writes so far
        for (SignedTransaction stx : txs) {
            for (Transaction.Read r : stx.tx().reads()) {
                long now;
                if (written.containsKey(r.key())) {
                    now = n;
                } else {
                    Entry e = own.latestEntry(r.key());
                    now = e == null ? 0 : e.version();
                }
                if (now != r.version()) {
                    return new Outcome("stale_read", "transaction " + stx.txId().hex() + " of block " + n + " read "
                            + "key " + r.key() + " at version " + r.version() + ", but replaying the blocks in order "
                            + "the key is at version " + now + " there: the block is not a step of one serial order",
                            null, 0, stx.txId(), null, r.key(), now);
                }
            }
            for (Mutation m : stx.tx().writes()) {
                if (!m.isDelete()) {
                    written.put(m.key(), true);
                } else if (liveNow(own, written, m.key())) {
                    written.put(m.key(), false);  // a delete of a key absent writes no version (FORMAT.md §3)
                }
            }
        }
        return null;
    }

    private static boolean liveNow(Ledger own, Map<Bytes, Boolean> written, Bytes key) {
        Boolean w = written.get(key);
        if (w != null) {
            return w;
        }
        Entry e = own.latestEntry(key);
        return e != null && !e.isTombstone();
    }
}
