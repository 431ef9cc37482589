package io.glassledger.benchmark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {
    private static final List<String> CHARTS = List.of(
            "fig5a-persist-interval.png", "fig5b-verification-delay.png", "fig7-ablation.png", "fig8b-shards.png",
            "fig8c-workloads.png", "fig8c-abort-rate.png", "fig10a-tpcc-clients.png", "fig10b-tpcc-latency.png",
            "fig11a-clients.png", "fig11b-op-latency.png", "proof-bytes.png");
    private static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeAll
    static void headless() {
        System.setProperty("java.awt.headless", "true");
    }

    @Test
    void rendersEveryChartFromMedians() throws IOException {
        Path first = write("first.jsonl", synthetic());
        // The repeated point's third run, in another file: median of 100, 1000 and 300 is 300.
        Path second = write("second.jsonl", List.of(
                ycsb("persist", "throughput", 300, "workload", "x", "persist_ms", 10, "delay_ms", 1280,
                        "clients", 64)));
        Path outDir = dir.resolve("charts");

        int status = run("--out", outDir.toString(), first.toString(), second.toString());

        assertEquals(0, status, err.toString());
        String stdout = out.toString(StandardCharsets.UTF_8);
        for (String chart : CHARTS) {
            Path png = outDir.resolve(chart);
            assertTrue(stdout.contains("report: wrote " + png + " ("), stdout);
            byte[] bytes = Files.readAllBytes(png);
            assertArrayEquals(PNG, Arrays.copyOf(bytes, PNG.length), chart);
            assertTrue(bytes.length > 5_000, chart + " is only " + bytes.length + " bytes");
        }
        assertEquals("", err.toString());

        Map<String, Report.Plot> plots = Report.plots(Report.read(List.of(first, second)));
        Map<String, Map<Object, Double>> persist = plots.get("fig5a-persist-interval.png").data().medians();
        assertEquals(300.0, persist.get("x").get(10.0), "median, and the service line ignored");
        assertFalse(persist.get("x").containsKey(2560.0), "null values are not points");
        assertEquals("Throughput vs persist interval (delay 1280 ms, 64 clients)",
                plots.get("fig5a-persist-interval.png").title());

        Map<String, Map<Object, Double>> clients = plots.get("fig11a-clients.png").data().medians();
        assertEquals(List.of("x", "x, no DV", "y", "y, no DV"), List.copyOf(clients.keySet()));

        Map<String, Map<Object, Double>> tpcc = plots.get("fig10b-tpcc-latency.png").data().medians();
        assertEquals(List.of("p50", "p95", "p99"), List.copyOf(tpcc.keySet()));
        assertEquals(16 * 3.0 * 2, tpcc.get("p95").get("payment"), "only the largest client count");

        Map<String, Map<Object, Double>> mix = plots.get("fig8c-workloads.png").data().medians();
        assertEquals(List.of("zipf 0", "zipf 0.5", "zipf 0.9"), List.copyOf(mix.keySet()));
        assertEquals(List.of("read-heavy", "balanced", "write-heavy"), List.copyOf(mix.get("zipf 0.5").keySet()));

        assertEquals(List.of("no-DV no-BA", "no-BA", "full"),
                plots.get("fig7-ablation.png").data().categories());
    }

    @Test
    void skipsChartsWithoutData() throws IOException {
        Path file = write("other.jsonl", List.of(
                "{\"bench\": \"engine.crypto\", \"metric\": \"sign_us\", \"value\": 30.3, \"target\": null}",
                ycsb("shards", "throughput", 500, "workload", "x", "shards", 1, "clients", 64)));
        Path outDir = dir.resolve("charts");

        assertEquals(0, run("--out", outDir.toString(), file.toString()), err.toString());

        assertTrue(Files.exists(outDir.resolve("fig8b-shards.png")));
        assertTrue(out.toString().contains("fig8b-shards.png (1 points)"), out.toString());
        assertTrue(err.toString().contains("report: no data for fig5a-persist-interval.png"), err.toString());
        assertFalse(Files.exists(outDir.resolve("fig5a-persist-interval.png")));
    }

    @Test
    void malformedLineNamesFileAndLine() throws IOException {
        Path file = write("broken.jsonl", List.of(
                ycsb("shards", "throughput", 500, "workload", "x", "shards", 1),
                "",
                "{\"bench\": \"ycsb\", \"value\": "));

        assertEquals(2, run("--out", dir.toString(), file.toString()));
        assertTrue(err.toString().contains(file + ":3: malformed JSON"), err.toString());

        Report.InputException e = assertThrows(Report.InputException.class, () -> Report.read(List.of(file)));
        assertTrue(e.getMessage().startsWith(file + ":3:"), e.getMessage());
    }

    @Test
    void missingFieldNamesFileAndLine() throws IOException {
        Path file = write("nofield.jsonl", List.of(ycsb("shards", "throughput", 500, "workload", "x")));

        assertEquals(2, run("--out", dir.toString(), file.toString()));
        assertTrue(err.toString().contains(file + ":1: field shards must be a number"), err.toString());
    }

    @Test
    void usageErrorsExitTwo() {
        assertEquals(2, run());
        assertEquals(2, run("--out"));
        assertEquals(2, run("--bogus", "x.jsonl"));
        assertEquals(2, run(dir.resolve("absent.jsonl").toString()));
        assertTrue(err.toString().contains("cannot read " + dir.resolve("absent.jsonl") + ": no such file"),
                err.toString());
    }

    private int run(String... args) {
        return Report.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private Path write(String name, List<String> lines) throws IOException {
        return Files.write(dir.resolve(name), lines, StandardCharsets.UTF_8);
    }

    /** Lines for every chart, with made-up values that make each chart's shape easy to recognise. */
    private static List<String> synthetic() {
        List<String> l = new ArrayList<>();
        for (String w : List.of("x", "y")) {
            double scale = w.equals("x") ? 1 : 0.6;
            for (int ms = 10; ms <= 1280; ms *= 2) {
                if (!(w.equals("x") && ms == 10)) {
                    l.add(ycsb("persist", "throughput", scale * 4000 * Math.log(ms), "workload", w, "persist_ms", ms,
                            "delay_ms", 1280, "clients", 64));
                }
            }
            for (int ms : new int[] {0, 10, 40, 160, 640, 1280}) {
                l.add(ycsb("delay", "throughput", scale * (20000 - 8 * ms), "workload", w, "delay_ms", ms,
                        "persist_ms", 100, "clients", 64));
            }
            for (int s = 1; s <= 8; s *= 2) {
                l.add(ycsb("shards", "throughput", scale * 9000 * s, "workload", w, "shards", s, "clients", 64));
            }
            for (boolean deferred : new boolean[] {true, false}) {
                for (int c = 1; c <= 128; c *= 2) {
                    l.add(ycsb("clients", "throughput", scale * (deferred ? 300 : 120) * Math.sqrt(c) * 10,
                            "workload", w, "clients", c, "deferred", deferred, "delay_ms", 1280));
                }
            }
            String[] ops = {"tx", "read", "commit", "verify", "history"};
            for (int i = 0; i < ops.length; i++) {
                double p50 = scale * (i + 1) * 2;
                l.add(ycsb("workloads", "latency", p50, "workload", w, "op", ops[i], "p95", p50 * 2, "p99", p50 * 3,
                        "clients", 64));
            }
            l.add(ycsb("workloads", "proof_bytes_per_key", scale * 900, "workload", w, "clients", 64));
        }
        // The repeated point (x, 10 ms) twice here and once in the second file; and a null that is no point.
        l.add(ycsb("persist", "throughput", 100, "workload", "x", "persist_ms", 10, "delay_ms", 1280, "clients", 64));
        l.add(ycsb("persist", "throughput", 1000, "workload", "x", "persist_ms", 10, "delay_ms", 1280, "clients", 64));
        l.add(ycsb("persist", "throughput", null, "workload", "x", "persist_ms", 2560, "delay_ms", 1280,
                "clients", 64));
        l.add(line("service", "persist", "throughput", 99999, "workload", "x", "persist_ms", 10, "delay_ms", 1280));
        l.add("");
        String[] configs = {"no-DV no-BA", "no-BA", "full"};
        for (int i = 0; i < configs.length; i++) {
            l.add(ycsb("ablation", "throughput", 5000 * (i + 1), "workload", "x", "config", configs[i],
                    "clients", 64));
        }
        double[] zipfs = {0, 0.5, 0.9};
        String[] mixes = {"read-heavy", "balanced", "write-heavy"};
        for (double z : zipfs) {
            for (int i = 0; i < mixes.length; i++) {
                l.add(ycsb("mix", "throughput", 30000 - 8000 * i - 10000 * z, "workload", mixes[i], "zipf", z,
                        "clients", 64));
                l.add(ycsb("mix", "abort_rate", 0.01 + 0.1 * i * z, "workload", mixes[i], "zipf", z,
                        "clients", 64));
            }
        }
        String[] tpccOps = {"new_order", "payment", "order_status", "delivery", "stock_level", "warehouse_balance"};
        for (int c = 1; c <= 16; c *= 2) {
            l.add(line("tpcc", "tpcc", "tpmC", 3000.0 * c, "workload", "tpcc", "clients", c));
            if (c >= 8) {
                for (int i = 0; i < tpccOps.length; i++) {
                    l.add(line("tpcc", "tpcc", "latency", c * (i + 1.0), "workload", "tpcc", "clients", c,
                            "op", tpccOps[i], "p95", c * 3.0 * (i + 1), "p99", c * 5.0 * (i + 1)));
                }
            }
        }
        return l;
    }

    private static String ycsb(String sweep, String metric, Object value, Object... fields) {
        return line("ycsb", sweep, metric, value, fields);
    }

    private static String line(String bench, String sweep, String metric, Object value, Object... fields) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("bench", bench);
        m.put("metric", metric);
        m.put("value", value);
        m.put("unit", metric.equals("throughput") ? "tx/s" : null);
        m.put("target", null);
        m.put("sweep", sweep);
        for (int i = 0; i < fields.length; i += 2) {
            m.put((String) fields[i], fields[i + 1]);
        }
        try {
            return JSON.writeValueAsString(m);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
