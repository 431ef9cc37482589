package io.glassledger.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The {@code server_bytes_over_raw} line: raw bytes accumulate over the preload and every load. */
class DiskFootprintTest {
    private static JsonNode printed(JsonLine line) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(b, true, StandardCharsets.UTF_8)) {
            line.printTo(out);
        }
        return new ObjectMapper().readTree(b.toString(StandardCharsets.UTF_8));
    }

    @Test
    void line_ratioOverEveryCommittedPut_withPreloadAndLiveFigures() throws Exception {
        DiskFootprint d = new DiskFootprint(100_000, 16_000_000, 10);
        d.preloaded(16_000_000, new DataDirSize(65_600_000, 66_000_000, 40, 20_000_000, 45_000_000, 30_000_000));
        d.loaded(8_000_000, 50_000, 300.5);
        d.loaded(4_000_000, 25_000, 50.5);
        assertEquals(28_000_000, d.rawBytes());

        JsonNode j = printed(d.line("service.x", new DataDirSize(56_000_000, -1, 60, 6_000_000, 49_000_000,
                40_000_000)));

        assertEquals("server_bytes_over_raw", j.get("metric").asText());
        assertEquals(2.0, j.get("value").asDouble(), 1e-9);
        assertEquals("<= 2.0", j.get("target").asText());
        assertEquals(56_000_000, j.get("disk_bytes").asLong());
        assertEquals(28_000_000, j.get("raw_bytes").asLong());
        assertTrue(j.get("allocated_bytes").isNull(), "du failed");
        assertTrue(j.get("allocated_over_raw").isNull());
        assertEquals(1_000_000, j.get("other_bytes").asLong());
        assertEquals(3.5, j.get("over_live_raw").asDouble(), 1e-9);
        assertEquals(4.1, j.get("preload_over_raw").asDouble(), 1e-9);
        assertEquals(66_000_000, j.get("preload_allocated_bytes").asLong());
        assertEquals(75_000, j.get("puts").asLong());
        assertEquals(351.0, j.get("workload_s").asDouble(), 1e-9);
        assertEquals(10, j.get("preload_tx_keys").asInt());
    }

    @Test
    void line_beforeThePreload_refuses() {
        DiskFootprint d = new DiskFootprint(10, 1600, 10);
        assertThrows(IllegalStateException.class, () -> d.line("service.x", new DataDirSize(0, 0, 0, 0, 0, 0)));
    }
}
