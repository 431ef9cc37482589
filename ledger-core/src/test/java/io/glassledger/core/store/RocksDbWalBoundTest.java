package io.glassledger.core.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store that writes many node records and, in the same batches, a few small block records keeps a bounded amount
 * of write-ahead log: the blocks column family, whose memtable fills slowly, must not hold every old log file alive.
 * Without the bound, all 256 MB written here stay in log files (RocksDB's default allows 2.5 GB with these
 * memtables).
 */
class RocksDbWalBoundTest {
    private static final int BATCHES = 1024;
    private static final int NODE_BYTES = 256 << 10;

    @TempDir
    Path dir;

    @Test
    void logFiles_stayBounded_whileASmallColumnFamilyRarelyFlushes() throws IOException {
        byte[] record = new byte[NODE_BYTES];
        try (RocksDbNodeStore store = new RocksDbNodeStore(dir, false, 8L << 20)) {
            for (int b = 0; b < BATCHES; b++) {
                record[0] = (byte) b;
                record[1] = (byte) (b >> 8);
                store.write(new StoreBatch().putNode(hash(b), record).putBlock(b, new byte[] {(byte) b}));
            }
            long logs = bytesOf(dir, ".log");
            assertTrue(logs <= 2 * RocksDbNodeStore.MAX_TOTAL_WAL_BYTES + NODE_BYTES,
                    "write-ahead log files hold " + logs + " bytes after writing " + (long) BATCHES * NODE_BYTES);
            // Flushed, not lost.
            assertArrayEquals(new byte[] {(byte) 7}, store.block(7));
            assertTrue(store.node(hash(3)) != null);
        }
    }

    private static Hash hash(int i) {
        return Hashing.raw(new byte[] {(byte) i, (byte) (i >> 8), 1});
    }

    private static long bytesOf(Path dir, String suffix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(suffix)).mapToLong(p -> p.toFile().length())
                    .sum();
        }
    }
}
