package io.glassledger.core.txn;

import io.glassledger.verify.txn.Transaction;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.MalformedException;

/**
 * What a follower checks of a committed entry of its shard's log before it applies any of it (docs/ARCHITECTURE.md
 * "Trust boundary"): the entry's encoding, every record's encoding, and for every transaction the shard it names, its
 * size and its client's signature, the checks the leader made when it admitted it. An entry that fails is applied in no
 * part: the replica quarantines it instead of failing half-way through it. Pure: no state, no I/O; thread-safe.
 */
public final class LogEntryCheck {
    private LogEntryCheck() {
    }

    /** Throws {@link MalformedException}, saying what is wrong, unless {@code entry} may be applied by {@code cfg}'s shard. */
    public static void check(byte[] entry, EngineConfig cfg) {
        ReplicatedLog.Entry e = ReplicatedLog.decode(entry);
        int i = 0;
        for (Wal.Record r : e.records()) {
            try {
                checkRecord(r, cfg);
            } catch (MalformedException x) {
                throw new MalformedException("record " + i + " (type " + r.type() + "): " + x.getMessage());
            } catch (RuntimeException x) {
                throw new MalformedException("record " + i + " (type " + r.type() + ") cannot be read: " + x);
            }
            i++;
        }
    }

    private static void checkRecord(Wal.Record r, EngineConfig cfg) {
        byte[] p = r.payload();
        switch (r.type()) {
            case Wal.COMMIT, Wal.PREPARE -> {
                SignedTransaction stx = SignedTransaction.decode(p);
                if (stx.tx().shard() != cfg.shard()) {
                    throw new MalformedException("a transaction for shard " + stx.tx().shard() + " in shard "
                            + cfg.shard() + "'s log");
                }
                if (stx.size() > cfg.maxTxBytes()) {
                    throw new MalformedException("a transaction of " + stx.size() + " bytes, over the limit of "
                            + cfg.maxTxBytes());
                }
                if (cfg.verifySignatures() && !stx.signatureValid()) {
                    throw new MalformedException("transaction " + stx.txId().hex() + "'s signature does not verify "
                            + "against its client key");
                }
            }
            case Wal.DECIDE_COMMIT, Wal.DECIDE_ABORT -> length(p, Transaction.TX_ID_BYTES);
            case Wal.OUTCOME -> length(p, Transaction.TX_ID_BYTES + 8);
            case Wal.SEAL -> {
                length(p, 8);
                if (new ByteReader(p).u64() < 0) {
                    throw new MalformedException("a seal with a negative timestamp");
                }
            }
            case Wal.EXTENSION -> {
                // read by its own extension (the server's), which answers "malformed" to what it cannot read
            }
            default -> throw new MalformedException("record type " + r.type() + " cannot be in a log entry");
        }
    }

    private static void length(byte[] p, int n) {
        if (p.length != n) {
            throw new MalformedException("a payload of " + p.length + " bytes, expected " + n);
        }
    }
}
