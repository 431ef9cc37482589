package io.glassledger.verify.txn;

import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.entry.Mutation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A transaction being built on the client: the versions it read and the writes it buffers, signed at the end. The
 * first read of a key fixes its version; the last write of a key wins. Not thread-safe.
 */
public final class TxnDraft {
    private final SigningKey key;
    private final int shard;
    private final List<Integer> participants;
    private final Bytes txId;
    private final TreeMap<Bytes, Long> reads = new TreeMap<>();
    private final TreeMap<Bytes, Mutation> writes = new TreeMap<>();

    public TxnDraft(SigningKey key, int shard, long nowMillis) {
        this(key, shard, List.of(shard), Transaction.newTxId(nowMillis));
    }

    public TxnDraft(SigningKey key, int shard, List<Integer> participants, Bytes txId) {
        this.key = key;
        this.shard = shard;
        this.participants = List.copyOf(participants);
        this.txId = txId;
    }

    public Bytes txId() {
        return txId;
    }

    public TxnDraft read(Bytes k, long version) {
        reads.putIfAbsent(k, version);
        return this;
    }

    public TxnDraft put(Bytes k, Bytes value) {
        writes.put(k, Mutation.put(k, value));
        return this;
    }

    public TxnDraft delete(Bytes k) {
        writes.put(k, Mutation.delete(k));
        return this;
    }

    public Transaction transaction() {
        List<Transaction.Read> rs = new ArrayList<>(reads.size());
        for (Map.Entry<Bytes, Long> e : reads.entrySet()) {
            rs.add(new Transaction.Read(e.getKey(), e.getValue()));
        }
        return new Transaction(txId, key.publicKey(), shard, participants, rs, new ArrayList<>(writes.values()));
    }

    public SignedTransaction sign() {
        return SignedTransaction.sign(transaction(), key);
    }
}
