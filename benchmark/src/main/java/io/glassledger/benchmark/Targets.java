package io.glassledger.benchmark;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Every target the benchmarks are measured against, in one table: the issues' targets (benchmark/README.md,
 * RESULTS.md) and the checks that must hold in every run (no promise failed or pending, negative controls caught).
 * A result line gets its {@code target} from here ({@link JsonLine}), and {@link Verdicts} prints one verdict per
 * row after a run. A row names the subcommands that measure it, the line's {@code bench} (a {@code *} matches any
 * text) and {@code metric}, the target, the other fields a line must have for the target to apply (e.g. only
 * workload X on one shard is the YCSB target), and the fields that tell its lines apart in a verdict.
 */
final class Targets {
    /**
     * @param check true for a check that must hold in any run, quick or not (no promise failed, a negative control
     *              caught), false for a target of performance or size that only a full run can judge
     */
    record Row(Set<String> suites, String bench, String metric, String target, Map<String, String> where,
               List<String> detail, boolean check) {
        private Pattern benchPattern() {
            return Pattern.compile(Pattern.quote(bench).replace("*", "\\E.*\\Q"));
        }

        /** True if this row applies to a line whose fields {@code field} returns (as {@link #text} renders them). */
        boolean appliesTo(Function<String, String> field) {
            String b = field.apply("bench");
            if (b == null || !benchPattern().matcher(b).matches() || !metric.equals(field.apply("metric"))) {
                return false;
            }
            return where.entrySet().stream().allMatch(e -> e.getValue().equals(field.apply(e.getKey())));
        }

        /** True if {@code value} meets the target. */
        boolean met(double value) {
            String[] t = target.split(" ");
            double bound = Double.parseDouble(t[1]);
            return switch (t[0]) {
                case ">=" -> value >= bound;
                case ">" -> value > bound;
                case "<=" -> value <= bound;
                case "<" -> value < bound;
                case "==" -> value == bound;
                default -> throw new IllegalStateException("bad target " + target);
            };
        }
    }

    private static Row row(String suites, String bench, String metric, String target) {
        return new Row(Set.of(suites.split(",")), bench, metric, target, Map.of(), List.of(), false);
    }

    private static Row check(Set<String> suites, String bench, String metric, String target, String... detail) {
        return new Row(suites, bench, metric, target, Map.of(), List.of(detail), true);
    }

    private static final Set<String> SERVICE = Set.of("service", "cluster");
    private static final Set<String> SUITE = Set.of("ycsb", "tpcc", "all");

