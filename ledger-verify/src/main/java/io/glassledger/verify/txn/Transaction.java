package io.glassledger.verify.txn;

import static io.glassledger.verify.format.FormatRule.TX_KEY_EMPTY;
import static io.glassledger.verify.format.FormatRule.TX_KEY_TOO_LONG;
import static io.glassledger.verify.format.FormatRule.TX_OPS_OVER_LIMIT;
import static io.glassledger.verify.format.FormatRule.TX_OP_UNKNOWN;
import static io.glassledger.verify.format.FormatRule.TX_PARTICIPANTS_DUPLICATE;
import static io.glassledger.verify.format.FormatRule.TX_PARTICIPANTS_OVER_1024;
import static io.glassledger.verify.format.FormatRule.TX_READS_DUPLICATE;
import static io.glassledger.verify.format.FormatRule.TX_READS_UNSORTED;
import static io.glassledger.verify.format.FormatRule.TX_SHARD_NOT_PARTICIPANT;
import static io.glassledger.verify.format.FormatRule.TX_SHARD_OVER_LIMIT;
import static io.glassledger.verify.format.FormatRule.TX_TRAILING;
import static io.glassledger.verify.format.FormatRule.TX_VALUE_TOO_LONG;
import static io.glassledger.verify.format.FormatRule.TX_VERSION_UNKNOWN;
import static io.glassledger.verify.format.FormatRule.TX_WRITES_DUPLICATE;
import static io.glassledger.verify.format.FormatRule.TX_WRITES_UNSORTED;

import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.crypto.Ed25519;
import io.glassledger.verify.format.FormatRule;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hashing;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;
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
        if ((shard < 0 || participants.stream().anyMatch(p -> p < 0)) && TX_SHARD_OVER_LIMIT.enforced()) {
            throw new IllegalArgumentException("shards are numbered 0.." + Integer.MAX_VALUE);
        }
        if (participants.size() > MAX_PARTICIPANTS && TX_PARTICIPANTS_OVER_1024.enforced()) {
            throw new IllegalArgumentException("more than " + MAX_PARTICIPANTS + " participants");
        }
        if (new HashSet<>(participants).size() != participants.size() && TX_PARTICIPANTS_DUPLICATE.enforced()) {
            throw new IllegalArgumentException("participants must be distinct");
        }
        if (!participants.contains(shard) && TX_SHARD_NOT_PARTICIPANT.enforced()) {
            throw new IllegalArgumentException("participants must include shard " + shard);
        }
        if (reads.size() + writes.size() > MAX_OPS && TX_OPS_OVER_LIMIT.enforced()) {
            throw new IllegalArgumentException("more than " + MAX_OPS + " operations");
        }
        for (int i = 1; i < reads.size(); i++) {
            checkOrder(reads.get(i - 1).key(), reads.get(i).key(), TX_READS_UNSORTED, TX_READS_DUPLICATE, "reads");
        }
        for (int i = 0; i < writes.size(); i++) {
            Mutation m = writes.get(i);
            checkKey(m.key());
            if (m.value() != null && m.value().length() > Entry.MAX_VALUE_BYTES && TX_VALUE_TOO_LONG.enforced()) {
                throw new IllegalArgumentException("value exceeds " + Entry.MAX_VALUE_BYTES + " bytes");
            }
            if (i > 0) {
                checkOrder(writes.get(i - 1).key(), m.key(), TX_WRITES_UNSORTED, TX_WRITES_DUPLICATE, "writes");
            }
        }
    }

    private static void checkKey(Bytes key) {
        if (key.length() == 0 && TX_KEY_EMPTY.enforced()
                || key.length() > Entry.MAX_KEY_BYTES && TX_KEY_TOO_LONG.enforced()) {
            throw new IllegalArgumentException("key must be 1.." + Entry.MAX_KEY_BYTES + " bytes");
        }
    }

    /** Keys of reads, or of writes, are strictly increasing: sorted, and no key twice. */
    private static void checkOrder(Bytes previous, Bytes key, FormatRule unsorted, FormatRule duplicate, String what) {
        int cmp = previous.compareTo(key);
        if (cmp > 0 && unsorted.enforced() || cmp == 0 && duplicate.enforced()) {
            throw new IllegalArgumentException(what + " must be sorted by key, without duplicates");
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
        return decode(data, null);
    }

    /**
     * The transaction's signed form (FORMAT.md §14.2) from its encoding: the encoding with each put's
     * {@code lp(value)} replaced by the value's hash {@code H(03 || value)}, every other byte as it is. What a client
     * signs and a block's {@code txs} binds, so that a value can later be erased without breaking either.
     *
     * @throws MalformedException if the encoding does not decode
     */
    public static byte[] signedForm(byte[] encoding) {
        ByteWriter w = new ByteWriter(encoding.length);
        decode(encoding, w);
        return w.toByteArray();
    }

    /** Decodes; when {@code signed} is not null, writes the signed form into it as it goes. */
    private static Transaction decode(byte[] data, ByteWriter signed) {
        ByteReader r = new ByteReader(data);
        int copied = 0;
        if (r.u8() != ENCODING_VERSION && TX_VERSION_UNKNOWN.enforced()) {
            throw new MalformedException("unknown transaction encoding version");
        }
        Bytes id = r.bytes(TX_ID_BYTES);
        Bytes client = r.bytes(Ed25519.PUBLIC_KEY_BYTES);
        int shard = r.varint(Integer.MAX_VALUE, TX_SHARD_OVER_LIMIT);
        int np = r.count(MAX_PARTICIPANTS, 1, TX_PARTICIPANTS_OVER_1024);
        List<Integer> parts = new ArrayList<>(np);
        for (int i = 0; i < np; i++) {
            parts.add(r.varint(Integer.MAX_VALUE, TX_SHARD_OVER_LIMIT));
        }
        // The reads' and the writes' counts are each within the limit on their sum, checked below.
        int nr = r.count(MAX_OPS, 2, TX_OPS_OVER_LIMIT);
        List<Read> reads = new ArrayList<>(nr);
        for (int i = 0; i < nr; i++) {
            Bytes k = r.lengthPrefixed(Entry.MAX_KEY_BYTES, TX_KEY_TOO_LONG);
            reads.add(newRead(k, r.varint()));
        }
        int nw = r.count(MAX_OPS, 2, TX_OPS_OVER_LIMIT);
        List<Mutation> writes = new ArrayList<>(nw);
        for (int i = 0; i < nw; i++) {
            Bytes k = r.lengthPrefixed(Entry.MAX_KEY_BYTES, TX_KEY_TOO_LONG);
            int op = r.u8();
            if (op == 0) {
                int valueAt = r.position();
                long n = r.varint();
                if (n > Entry.MAX_VALUE_BYTES && TX_VALUE_TOO_LONG.enforced()) {
                    throw new ValueTooLongException(n);
                }
                Bytes value = r.bytes((int) n);
                writes.add(Mutation.put(k, value));
                if (signed != null) {
                    signed.raw(data, copied, valueAt - copied).hash(Hashing.value(value.unsafeArray(), 0,
                            value.length()));
                    copied = r.position();
                }
            } else if (op == 1 || !TX_OP_UNKNOWN.enforced()) {
                writes.add(Mutation.delete(k));
            } else {
                throw new MalformedException("unknown write operation " + op);
            }
        }
        r.expectEnd(TX_TRAILING);
        if (signed != null) {
            signed.raw(data, copied, data.length - copied);
        }
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
