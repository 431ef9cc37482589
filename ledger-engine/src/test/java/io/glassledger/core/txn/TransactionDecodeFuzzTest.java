package io.glassledger.core.txn;

import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.Transaction;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.hash.Bytes;
import java.util.Arrays;
import java.util.List;

/**
 * Signed transactions arrive from clients (commit, prepare) and, inside blocks, reach auditors: the transaction
 * encoding (FORMAT.md §14.1), the signed record (§14.2) and a block's transaction list (§14.3). Each decoder either
 * returns the value whose canonical encoding is the input, or throws {@link MalformedException}.
 */
class TransactionDecodeFuzzTest {
    @FuzzTest(maxDuration = "10s")
    void decode(byte[] data) {
        try {
            Transaction tx = Transaction.decode(data);
            assertArrayEquals(data, tx.encode(), "a transaction has one encoding");
        } catch (MalformedException expected) {
            // the documented failure
        }
        try {
            SignedTransaction stx = SignedTransaction.decode(data);
            byte[] sig = Arrays.copyOfRange(data, data.length - 64, data.length);
            assertArrayEquals(data, new ByteWriter().lengthPrefixed(stx.tx().encode()).raw(sig).toByteArray(),
                    "a signed transaction record has one encoding");
            stx.signatureValid();
        } catch (MalformedException expected) {
            // the documented failure
        }
        try {
            List<SignedTransaction> txs = SignedTransaction.decodeList(Bytes.wrap(data));
            ByteWriter w = new ByteWriter().varint(txs.size());
            txs.forEach(t -> w.lengthPrefixed(t.record()));
            assertArrayEquals(data, w.toByteArray(), "a block's transaction list has one encoding");
        } catch (MalformedException expected) {
            // the documented failure
        }
    }
}
