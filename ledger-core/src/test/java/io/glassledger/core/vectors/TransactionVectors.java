package io.glassledger.core.vectors;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hashing;
import java.util.ArrayList;
import java.util.List;

/**
 * signed-transaction.json's decoding mutations (FORMAT.md §14.1): records whose signature verifies over their
 * encoding, each encoding breaking one rule of §14.1, so that only that rule rejects it. The encodings are written
 * field by field here, since the reference's {@code Transaction} cannot hold them.
 */
final class TransactionVectors {
    private TransactionVectors() {
    }

    /** One shard's part of a transaction, as §14.1 lays it out, whatever its fields hold. */
    private static final class Raw {
        int version = 1;
        Bytes txId;
        Bytes clientKey;
        long shard = 1;
        List<Long> participants = new ArrayList<>(List.of(1L, 4L));
        List<Bytes> reads = new ArrayList<>(List.of(Bytes.utf8("acct/001")));
        /** Per write: key, then the value of a put or null for a delete. */
        List<Bytes[]> writes = new ArrayList<>(List.of(new Bytes[] {Bytes.utf8("acct/002"), Bytes.utf8("100")},
                new Bytes[] {Bytes.utf8("acct/003"), null}));
        int deleteOp = 1;
        byte[] trailing = new byte[0];

        Raw(Bytes txId, Bytes clientKey) {
            this.txId = txId;
            this.clientKey = clientKey;
        }

        byte[] encode() {
            return write(false);
        }

        /** FORMAT.md §14.2's signed form, written from the text: each put's lp(value) replaced by H(03 || value). */
        byte[] signedForm() {
            return write(true);
        }

        private byte[] write(boolean signed) {
            ByteWriter w = new ByteWriter().u8(version).raw(txId.toByteArray()).raw(clientKey.toByteArray())
                    .varint(shard).varint(participants.size());
            participants.forEach(w::varint);
            w.varint(reads.size());
            for (Bytes k : reads) {
                w.lengthPrefixed(k).varint(7);
            }
            w.varint(writes.size());
            for (Bytes[] kv : writes) {
                w.lengthPrefixed(kv[0]);
                if (kv[1] == null) {
                    w.u8(deleteOp);
                } else {
                    w.u8(0);
                    if (signed) {
                        w.hash(Hashing.raw(new ByteWriter().u8(3).raw(kv[1].toByteArray()).toByteArray()));
                    } else {
                        w.lengthPrefixed(kv[1]);
                    }
                }
            }
            return w.raw(trailing).toByteArray();
        }
    }

    /**
     * Adds the decoding mutations to {@code c}, the valid record of shard 1 of participants [1, 4] with one read
     * (acct/001 at version 7), a put (acct/002 = 100) and a delete (acct/003), signed by {@code key}.
     */
    static void decodingMutations(VectorFile.Case c, SigningKey key, Bytes txId) {
        Raw r = raw(txId, key);
        r.version = 2;
        signed(c, key, r, "encoding-version-2", "encoding version 02 (only 01 exists)");
        r = raw(txId, key);
        r.trailing = new byte[1];
        signed(c, key, r, "encoding-trailing-byte", "the encoding followed by 00, inside the record's length and "
                + "signed with it");
        r = raw(txId, key);
        r.participants = new ArrayList<>(List.of(1L, 4L, 4L));
        signed(c, key, r, "participants-repeated", "participants [1, 4, 4]");
        r = raw(txId, key);
        r.participants = new ArrayList<>(List.of(4L, 5L));
        signed(c, key, r, "shard-not-a-participant", "shard 1, participants [4, 5]");
        r = raw(txId, key);
        r.participants = new ArrayList<>();
        r.participants.add(1L);
        for (long p = 0; p <= 1024; p++) {
            if (p != 1) {
                r.participants.add(p);
            }
        }
        signed(c, key, r, "participants-1025", "1025 distinct participants, 1 (the shard) first, then 0 and 2..1024");
        r = raw(txId, key);
        r.shard = 1L << 31;
        r.participants = new ArrayList<>(List.of(1L << 31, 4L));
        signed(c, key, r, "shard-2^31", "shard 2^31, participants [2^31, 4]: shard numbers are below 2^31");
        r = raw(txId, key);
        r.reads = new ArrayList<>(List.of(Bytes.utf8("acct/001"), Bytes.utf8("acct/000")));
        signed(c, key, r, "reads-unsorted", "reads acct/001, acct/000");
        r = raw(txId, key);
        r.reads = new ArrayList<>(List.of(Bytes.utf8("acct/001"), Bytes.utf8("acct/001")));
        signed(c, key, r, "reads-duplicate-key", "acct/001 read twice");
        r = raw(txId, key);
        r.writes = new ArrayList<>(List.of(new Bytes[] {Bytes.utf8("acct/003"), null},
                new Bytes[] {Bytes.utf8("acct/002"), Bytes.utf8("100")}));
        signed(c, key, r, "writes-unsorted", "the delete of acct/003 before the put of acct/002");
        r = raw(txId, key);
        r.writes = new ArrayList<>(List.of(new Bytes[] {Bytes.utf8("acct/002"), Bytes.utf8("100")},
                new Bytes[] {Bytes.utf8("acct/002"), Bytes.utf8("200")}));
        signed(c, key, r, "writes-duplicate-key", "acct/002 written twice, 100 then 200: auditors that apply both "
                + "would disagree on its value");
        r = raw(txId, key);
        r.reads = new ArrayList<>(List.of(Bytes.EMPTY, Bytes.utf8("acct/001")));
        signed(c, key, r, "read-key-empty", "a read of the empty key before acct/001");
        r = raw(txId, key);
        r.writes.add(new Bytes[] {Bytes.wrap(InvalidEncodings.filled(1025, 'z')), null});
        signed(c, key, r, "write-key-1025-bytes", "a third write: the delete of a 1025-byte key");
        r = raw(txId, key);
        r.deleteOp = 2;
        signed(c, key, r, "op-byte-2", "the delete's op byte 02 (only 00 put and 01 delete exist)");
        r = raw(txId, key);
        r.reads = new ArrayList<>();
        r.writes = new ArrayList<>();
        for (int i = 0; i < 32768; i++) {
            r.reads.add(Bytes.wrap(new byte[] {(byte) (i >> 8), (byte) i}));
        }
        for (int i = 0; i <= 32768; i++) {
            r.writes.add(new Bytes[] {Bytes.wrap(new byte[] {(byte) (i >> 8), (byte) i}), null});
        }
        signed(c, key, r, "ops-65537", "32768 reads and 32769 deletes (2-byte keys 0000...): each count within "
                + "65536, their sum over it");
    }

    private static Raw raw(Bytes txId, SigningKey key) {
        return new Raw(txId, key.publicKey());
    }

    /** The record of {@code r}'s encoding with {@code key}'s valid signature over it. */
    private static void signed(VectorFile.Case c, SigningKey key, Raw r, String name, String why) {
        byte[] enc = r.encode();
        byte[] msg = new ByteWriter(enc.length + 4).raw(new byte[] {'G', 'L', 'T', 'X'}).raw(r.signedForm())
                .toByteArray();
        byte[] record = new ByteWriter(enc.length + 72).lengthPrefixed(enc).raw(key.sign(msg)).toByteArray();
        ObjectNode o = Json.object();
        o.put("record", Json.hex(record));
        c.invalid(name, why + "; signed", o);
    }
}
