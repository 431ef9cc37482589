package io.glassledger.core.audit;

import io.glassledger.core.hash.Bytes;
import io.glassledger.core.ledger.Block;
import io.glassledger.core.ledger.BlockSpec;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.core.txn.BlockSequencer;
import io.glassledger.core.txn.SignedTransaction;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * GlassDB's VerifyBlock as a function: a shard's block {@code theirs} with the signed transactions it carries is
 * checked (each for this shard, validly signed, by a registered key; the ids those of the block) and re-executed on
 * the auditor's own ledger, whose resulting block must hash the same. Needs no network and no Spring: the auditor
 * service and {@code benchmark/run audit} both use it.
 */
public final class BlockAudit {
    /**
     * The result: {@code kind} null when the block matched (then {@code mine} is the auditor's block, now appended),
     * else one of {@code bad_block}, {@code bad_signature}, {@code unregistered_key}, {@code block_mismatch}.
     */
    public record Outcome(String kind, String detail, Block mine, int writes) {
        public boolean ok() {
            return kind == null;
        }
    }

    private BlockAudit() {
    }

    public static Outcome replay(Ledger own, int shard, Block theirs, List<SignedTransaction> txs,
                                 Predicate<Bytes> registered) {
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
        BlockSpec spec = BlockSequencer.spec(theirs.timestamp(), txs);
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
        return new Outcome(null, null, mine, spec.writes().size());
    }
}
