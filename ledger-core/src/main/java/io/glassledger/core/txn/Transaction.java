package io.glassledger.core.txn;

import io.glassledger.core.codec.ByteReader;
import io.glassledger.core.codec.ByteWriter;
import io.glassledger.core.codec.MalformedException;
import io.glassledger.core.crypto.Ed25519;
import io.glassledger.core.hash.Bytes;
import io.glassledger.core.postree.Entry;
import io.glassledger.core.postree.Mutation;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

/**
 * One shard's part of a transaction, as the client signs it (FORMAT.md §14): its id, the client's public key, the
 * shard, the participant shards (the first is the primary), the keys read with the versions read, and the writes.
 * Reads and writes are each sorted by key without duplicates, so the encoding is canonical.
 *
 * <p>A version is the number of the block that holds (or will hold) the version read; 0 means the key had never been
 * written. A read of a deleted key names the block of its deletion.
 */
public record Transaction(Bytes txId, Bytes clientKey, int shard, List<Integer> participants, List<Read> reads,
                          List<Mutation> writes) {
    public static final int ENCODING_VERSION = 1;
    public static final int TX_ID_BYTES = 16;
    public static final int MAX_PARTICIPANTS = 1024;
    public static final int MAX_OPS = 1 << 16;
    private static final SecureRandom RANDOM = new SecureRandom();

    public record Read(Bytes key, long version) {
        public Read {
            checkKey(key);
            if (version < 0) {
                throw new IllegalArgumentException("read version must be non-negative");
            }
        }
    }

    public Transaction {
        if (txId.length() != TX_ID_BYTES) {
            throw new IllegalArgumentException("transaction id must be " + TX_ID_BYTES + " bytes");
        }
        if (clientKey.length() != Ed25519.PUBLIC_KEY_BYTES) {
            throw new IllegalArgumentException("client key must be an Ed25519 public key (32 bytes)");
        }
        participants = List.copyOf(participants);
        reads = List.copyOf(reads);
        writes = List.copyOf(writes);
        if (shard < 0 || participants.isEmpty() || participants.size() > MAX_PARTICIPANTS
                || !participants.contains(shard) || new HashSet<>(participants).size() != participants.size()
                || participants.stream().anyMatch(p -> p < 0)) {
            throw new IllegalArgumentException("participants must be distinct non-negative shards including " + shard);
        }
        if (reads.size() + writes.size() > MAX_OPS) {
            throw new IllegalArgumentException("more than " + MAX_OPS + " operations");
        }
        for (int i = 0; i < reads.size(); i++) {
            if (i > 0 && reads.get(i - 1).key().compareTo(reads.get(i).key()) >= 0) {
                throw new IllegalArgumentException("reads must be sorted by key, without duplicates");
            }
        }
        for (int i = 0; i < writes.size(); i++) {
            Mutation m = writes.get(i);
            checkKey(m.key());
            if (m.value() != null && m.value().length() > Entry.MAX_VALUE_BYTES) {
                throw new IllegalArgumentException("value exceeds " + Entry.MAX_VALUE_BYTES + " bytes");
            }
            if (i > 0 && writes.get(i - 1).key().compareTo(m.key()) >= 0) {
                throw new IllegalArgumentException("writes must be sorted by key, without duplicates");
            }
        }
    }

    private static void checkKey(Bytes key) {
        if (key.length() == 0 || key.length() > Entry.MAX_KEY_BYTES) {
            throw new IllegalArgumentException("key must be 1.." + Entry.MAX_KEY_BYTES + " bytes");
        }
    }

    /** A fresh id: the client's clock in ms (big-endian u64, which bounds replays) and 8 random bytes. */
    public static Bytes newTxId(long millis) {
        byte[] id = new byte[TX_ID_BYTES];
        for (int i = 0; i < 8; i++) {
            id[i] = (byte) (millis >>> (56 - 8 * i));
        }
        byte[] r = new byte[8];
        RANDOM.nextBytes(r);
        System.arraycopy(r, 0, id, 8, 8);
        return Bytes.of(id);
    }

    /** The client clock reading embedded in a transaction id. */
    public static long idMillis(Bytes txId) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (txId.at(i) & 0xff);
        }
        return v;
    }

    public boolean isReadOnly() {
        return writes.isEmpty();
    }

    public int primary() {
        return participants.get(0);
    }

    public byte[] encode() {
        ByteWriter w = new ByteWriter(64 + 48 * (reads.size() + writes.size()));
        w.u8(ENCODING_VERSION).raw(txId.unsafeArray()).raw(clientKey.unsafeArray()).varint(shard);
        w.varint(participants.size());
        for (int p : participants) {
            w.varint(p);
        }
        w.varint(reads.size());
        for (Read r : reads) {
            w.lengthPrefixed(r.key()).varint(r.version());
        }
        w.varint(writes.size());
        for (Mutation m : writes) {
            w.lengthPrefixed(m.key());
            if (m.isDelete()) {
                w.u8(1);
            } else {
                w.u8(0).lengthPrefixed(m.value());
            }
        }
        return w.toByteArray();
    }

    /** Decodes a canonical encoding; anything else (trailing bytes, unsorted keys, bad sizes) is malformed. */
    public static Transaction decode(byte[] data) {
        ByteReader r = new ByteReader(data);
        if (r.u8() != ENCODING_VERSION) {
            throw new MalformedException("unknown transaction encoding version");
        }
        Bytes id = r.bytes(TX_ID_BYTES);
        Bytes client = r.bytes(Ed25519.PUBLIC_KEY_BYTES);
        int shard = r.varint(Integer.MAX_VALUE);
        int np = r.count(MAX_PARTICIPANTS, 1);
        List<Integer> parts = new ArrayList<>(np);
        for (int i = 0; i < np; i++) {
            parts.add(r.varint(Integer.MAX_VALUE));
        }
        int nr = r.count(MAX_OPS, 2);
        List<Read> reads = new ArrayList<>(nr);
        for (int i = 0; i < nr; i++) {
            Bytes k = r.lengthPrefixed(Entry.MAX_KEY_BYTES);
            long v = r.varint();
            if (v < 0) {
                throw new MalformedException("read version out of range");
            }
            reads.add(newRead(k, v));
        }
        int nw = r.count(MAX_OPS, 2);
        List<Mutation> writes = new ArrayList<>(nw);
        for (int i = 0; i < nw; i++) {
            Bytes k = r.lengthPrefixed(Entry.MAX_KEY_BYTES);
            int op = r.u8();
            if (op == 0) {
                long n = r.varint();
                if (n > Entry.MAX_VALUE_BYTES) {
                    throw new ValueTooLongException(n);
                }
                writes.add(Mutation.put(k, r.bytes((int) n)));
            } else if (op == 1) {
                writes.add(Mutation.delete(k));
            } else {
                throw new MalformedException("unknown write operation " + op);
            }
        }
        r.expectEnd();
        try {
            return new Transaction(id, client, shard, parts, reads, writes);
        } catch (IllegalArgumentException e) {
            throw new MalformedException(e.getMessage());
        }
    }

    /**
     * An encoding whose written value is longer than {@link Entry#MAX_VALUE_BYTES}: malformed, and also what a
     * server answers as a value over its limit rather than as bytes it cannot read.
     */
    public static final class ValueTooLongException extends MalformedException {
        private final long length;

        ValueTooLongException(long length) {
            super("a written value of " + length + " bytes; at most " + Entry.MAX_VALUE_BYTES);
            this.length = length;
        }

        /** The value's length as encoded. */
        public long length() {
            return length;
        }
    }

    private static Read newRead(Bytes k, long v) {
        try {
            return new Read(k, v);
        } catch (IllegalArgumentException e) {
            throw new MalformedException(e.getMessage());
        }
    }
}
