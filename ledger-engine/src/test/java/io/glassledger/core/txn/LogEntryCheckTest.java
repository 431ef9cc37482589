package io.glassledger.core.txn;

import io.glassledger.verify.txn.SignedTransaction;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.codec.MalformedException;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** What a follower checks of a committed entry before applying any of it (LogEntryCheck). */
class LogEntryCheckTest {
    private static final EngineConfig CFG = EngineConfig.defaults(Path.of("unused")).withShard(0);

    private static SignedTransaction tx(String tag) {
        return CrashChild.tx(CrashChild.clientKey(), tag, new TreeSet<>(List.of("k-" + tag)), null, 0);
    }

    private static byte[] entry(Wal.Record... records) {
        return ReplicatedLog.encode(7, 1, List.of(records));
    }

    private static byte[] seal(long ts) {
        return new ByteWriter(8).u64(ts).toByteArray();
    }

    @Test
    void check_wellFormedEntry_passes() {
        byte[] e = entry(new Wal.Record(Wal.COMMIT, tx("a").record()), new Wal.Record(Wal.PREPARE, tx("b").record()),
                new Wal.Record(Wal.DECIDE_ABORT, tx("b").txId().toByteArray()),
                new Wal.Record(Wal.SEAL, seal(System.currentTimeMillis())));
        assertDoesNotThrow(() -> LogEntryCheck.check(e, CFG));
    }

    @Test
    void check_forgedSignature_throws() {
        byte[] rec = tx("a").record();
        rec[rec.length - 1] ^= 1;  // the signature's last byte
        MalformedException x = assertThrows(MalformedException.class,
                () -> LogEntryCheck.check(entry(new Wal.Record(Wal.COMMIT, rec)), CFG));
        assertTrue(x.getMessage().contains("signature"), x.getMessage());
    }

    @Test
    void check_transactionOfAnotherShard_throws() {
        byte[] e = entry(new Wal.Record(Wal.COMMIT, tx("a").record()));
        assertThrows(MalformedException.class, () -> LogEntryCheck.check(e, CFG.withShard(3)));
    }

    @Test
    void check_garbage_throws() {
        assertThrows(MalformedException.class, () -> LogEntryCheck.check(new byte[] {(byte) 222, 1, 2, 3, 4, 5, 6, 7},
                CFG));
        assertThrows(MalformedException.class, () -> LogEntryCheck.check(entry(new Wal.Record(Wal.COMMIT,
                new byte[] {1, 2, 3, 4, 5, 6, 7, 8})), CFG));
        assertThrows(MalformedException.class, () -> LogEntryCheck.check(entry(new Wal.Record(Wal.SEAL,
                new byte[] {1, 2, 3})), CFG));
        assertThrows(MalformedException.class, () -> LogEntryCheck.check(entry(new Wal.Record(Wal.DECIDE_COMMIT,
                new byte[] {1})), CFG));
    }

    @Test
    void check_everyTruncation_throws() {
        byte[] e = entry(new Wal.Record(Wal.COMMIT, tx("a").record()));
        for (int n = 0; n < e.length; n++) {
            byte[] cut = java.util.Arrays.copyOf(e, n);
            assertThrows(MalformedException.class, () -> LogEntryCheck.check(cut, CFG), "cut at " + n);
        }
    }
}
