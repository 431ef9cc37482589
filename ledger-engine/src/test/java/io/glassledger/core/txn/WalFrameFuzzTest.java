package io.glassledger.core.txn;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.glassledger.verify.LedgerException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The WAL's frame decoder (FORMAT.md §15.1) over any bytes, as the last segment (where a damaged tail is a crash's)
 * and as an earlier one (where damage is an error). Opening either reads records whose frames fit in the file, or
 * refuses with a {@link LedgerException}; nothing else escapes, and no frame is allocated beyond the file's bytes.
 * Recovery's decisions on top of the frames belong to the engine's tests, not to this one.
 */
class WalFrameFuzzTest {
    private static final Path DIR;
    /** A valid segment that holds only its header, written by the WAL itself. */
    private static final byte[] HEADER_ONLY;

    static {
        try {
            DIR = Files.createTempDirectory("wal-fuzz");
            DIR.toFile().deleteOnExit();
            try (Wal w = Wal.open(DIR, false)) {
                w.startSegment(0, java.util.List.of());
            }
            Path first = DIR.resolve("wal-0000000000000001.log");
            HEADER_ONLY = Files.readAllBytes(first);
            Files.delete(first);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @FuzzTest(maxDuration = "10s")
    void open(byte[] data) throws IOException {
        for (boolean last : new boolean[] {true, false}) {
            clear();
            Files.write(DIR.resolve("wal-0000000000000001.log"), data);
            if (!last) {
                Files.write(DIR.resolve("wal-0000000000000002.log"), HEADER_ONLY);
            }
            try (Wal w = Wal.open(DIR, false)) {
                long framed = 0;
                for (Wal.Segment s : w.segments()) {
                    if (s.seq() == 1) {
                        for (Wal.Record r : s.records()) {
                            framed += 9 + r.payload().length;
                        }
                    }
                }
                assertTrue(framed <= data.length, "records read beyond the segment's bytes");
            } catch (LedgerException expected) {
                // the documented refusal of a damaged or foreign segment
            }
        }
    }

    private static void clear() throws IOException {
        try (Stream<Path> s = Files.list(DIR)) {
            s.forEach(p -> p.toFile().delete());
        }
    }
}
