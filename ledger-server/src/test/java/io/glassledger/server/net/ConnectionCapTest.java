package io.glassledger.server.net;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The cap in force leaves RocksDB and the WAL their file descriptors. */
class ConnectionCapTest {
    @Test
    void cap_isTheConfiguredOne_whenTheFdLimitLeavesRoom() {
        assertEquals(4096, ConnectionGuard.cap(4096, 1024, 1 << 20));
    }

    @Test
    void cap_keepsTheReserve_belowALimitedFdLimit() {
        assertEquals(64_512, ConnectionGuard.cap(100_000, 1024, 65_536));
    }

    @Test
    void cap_isAtMostHalfOfASmallFdLimit() {
        assertEquals(512, ConnectionGuard.cap(4096, 1024, 1024));
    }

    @Test
    void cap_isTheConfiguredOne_whenTheFdLimitIsUnknown() {
        assertEquals(4096, ConnectionGuard.cap(4096, 1024, -1));
    }
}
