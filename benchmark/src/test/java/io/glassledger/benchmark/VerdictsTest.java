package io.glassledger.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The table of targets as result lines carry it, and the verdicts {@code benchmark/run} prints from those lines. */
class VerdictsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Lines as the benchmarks print them: the target comes from {@link Targets}, not from the caller. */
    private static List<JsonNode> print(JsonLine... lines) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(b, true, StandardCharsets.UTF_8)) {
            for (JsonLine l : lines) {
                l.printTo(out);
            }
        }
        List<JsonNode> nodes = new ArrayList<>();
        for (String s : b.toString(StandardCharsets.UTF_8).split("\n")) {
            nodes.add(JSON.readTree(s));
        }
        return nodes;
    }

    private static List<String> verdicts(String suite, boolean quick, List<JsonNode> lines) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(b, true, StandardCharsets.UTF_8)) {
            Verdicts.print(suite, quick, lines, out);
        }
        return List.of(b.toString(StandardCharsets.UTF_8).split("\n"));
    }

    @Test
    void core_everyTargetGetsOneVerdict_metMissedOrNotMeasured() throws Exception {
        List<JsonNode> lines = print(
                JsonLine.of("persist", "keys_per_second", 23804, "keys/s").with("sync", true),
                JsonLine.of("persist", "keys_per_second_nosync", 25175, "keys/s").with("sync", false),
                JsonLine.of("storage", "disk_bytes_over_raw", 1.83, "ratio"),
                JsonLine.of("batch_proof_100", "bytes_per_key", 486, "bytes/key"),
                JsonLine.of("batch_proof_10", "bytes_per_key", 616, "bytes/key"),
                JsonLine.of("proof_size", "neighbours_1mib_bytes", 178, "bytes").with("proof", "current_value"));
        assertEquals(">= 100000", lines.get(0).get("target").asText());
        assertEquals(true, lines.get(1).get("target").isNull(), "no target without sync");
        assertEquals(true, lines.get(4).get("target").isNull(), "no target for batches of 10");

        assertEquals(List.of(
                "VERDICT storage disk_bytes_over_raw 1.83 target <= 2.5: MET",
                "VERDICT persist keys_per_second 23804 target >= 100000: MISSED",
                "VERDICT persist_cold keys_per_second - target >= 50000: NOT MEASURED",
                "VERDICT heap retained_over_cache_mb - target <= 256: NOT MEASURED",
                "VERDICT current_value_proof bytes - target <= 1000: NOT MEASURED",
                "VERDICT current_value_proof bytes_max - target <= 1000: NOT MEASURED",
                "VERDICT append_only_proof bytes - target <= 1000: NOT MEASURED",
                "VERDICT append_only_proof bytes_mean - target <= 1000: NOT MEASURED",
                "VERDICT batch_proof_100 bytes_per_key 486 target <= 500: MET",
                "VERDICT proof_size neighbours_1mib_bytes (proof=current_value) 178 target < 16384: MET",
                "VERDICT verify proofs_per_second - target >= 20000: NOT MEASURED"), verdicts("core", false, lines));
    }

    @Test
    void engine_throughputTargetOnlyWhereSignaturesAreChecked_quickSaysSoExceptForChecks() throws Exception {
        List<JsonNode> lines = print(
                JsonLine.of("engine.uniform.p100.sig", "throughput", 3709, "tx/s"),
                JsonLine.of("engine.uniform.p100.nosig", "throughput", 12000, "tx/s"),
                JsonLine.of("engine.uniform.p100.sig", "verify_failed", 0, "promises"),
                JsonLine.of("engine.uniform.p100.sig", "verify_pending", 1, "promises"));
        assertEquals(true, lines.get(1).get("target").isNull());
        assertEquals(List.of(
                "VERDICT engine.uniform.p100.sig throughput 3709 target >= 10000: MISSED"
                        + " (quick run: sizes too small to judge the target)",
                "VERDICT engine.uniform.p100.sig verify_failed 0 target == 0: MET",
                "VERDICT engine.uniform.p100.sig verify_pending 1 target == 0: MISSED",
                "VERDICT engine.* negative_control_rejected - target == 1: NOT MEASURED"),
                verdicts("engine", true, lines));
    }

    @Test
    void service_gcShareAndDiskRatioHaveTargets_clusterLinesDoNot() throws Exception {
        List<JsonNode> lines = print(
                JsonLine.of("service.x", "throughput", 704, "tx/s").with("shards", 1),
                JsonLine.of("service.x", "server_gc_cpu_share", 0.225, "ratio").with("shards", 1),
                JsonLine.of("service.x", "server_bytes_over_raw", 1.9, "ratio").with("shards", 1),
                JsonLine.of("service.x", "verify_failed", 0, "promises").with("shards", 1),
                JsonLine.of("service.x", "verify_pending", 0, "promises").with("shards", 1),
                JsonLine.of("cluster.x", "server_gc_cpu_share", 0.2, "ratio").with("shards", 3),
                JsonLine.of("cluster.x", "server_bytes_over_raw", 3.0, "ratio").with("shards", 3));
        assertEquals("< 0.05", lines.get(1).get("target").asText());
        assertEquals("<= 2.0", lines.get(2).get("target").asText());
        assertEquals(true, lines.get(5).get("target").isNull(), "the targets are the service's, on one shard");
        assertEquals(true, lines.get(6).get("target").isNull(), "the targets are the service's, on one shard");

        assertEquals(List.of(
                "VERDICT service.x throughput 704 target >= 3000: MISSED",
                "VERDICT service.x server_gc_cpu_share 0.225 target < 0.05: MISSED",
                "VERDICT service.x server_bytes_over_raw 1.9 target <= 2.0: MET",
                "VERDICT service.x verify_failed (shards=1) 0 target == 0: MET",
                "VERDICT service.x verify_pending (shards=1) 0 target == 0: MET"), verdicts("service", false, lines));
        String quick = " (quick run: sizes too small to judge the target)";
        assertEquals(List.of(
                "VERDICT service.x throughput 704 target >= 3000: MISSED" + quick,
                "VERDICT service.x server_gc_cpu_share 0.225 target < 0.05: MISSED" + quick,
                "VERDICT service.x server_bytes_over_raw 1.9 target <= 2.0: MET" + quick,
                "VERDICT service.x verify_failed (shards=1) 0 target == 0: MET",
                "VERDICT service.x verify_pending (shards=1) 0 target == 0: MET"), verdicts("service", true, lines));
    }

    @Test
    void ycsb_targetOnlyForTheHeadlineWindow() throws Exception {
        List<JsonNode> lines = print(
                JsonLine.of("ycsb", "throughput", 921, "tx/s").with("config", "x").with("workload", "x")
                        .with("shards", 1).with("delay_ms", 100L).with("persist_ms", 100L).with("deferred", true)
                        .with("batching", true),
                JsonLine.of("ycsb", "throughput", 948, "tx/s").with("config", "x-3").with("workload", "x")
                        .with("shards", 3).with("delay_ms", 100L).with("persist_ms", 100L).with("deferred", true)
                        .with("batching", true));
        assertEquals(">= 3000", lines.get(0).get("target").asText());
        assertEquals(true, lines.get(1).get("target").isNull());
        assertEquals("VERDICT ycsb throughput (config=x) 921 target >= 3000: MISSED",
                verdicts("ycsb", false, lines).get(0));
    }

    @Test
    void failover_checksPerLayout_anyViolationMisses_unmeasuredComparisonIsNotMeasured() throws Exception {
        List<JsonNode> lines = print(
                JsonLine.of("failover.fault", "recovery_seconds", 21.9, "s").with("layout", "1x3"),
                JsonLine.of("failover", "violations", 0, "violations").with("layout", "1x3"),
                JsonLine.of("failover", "violations", 1, "violations").with("layout", "2x3"),
                JsonLine.of("failover", "lost", 0, "writes").with("layout", "1x3"),
                JsonLine.of("failover", "overdue", 3, "promises").with("layout", "1x3"),
                JsonLine.of("failover", "replicas_differing_blocks", Double.NaN, "blocks").with("layout", "2x3"),
                JsonLine.of("failover", "faults_total", 7, "faults"));
        assertEquals(true, lines.get(0).get("target").isNull(), "a fault's recovery is a figure, not a target");
        assertEquals(true, lines.get(4).get("target").isNull(), "overdue is no accusation: no target");

        String quick = " (quick run: sizes too small to judge the target)";
        assertEquals(List.of(
                "VERDICT failover faults_total 7 target >= 30: MISSED" + quick,
                "VERDICT failover violations (layout=1x3) 0 target == 0: MET",
                "VERDICT failover violations (layout=2x3) 1 target == 0: MISSED",
                "VERDICT failover lost (layout=1x3) 0 target == 0: MET",
                "VERDICT failover unverified - target == 0: NOT MEASURED",
                "VERDICT failover unrecovered - target == 0: NOT MEASURED",
                "VERDICT failover replicas_differing_blocks (layout=2x3) - target == 0: NOT MEASURED"),
                verdicts("failover", true, lines));
    }
}
