package io.glassledger.verify.txn;

import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.crypto.Ed25519;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.format.FormatRule;
import io.glassledger.verify.hash.Bytes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A transaction with its client's Ed25519 signature over {@code "GLTX" || encoding} (FORMAT.md §14). The record
 * form, {@code varint n || encoding[n] || signature[64]}, is what the WAL and the block's transaction list keep, so
 * an auditor checks exactly the bytes the client signed.
 */
public final class SignedTransaction {
    static final byte[] DOMAIN = {'G', 'L', 'T', 'X'};
    public static final int MAX_RECORD_BYTES = 64 << 20;

    private final Transaction tx;
    private final byte[] record;
    private final int encodingOffset;
    private final int encodingLength;

    private SignedTransaction(Transaction tx, byte[] record, int encodingOffset, int encodingLength) {
        this.tx = tx;
        this.record = record;
        this.encodingOffset = encodingOffset;
        this.encodingLength = encodingLength;
    }

    public static SignedTransaction sign(Transaction tx, SigningKey key) {
        if (!key.publicKey().equals(tx.clientKey())) {
            throw new IllegalArgumentException("the transaction names another client key");
        }
        byte[] enc = tx.encode();
        byte[] msg = new byte[DOMAIN.length + enc.length];
        System.arraycopy(DOMAIN, 0, msg, 0, DOMAIN.length);
        System.arraycopy(enc, 0, msg, DOMAIN.length, enc.length);
        byte[] sig = key.sign(msg);
        byte[] rec = new ByteWriter(enc.length + 72).lengthPrefixed(enc).raw(sig).toByteArray();
        return new SignedTransaction(tx, rec, rec.length - Ed25519.SIGNATURE_BYTES - enc.length, enc.length);
    }

    /** Parses a record; the signature is not checked here (see {@link #signatureValid()}). */
    public static SignedTransaction decode(byte[] record) {
        ByteReader r = new ByteReader(record);
        int n = r.varint(MAX_RECORD_BYTES, FormatRule.RECORD_LENGTH_OVER_LIMIT);
        int off = r.position();
        r.skip(n);
        r.skip(Ed25519.SIGNATURE_BYTES);
        // Bytes after the signature are covered by nothing: anyone could append them.
        r.expectEnd(FormatRule.RECORD_TRAILING);
        Transaction tx = Transaction.decode(Arrays.copyOfRange(record, off, off + n));
        return new SignedTransaction(tx, record.clone(), off, n);
    }

    public static SignedTransaction decode(Bytes record) {
        return decode(record.unsafeArray());
    }

    public Transaction tx() {
        return tx;
    }

    public Bytes txId() {
        return tx.txId();
    }

    public boolean signatureValid() {
        byte[] msg = new byte[DOMAIN.length + encodingLength];
        System.arraycopy(DOMAIN, 0, msg, 0, DOMAIN.length);
        System.arraycopy(record, encodingOffset, msg, DOMAIN.length, encodingLength);
        return Ed25519.verify(tx.clientKey(), msg, 0, msg.length, record, encodingOffset + encodingLength);
    }

    public byte[] record() {
        return record.clone();
    }

    /** The record without a defensive copy; callers must not modify it. */
    public byte[] recordUnsafe() {
        return record;
    }

    public int size() {
        return record.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SignedTransaction s && Arrays.equals(record, s.record);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(record);
    }

    @Override
    public String toString() {
        return "SignedTransaction[" + tx.txId().hex() + ", " + tx.reads().size() + " reads, " + tx.writes().size()
                + " writes]";
    }

    /** A block's signed-transaction record (FORMAT.md §14.3): {@code varint n || n × (varint len || record)}. */
    public static byte[] encodeList(List<SignedTransaction> txs) {
        int size = 8;
        for (SignedTransaction s : txs) {
            size += s.size() + 5;
        }
        ByteWriter w = new ByteWriter(size);
        w.varint(txs.size());
        for (SignedTransaction s : txs) {
            w.lengthPrefixed(s.record);
        }
        return w.toByteArray();
    }

    /** Decodes a block's signed-transaction record (FORMAT.md §14.3), the inverse of {@link #encodeList}. */
    public static List<SignedTransaction> decodeList(Bytes record) {
        ByteReader r = new ByteReader(record.unsafeArray());
        int n = r.count(1 << 24, 1);
        List<SignedTransaction> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(decode(r.lengthPrefixed(MAX_RECORD_BYTES)));
        }
        r.expectEnd();
        return out;
    }
}
