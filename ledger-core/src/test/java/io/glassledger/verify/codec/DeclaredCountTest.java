package io.glassledger.verify.codec;

import io.glassledger.verify.txn.SignedTransaction;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.block.Block;
import io.glassledger.core.postree.Node;
import io.glassledger.verify.proof.AppendOnlyProof;
import io.glassledger.verify.proof.HistoryProof;
import io.glassledger.verify.txn.Transaction;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Every decoder sizes its allocations by its input, never by a declared count alone: a few bytes that declare a huge
 * count are refused with {@link MalformedException} before anything that large is allocated. The allocation is
 * measured on this thread (HotSpot's per-thread allocation counter).
 */
class DeclaredCountTest {
    /** Far below what any of these declared counts would cost (the smallest, 2^16 references, is 256 KiB). */
    private static final long BUDGET = 64 << 10;

    private static void refusedCheaply(byte[] input, java.util.function.Consumer<byte[]> decoder) {
        Executable run = () -> decoder.accept(input);
        assertThrows(MalformedException.class, run);  // warms up class loading outside the measurement
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = mx.getCurrentThreadAllocatedBytes();
        assertThrows(MalformedException.class, run);
        long used = mx.getCurrentThreadAllocatedBytes() - before;
        assertTrue(used < BUDGET, "decoding " + input.length + " bytes allocated " + used + " bytes");
    }

    private static byte[] concat(byte[]... parts) {
        ByteWriter w = new ByteWriter();
        for (byte[] p : parts) {
            w.raw(p);
        }
        return w.toByteArray();
    }

    private static byte[] varint(long v) {
        return new ByteWriter().varint(v).toByteArray();
    }

    @Test
    void count_declaringTwoToThe31Items_refusedWithoutAllocating() {
        byte[] tiny = concat(varint(Integer.MAX_VALUE), new byte[5]);
        refusedCheaply(tiny, b -> new ByteReader(b).count(Integer.MAX_VALUE, 1));
    }

    @Test
    void leafNode_declaringTwoToThe20Entries_refused() {
        refusedCheaply(concat(new byte[] {0}, varint(1 << 20), new byte[8]), Node::decode);
    }

    @Test
    void indexNode_declaringTwoToThe20Children_refused() {
        refusedCheaply(concat(new byte[] {1}, varint(1 << 20), new byte[8]), Node::decode);
    }

    @Test
    void block_declaringTwoToThe24Transactions_refused() {
        byte[] rec = concat(new byte[32], new byte[] {1}, new byte[8], varint((1 << 24) - 1), new byte[4]);
        refusedCheaply(rec, b -> Block.decode(1, b));
    }

    @Test
    void blockTransactions_declaringTwoToThe24Records_refused() {
        refusedCheaply(concat(varint(1 << 24), new byte[4]), b -> SignedTransaction.decodeList(Bytes.wrap(b)));
    }

    @Test
    void transaction_declaringTwoToThe16Reads_refused() {
        byte[] tx = concat(new byte[] {1}, new byte[16 + 32], varint(0), varint(1), varint(0), varint(1 << 16),
                new byte[4]);
        refusedCheaply(tx, Transaction::decode);
    }

    @Test
    void historyProof_declaringTwoToThe16OlderProofs_refused() {
        // type 3, keys proof (type 1, block 0, anchor 0 + tail, empty lower proof), then the count
        byte[] p = concat(new byte[] {3, 1, 0, 0}, new byte[32], new byte[] {0}, varint(1 << 16), new byte[4]);
        refusedCheaply(p, HistoryProof::decode);
    }

    @Test
    void appendOnlyProof_pathLongerThanItsBytes_refused() {
        byte[] p = concat(new byte[] {2, 1, 2}, new byte[5 * 32], varint(128), new byte[40]);
        assertThrows(MalformedException.class, () -> AppendOnlyProof.decode(p));
    }

    @Test
    void block_negativeTimestamp_isMalformed() {
        byte[] rec = concat(new byte[32], new byte[] {1, (byte) 0x80}, new byte[7], varint(0), varint(0));
        assertThrows(MalformedException.class, () -> Block.decode(1, rec));
    }

    @Test
    void block_emptyMetaKey_isMalformed() {
        byte[] rec = concat(new byte[32], new byte[] {1}, new byte[8], varint(0), varint(1), varint(0), varint(0));
        assertThrows(MalformedException.class, () -> Block.decode(1, rec));
    }
}
