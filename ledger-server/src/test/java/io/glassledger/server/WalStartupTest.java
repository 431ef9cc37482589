package io.glassledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.core.txn.WalCorruptedException;
import io.glassledger.core.txn.WalRepair;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** A damaged WAL stops the server's start with a short report naming file, offset and repair command. */
@ExtendWith(OutputCaptureExtension.class)
class WalStartupTest {
    @TempDir
    Path tmp;

    @Test
    void start_damagedWal_failsWithShortReport_andStartsAfterRepair(CapturedOutput out) throws IOException {
        Path data = tmp.resolve("data");
        new TestServer(data).close();
        Path shard = data.resolve("shard-0");
        Path last;
        try (Stream<Path> s = Files.list(shard.resolve("wal"))) {
            last = s.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().reduce((a, b) -> b)
                    .orElseThrow();
        }
        long at = Files.size(last);
        byte[] bad = frame(new byte[30]);
        bad[20] ^= 1;
        Files.write(last, bad, StandardOpenOption.APPEND);
        Files.write(last, frame(new byte[30]), StandardOpenOption.APPEND);

        RuntimeException x = assertThrows(RuntimeException.class, () -> new TestServer(data));
        WalCorruptedException w = GlassLedgerServer.walCorruption(x);
        assertNotNull(w, "not a WAL refusal: " + x);
        assertEquals(last, w.file());
        assertEquals(at, w.offset());
        String log = out.getAll();
        assertTrue(log.contains("APPLICATION FAILED TO START"), log);
        assertTrue(log.contains(last.toAbsolutePath() + " is damaged at offset " + at), log);
        assertTrue(log.contains("./glassledger wal-repair " + shard.toAbsolutePath()), log);
        assertFalse(log.contains("\tat io.glassledger"), "a stack trace was logged: " + log);

        assertNotNull(WalRepair.repair(shard, Instant.now()).quarantine());
        new TestServer(data).close();
    }

    private static byte[] frame(byte[] payload) {
        CRC32C crc = new CRC32C();
        crc.update(1);
        crc.update(payload);
        return ByteBuffer.allocate(9 + payload.length).putInt(1 + payload.length).putInt((int) crc.getValue())
                .put((byte) 1).put(payload).array();
    }
}
