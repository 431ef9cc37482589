package io.glassledger.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link DataDirSize} over a data directory laid out as a ledger-server's. */
class DataDirSizeTest {
    @TempDir
    Path dir;

    private static void write(Path p, int bytes) throws Exception {
        Files.createDirectories(p.getParent());
        byte[] b = new byte[bytes];
        new java.util.SplittableRandom(bytes).nextBytes(b);
        Files.write(p, b);
    }

    @Test
    void of_countsEveryFileOnce_byPart_overSeveralDataDirectories() throws Exception {
        Path a = dir.resolve("shard-0");
        write(a.resolve("shard-0/wal/wal-0000000000000001.log"), 1000);
        write(a.resolve("shard-0/ledger/000012.sst"), 65536);
        write(a.resolve("shard-0/ledger/LOG"), 300);
        write(a.resolve("auth/api-keys.json"), 50);
        write(a.resolve("server.key"), 65);
        Files.createLink(a.resolve("shard-0/ledger/000012-link.sst"), a.resolve("shard-0/ledger/000012.sst"));
        Path b = dir.resolve("shard-1");
        write(b.resolve("shard-1/wal/wal-0000000000000001.log"), 2000);
        write(b.resolve("tls/server.p12"), 1054);
        Files.createDirectories(b.resolve("shard-1/ledger"));

        DataDirSize s = DataDirSize.of(List.of(a, b));

        assertEquals(1000 + 65536 + 300 + 50 + 65 + 2000 + 1054, s.bytes(), "the hard link counted once");
        assertEquals(7, s.files());
        assertEquals(3000, s.walBytes());
        assertEquals(65836, s.ledgerBytes());
        assertEquals(65536, s.sstBytes());
        assertEquals(50 + 65 + 1054, s.otherBytes());
        assertTrue(s.allocatedBytes() > 0, "du ran: " + s.allocatedBytes());
    }

    @Test
    void of_emptyDirectory_isZero() throws Exception {
        DataDirSize s = DataDirSize.of(List.of(dir));
        assertEquals(0, s.bytes());
        assertEquals(0, s.files());
    }

    @Test
    void sumFirstColumn_oneLinePerDirectory_elseUnknown() {
        assertEquals(12288, DataDirSize.sumFirstColumn("4096\t/a\n8192\t/b c\n", 2));
        assertEquals(-1, DataDirSize.sumFirstColumn("4096\t/a\n", 2), "a directory missing");
        assertEquals(-1, DataDirSize.sumFirstColumn("du: cannot read\n", 1));
        assertEquals(-1, DataDirSize.sumFirstColumn("", 1));
    }
}
