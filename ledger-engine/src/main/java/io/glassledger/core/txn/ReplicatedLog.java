package io.glassledger.core.txn;

import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.codec.MalformedException;
import java.util.ArrayList;
import java.util.List;

/**
 * The consensus log a replicated shard's engine writes through (docs/ARCHITECTURE.md "Replication"): the server
 * implements it on an Apache Ratis group. The engine of the group's leader validates requests as a single shard
 * does, and hands each group commit's records to {@link #replicate(byte[])} as one entry; every replica applies the
 * committed entries in log order ({@link TxnEngine#apply(long, long, byte[])}). The core module needs no Ratis.
 */
public interface ReplicatedLog {
    /** Where a committed entry sits in the log. */
    record Position(long term, long index) {
    }

    /**
     * Appends {@code entry}; the future completes once it is committed, that is held durably by a majority of the
     * group, and fails with {@link NotCommittedException} if that cannot be known: this replica is no longer the
     * leader, the group lost its quorum, or the wait timed out. The entry may still commit later; the engine then
     * treats every request of it as of unknown outcome. The engine's sequencer waits on it, taking snapshots
     * meanwhile (the log's own thread may ask for one while the entry waits to be applied).
     */
    java.util.concurrent.CompletableFuture<Position> replicate(byte[] entry);

    /** An entry whose commit could not be confirmed. */
    final class NotCommittedException extends Exception {
        private final String leader;

        public NotCommittedException(String message, String leader, Throwable cause) {
            super(message, cause);
            this.leader = leader;
        }

        /** The leader's id as this replica last knew it, or null. */
        public String leader() {
            return leader;
        }
    }

    /** The version byte every entry starts with (FORMAT.md §15.5). */
    int ENTRY_VERSION = 1;
    /** Records in one entry at most: a batch is bounded by the sequencer's drain (8,192) plus its seal. */
    int MAX_RECORDS = 1 << 16;

    /** A decoded entry: who proposed it (a leader's engine incarnation and its sequence number) and its records. */
    record Entry(long incarnation, long seq, List<Wal.Record> records) {
    }

    /**
     * {@code u8 version (1) || u64 incarnation || u64 seq || varint n || n × (u8 type || varint length ||
     * payload)}: WAL record types and payloads (FORMAT.md §15.5).
     */
    static byte[] encode(long incarnation, long seq, List<Wal.Record> records) {
        int size = 1 + 16 + 5;
        for (Wal.Record r : records) {
            size += 1 + 5 + r.payload().length;
        }
        ByteWriter w = new ByteWriter(size);
        w.u8(ENTRY_VERSION).u64(incarnation).u64(seq).varint(records.size());
        for (Wal.Record r : records) {
            w.u8(r.type()).lengthPrefixed(r.payload());
        }
        return w.toByteArray();
    }

    /** Decodes an entry; {@link MalformedException} if it is not one. */
    static Entry decode(byte[] entry) {
        ByteReader in = new ByteReader(entry);
        int version = in.u8();
        if (version != ENTRY_VERSION) {
            throw new MalformedException("log entry version " + version + ", expected " + ENTRY_VERSION);
        }
        long incarnation = in.u64();
        long seq = in.u64();
        int n = in.count(MAX_RECORDS, 2);
        List<Wal.Record> records = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int type = in.u8();
            if (type == Wal.HEADER || type > Wal.MAX_TYPE || type == Wal.BATCH_END || type == Wal.APPLIED) {
                throw new MalformedException("record type " + type + " cannot be in a log entry");
            }
            records.add(new Wal.Record(type, in.lengthPrefixed(Wal.MAX_RECORD).toByteArray()));
        }
        in.expectEnd();
        return new Entry(incarnation, seq, records);
    }

    /** The incarnation and sequence number of an entry, without decoding its records; null if it is not one. */
    static long[] origin(byte[] entry) {
        if (entry.length < 17 || (entry[0] & 0xff) != ENTRY_VERSION) {
            return null;
        }
        ByteReader in = new ByteReader(entry, 1, 17);
        return new long[] {in.u64(), in.u64()};
    }
}