    /** The table. Targets documented in benchmark/README.md; their history in RESULTS.md. */
    static final List<Row> ROWS = List.of(
            // core: issue 2
            row("core", "storage", "disk_bytes_over_raw", "<= 2.5"),
            row("core", "persist", "keys_per_second", ">= 100000"),
            // issue 18: persist into a state ten times the node cache, and the heap left after it
            row("core", "persist_cold", "keys_per_second", ">= 50000"),
            row("core", "heap", "retained_over_cache_mb", "<= 256"),
            row("core", "current_value_proof", "bytes", "<= 1000"),
            row("core", "current_value_proof", "bytes_max", "<= 1000"),
            row("core", "append_only_proof", "bytes", "<= 1000"),
            row("core", "append_only_proof", "bytes_mean", "<= 1000"),
            row("core", "batch_proof_100", "bytes_per_key", "<= 500"),
            new Row(Set.of("core"), "proof_size", "neighbours_1mib_bytes", "< 16384", Map.of(), List.of("proof"),
                    false),
            row("core", "verify", "proofs_per_second", ">= 20000"),
            // engine: issue 3; the throughput target is for the configurations that check every signature
            row("engine", "engine.*.sig", "throughput", ">= 10000"),
            check(Set.of("engine"), "engine.*", "verify_failed", "== 0"),
            check(Set.of("engine"), "engine.*", "verify_pending", "== 0"),
            check(Set.of("engine"), "engine.*", "negative_control_rejected", "== 1"),
            // replication (issue 20): a Raft group of 3 against one server, and GlassDB's Figure 9
            row("replication", "replication", "recovery_seconds", "<= 2"),
            row("replication", "replication", "overhead", "<= 0.15"),
            check(Set.of("replication"), "replication", "acked_lost", "== 0"),
            check(Set.of("replication"), "replication", "replicas_differing_blocks", "== 0"),
            check(Set.of("replication"), "replication", "verify_failed", "== 0"),
            // failover (issue 31): an honest cluster's failovers never make the SDK accuse it, and lose nothing
            // acknowledged; at least 30 faults in a full run
            row("failover", "failover", "faults_total", ">= 30"),
            check(Set.of("failover"), "failover", "violations", "== 0", "layout"),
            check(Set.of("failover"), "failover", "lost", "== 0", "layout"),
            check(Set.of("failover"), "failover", "unverified", "== 0", "layout"),
            check(Set.of("failover"), "failover", "unrecovered", "== 0", "layout"),
            check(Set.of("failover"), "failover", "replicas_differing_blocks", "== 0", "layout"),
            // peers (issue 19): GlassLedger's rate over immudb's, operation for operation, in one alternating run
            row("peers", "peers.get", "ratio", ">= 1.5"),
            row("peers", "peers.get", "cpu_ratio", "< 1"),
            row("peers", "peers.set_verified", "ratio", ">= 1.5"),
            row("peers", "peers.set_deferred", "ratio", ">= 3"),
            row("peers", "peers.tx", "ratio", ">= 8"),
            row("peers", "peers.tx64", "ratio", ">= 8"),
            check(Set.of("peers"), "peers", "verify_failed", "== 0"),
            check(Set.of("peers"), "peers", "verify_pending", "== 0"),
            // cli (issue 34, item 7): one ledger-cli get, as a shell user waits for it
            new Row(Set.of("cli"), "cli.get", "wall_seconds", "<= 0.8", Map.of(), List.of("cli"), false),
            check(Set.of("cli"), "cli.get", "failed", "== 0", "cli"),
            // service and cluster: workload X over HTTPS, every proof verified
            row("service", "service.x", "throughput", ">= 3000"),
            // issue 18: the servers' GC share at steady state (--warmup 300), and their data directories over the
            // raw bytes committed after the preload and 5 minutes of workload X (the same run)
            row("service", "service.x", "server_gc_cpu_share", "< 0.05"),
            row("service", "service.x", "server_bytes_over_raw", "<= 2.0"),
            check(SERVICE, "*.x", "verify_failed", "== 0", "shards"),
            check(SERVICE, "*.x", "verify_pending", "== 0", "shards"),
            // ycsb, tpcc and all (GlassDB's benchmark): the headline window of workload X
            new Row(Set.of("ycsb", "all"), "ycsb", "throughput", ">= 3000", Map.of("workload", "x", "shards", "1",
                    "deferred", "true", "batching", "true", "delay_ms", "100", "persist_ms", "100"), List.of("config"),
                    false),
            check(SUITE, "*", "verify_failed", "== 0", "sweep", "config"),
            check(SUITE, "*", "verify_pending", "== 0", "sweep", "config"),
            check(Set.of("tpcc", "all"), "tpcc", "consistency_violations", "== 0", "sweep"),
            check(Set.of("tpcc", "all"), "tpcc", "consistency_negative_control", "> 0", "sweep"));

    private Targets() {
    }

    /** The target of a line whose fields {@code field} returns, or empty. */
    static Optional<String> of(Function<String, String> field) {
        return ROWS.stream().filter(r -> r.appliesTo(field)).map(Row::target).findFirst();
    }

    /** A field's value as the table compares it: numbers without trailing zeros, booleans and strings as text. */
    static String text(Object v) {
        if (v == null) {
            return null;
        }
        if (v instanceof Number n) {
            try {
                return new BigDecimal(n.toString()).stripTrailingZeros().toPlainString();
            } catch (NumberFormatException e) {
                return n.toString();
            }
        }
        return v.toString();
    }
}
