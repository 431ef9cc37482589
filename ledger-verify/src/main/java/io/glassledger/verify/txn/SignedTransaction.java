package io.glassledger.verify.txn;

import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.crypto.Ed25519;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.format.FormatRule;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A transaction with its client's Ed25519 signature over {@code "GLTX" || signed form} (FORMAT.md §14.2), the signed
 * form being the encoding with each put's value replaced by its hash ({@link Transaction#signedForm}). The record
 * form, {@code varint n || encoding[n] || signature[64]}, is what the WAL and the block's transaction list keep, so
 * an auditor checks the client's signature on the values it holds; the signature, and a block's {@code txs} hash
 * ({@link #transactionsHash}), need only the values' hashes, so a value can later be erased without breaking them.
 */
public final class SignedTransaction {
    static final byte[] DOMAIN = {'G', 'L', 'T', 'X'};
    public static final int MAX_RECORD_BYTES = 64 << 20;

    private final Transaction tx;
    private final byte[] record;
    private final int encodingOffset;
    private final int encodingLength;
    /** The signed form, made on first use (a signature check, a block's txs hash). */
    private byte[] signedForm;

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
        byte[] signed = Transaction.signedForm(enc);
        byte[] sig = key.sign(message(signed));
        byte[] rec = new ByteWriter(enc.length + 72).lengthPrefixed(enc).raw(sig).toByteArray();
        SignedTransaction s = new SignedTransaction(tx, rec, rec.length - Ed25519.SIGNATURE_BYTES - enc.length,
                enc.length);
        s.signedForm = signed;
        return s;
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
        byte[] msg = message(signedForm());
        return Ed25519.verify(tx.clientKey(), msg, 0, msg.length, record, encodingOffset + encodingLength);
    }

    /** {@code "GLTX" || signed form}: the message a client signs (FORMAT.md §14.2). */
    private static byte[] message(byte[] signedForm) {
        byte[] msg = new byte[DOMAIN.length + signedForm.length];
        System.arraycopy(DOMAIN, 0, msg, 0, DOMAIN.length);
        System.arraycopy(signedForm, 0, msg, DOMAIN.length, signedForm.length);
        return msg;
    }

    /** The signed form (FORMAT.md §14.2); callers must not modify it. */
    public byte[] signedForm() {
        byte[] f = signedForm;
        if (f == null) {
            f = Transaction.signedForm(Arrays.copyOfRange(record, encodingOffset, encodingOffset + encodingLength));
            signedForm = f;
        }
        return f;
    }

    /**
     * A block's {@code txs} meta value (FORMAT.md §14.3): {@code H(40 || varint n || n × lp(hashed record))}, a hashed
     * record being {@code lp(signed form) || signature}. Values enter it only by their hashes.
     */
    public static Hash transactionsHash(List<SignedTransaction> txs) {
        int size = 8;
        for (SignedTransaction s : txs) {
            size += s.signedForm().length + Ed25519.SIGNATURE_BYTES + 10;
        }
        ByteWriter w = new ByteWriter(size);
        w.varint(txs.size());
        for (SignedTransaction s : txs) {
            byte[] f = s.signedForm();
            int hashed = ByteWriter.varintSize(f.length) + f.length + Ed25519.SIGNATURE_BYTES;
            w.varint(hashed).varint(f.length).raw(f).raw(s.record, s.record.length - Ed25519.SIGNATURE_BYTES,
                    Ed25519.SIGNATURE_BYTES);
        }
        return Hashing.transactions(w.toByteArray());
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
