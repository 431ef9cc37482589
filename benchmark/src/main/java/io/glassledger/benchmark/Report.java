package io.glassledger.benchmark;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.Color;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries.CategorySeriesRenderStyle;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.CategoryStyler;
import org.knowm.xchart.style.Styler.LegendPosition;

/**
 * Renders the YCSB and TPC-C result lines ({@code bench} "ycsb" or "tpcc") of benchmark JSONL files as PNG charts.
 *
 * <pre>java -cp ... io.glassledger.benchmark.Report [--out DIR] FILE...</pre>
 *
 * Each plotted value is the median of all lines with the same configuration, so repeated runs and several files can
 * be given together. Exit status 2 on usage errors, unreadable files and malformed lines.
 */
public final class Report {
    static final String USAGE = "usage: Report [--out DIR] FILE...   (default DIR: benchmark/results)";
    private static final int WIDTH = 800;
    private static final int HEIGHT = 500;
    private static final Set<String> BENCHES = Set.of("ycsb", "tpcc");
    private static final ObjectMapper JSON =
            new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private Report() {}

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        System.exit(run(args, System.out, System.err));
    }

    /** Returns the exit status: 0, 1 if a chart could not be written, 2 for bad arguments or input. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        Path outDir = Path.of("benchmark", "results");
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("-h") || a.equals("--help")) {
                out.println(USAGE);
                return 0;
            } else if (a.equals("--out")) {
                if (++i == args.length) {
                    return fail(err, "--out needs a directory\n" + USAGE);
                }
                outDir = Path.of(args[i]);
            } else if (a.startsWith("-")) {
                return fail(err, "unknown option " + a + "\n" + USAGE);
            } else {
                files.add(Path.of(a));
            }
        }
        if (files.isEmpty()) {
            return fail(err, "no input files\n" + USAGE);
        }
        Collection<Plot> plots;
        try {
            plots = plots(read(files)).values();
        } catch (InputException e) {
            return fail(err, e.getMessage());
        }
        try {
            Files.createDirectories(outDir);
            for (Plot p : plots) {
                if (p.data().isEmpty()) {
                    err.println("report: no data for " + p.file());
                    continue;
                }
                Path target = outDir.resolve(p.file());
                BitmapEncoder.saveBitmap(p.render(), target.toString(), BitmapEncoder.BitmapFormat.PNG);
                out.println("report: wrote " + target + " (" + p.data().points() + " points)");
            }
        } catch (IOException e) {
            err.println("report: cannot write charts to " + outDir + ": " + e);
            return 1;
        }
        return 0;
    }

    private static int fail(PrintStream err, String message) {
        err.println("report: " + message);
        return 2;
    }

    /** Bad input: the message names the file (and line) at fault. */
    static final class InputException extends RuntimeException {
        InputException(String message) {
            super(message);
        }
    }

    /** One ycsb or tpcc result line, with where it came from for error messages. */
    record Line(String where, JsonNode json) {
        String text(String field) {
            JsonNode n = json.get(field);
            if (n == null || n.isNull() || n.isContainerNode()) {
                throw new InputException(where + ": missing field " + field);
            }
            return n.isNumber() ? format(n.doubleValue()) : n.asText();
        }

        double number(String field) {
            JsonNode n = json.get(field);
            if (n == null || !n.isNumber()) {
                throw new InputException(where + ": field " + field + " must be a number");
            }
            return n.doubleValue();
        }

        /** The measured number, or null when the run recorded none. */
        Double value(String field) {
            JsonNode n = json.get(field);
            if (n == null || n.isNull()) {
                return null;
            }
            if (!n.isNumber()) {
                throw new InputException(where + ": field " + field + " must be a number or null");
            }
            return n.doubleValue();
        }

        boolean is(String sweep, String metric) {
            return sweep.equals(json.path("sweep").asText()) && metric.equals(json.path("metric").asText());
        }
    }

    /** Reads the ycsb and tpcc lines of {@code files}; other benchmarks' lines are dropped. */
    static List<Line> read(List<Path> files) {
        List<Line> lines = new ArrayList<>();
        for (Path file : files) {
            try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                int no = 0;
                for (String s = r.readLine(); s != null; s = r.readLine()) {
                    no++;
                    if (s.isBlank()) {
                        continue;
                    }
                    String where = file + ":" + no;
                    JsonNode json;
                    try {
                        json = JSON.readTree(s);
                    } catch (JsonProcessingException e) {
                        throw new InputException(where + ": malformed JSON: " + e.getOriginalMessage());
                    }
                    if (!json.isObject()) {
                        throw new InputException(where + ": expected a JSON object");
                    }
                    if (BENCHES.contains(json.path("bench").asText())) {
                        Line line = new Line(where, json);
                        line.text("sweep");
                        line.text("metric");
                        line.value("value");
                        lines.add(line);
                    }
                }
            } catch (IOException e) {
                String why = e instanceof NoSuchFileException ? "no such file" : e.getMessage();
                throw new InputException("cannot read " + file + ": " + why);
            }
        }
        return lines;
    }

    /** Values per series and x (a Double, or a String category); both keep first-seen order. */
    static final class Data {
        private final Map<String, Map<Object, List<Double>>> samples = new LinkedHashMap<>();

        void add(String series, Object x, Double y) {
            if (y != null) {
                samples.computeIfAbsent(series, k -> new LinkedHashMap<>())
                        .computeIfAbsent(x, k -> new ArrayList<>())
                        .add(y);
            }
        }

        boolean isEmpty() {
            return samples.isEmpty();
        }

        int points() {
            return samples.values().stream().mapToInt(Map::size).sum();
        }

        /** What is plotted: the median of each point's values, numeric x in ascending order. */
        Map<String, Map<Object, Double>> medians() {
            Map<String, Map<Object, Double>> result = new LinkedHashMap<>();
            samples.forEach((series, points) -> {
                Map<Object, Double> m = new LinkedHashMap<>();
                sortX(points.keySet()).forEach(x -> m.put(x, median(points.get(x))));
                result.put(series, m);
            });
            return result;
        }

        /** All x values over all series, for category charts whose series must share one axis. */
        List<Object> categories() {
            Set<Object> all = new LinkedHashSet<>();
            samples.values().forEach(points -> all.addAll(points.keySet()));
            return sortX(all);
        }

        private static List<Object> sortX(Collection<Object> xs) {
            List<Object> list = new ArrayList<>(xs);
            if (list.stream().allMatch(x -> x instanceof Double)) {
                list.sort(Comparator.comparingDouble(x -> (Double) x));
            }
            return list;
        }
    }

    static double median(List<Double> values) {
        List<Double> v = values.stream().sorted().toList();
        int n = v.size();
        return n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
    }

    enum Style { LINE, CATEGORY_LINE, BAR }

    record Plot(String file, String title, String xTitle, String yTitle, Style style, Data data) {
        Chart<?, ?> render() {
            return style == Style.LINE ? lineChart(this) : categoryChart(this);
        }
    }

    /** Every chart, in output order, keyed by file name; a chart without data has empty {@link Plot#data()}. */
    static Map<String, Plot> plots(List<Line> lines) {
        Function<Line, String> workload = l -> l.text("workload");
        List<Line> persist = select(lines, "persist", "throughput");
        List<Line> delay = select(lines, "delay", "throughput");
        List<Line> ablation = select(lines, "ablation", "throughput");
        List<Line> shards = select(lines, "shards", "throughput");
        List<Line> mix = select(lines, "mix", "throughput");
        List<Line> aborts = select(lines, "mix", "abort_rate");
        List<Line> tpmC = select(lines, "tpcc", "tpmC");
        List<Line> tpccLatency = atMaxClients(select(lines, "tpcc", "latency"));
        List<Line> clients = select(lines, "clients", "throughput");
        List<Line> opLatency = select(lines, "workloads", "latency");
        List<Line> proof = select(lines, "workloads", "proof_bytes_per_key");

        String tps = "Throughput (tx/s)";
        Data tpccQuantiles = new Data();
        for (Line l : tpccLatency) {
            tpccQuantiles.add("p50", l.text("op"), l.value("value"));
            tpccQuantiles.add("p95", l.text("op"), l.value("p95"));
            tpccQuantiles.add("p99", l.text("op"), l.value("p99"));
        }
        List<Plot> all = List.of(
                new Plot("fig5a-persist-interval.png",
                        "Throughput vs persist interval"
                                + context(persist, "delay_ms", "delay %s ms", "clients", "%s clients"),
                        "Persist interval (ms)", tps, Style.CATEGORY_LINE,
                        collect(persist, workload, l -> l.number("persist_ms"))),
                new Plot("fig5b-verification-delay.png",
                        "Throughput vs verification delay"
                                + context(delay, "persist_ms", "persist %s ms", "clients", "%s clients"),
                        "Verification delay (ms)", tps, Style.LINE,
                        collect(delay, workload, l -> l.number("delay_ms"))),
                new Plot("fig7-ablation.png",
                        "Throughput by optimisation" + context(ablation, "clients", "%s clients"),
                        "Configuration", tps, Style.BAR,
                        collect(ablation, workload, l -> l.text("config"))),
                new Plot("fig8b-shards.png",
                        "Throughput vs shards" + context(shards, "clients", "%s clients"),
                        "Shards", tps, Style.LINE,
                        collect(shards, workload, l -> l.number("shards"))),
                new Plot("fig8c-workloads.png",
                        "Throughput by workload mix and skew" + context(mix, "clients", "%s clients"),
                        "Workload", tps, Style.BAR,
                        collect(mix, l -> "zipf " + l.text("zipf"), workload)),
                new Plot("fig8c-abort-rate.png",
                        "Abort rate by workload mix and skew" + context(aborts, "clients", "%s clients"),
                        "Workload", "Abort rate (aborted / attempted)", Style.BAR,
                        collect(aborts, l -> "zipf " + l.text("zipf"), workload)),
                new Plot("fig10a-tpcc-clients.png",
                        "TPC-C throughput vs clients" + context(tpmC, "shards", "%s shards"),
                        "Clients", "Throughput (tpmC, New-Order per minute)", Style.LINE,
                        collect(tpmC, l -> "tpmC", l -> l.number("clients"))),
                new Plot("fig10b-tpcc-latency.png",
                        "TPC-C latency by transaction type" + context(tpccLatency, "clients", "%s clients"),
                        "Transaction type", "Latency (ms)", Style.BAR, tpccQuantiles),
                new Plot("fig11a-clients.png",
                        "Throughput vs clients" + context(clients, "delay_ms", "delay %s ms"),
                        "Clients", tps, Style.LINE,
                        collect(clients, Report::deferredLabel, l -> l.number("clients"))),
                new Plot("fig11b-op-latency.png",
                        "Median latency by operation" + context(opLatency, "clients", "%s clients"),
                        "Operation", "p50 latency (ms)", Style.BAR,
                        collect(opLatency, workload, l -> l.text("op"))),
                new Plot("proof-bytes.png",
                        "Proof size per key read",
                        "Workload", "Proof size (bytes per key)", Style.BAR,
                        collect(proof, l -> "proof bytes", workload)));
        Map<String, Plot> byFile = new LinkedHashMap<>();
        all.forEach(p -> byFile.put(p.file(), p));
        return byFile;
    }

    private static List<Line> select(List<Line> lines, String sweep, String metric) {
        return lines.stream().filter(l -> l.is(sweep, metric)).toList();
    }

    private static Data collect(List<Line> lines, Function<Line, String> series, Function<Line, ?> x) {
        Data d = new Data();
        lines.forEach(l -> d.add(series.apply(l), x.apply(l), l.value("value")));
        return d;
    }

    /** Fig. 10b shows one load level: the highest client count measured. */
    private static List<Line> atMaxClients(List<Line> lines) {
        double max = lines.stream().mapToDouble(l -> l.number("clients")).max().orElse(0);
        return lines.stream().filter(l -> l.number("clients") == max).toList();
    }

    private static String deferredLabel(Line l) {
        return l.text("workload") + (l.json().path("deferred").asBoolean(true) ? "" : ", no DV");
    }

    /**
     * A title suffix such as " (delay 1280 ms, 64 clients)" naming settings that all {@code lines} share;
     * {@code fieldsAndFormats} alternates field names and formats. Settings that vary are left out.
     */
    private static String context(List<Line> lines, String... fieldsAndFormats) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < fieldsAndFormats.length; i += 2) {
            String field = fieldsAndFormats[i];
            Set<String> values = lines.stream()
                    .map(l -> l.json().path(field))
                    .map(n -> n.isNumber() ? format(n.doubleValue()) : n.asText(""))
                    .collect(Collectors.toSet());
            if (values.size() == 1 && !values.contains("")) {
                parts.add(fieldsAndFormats[i + 1].formatted(values.iterator().next()));
            }
        }
        return parts.isEmpty() ? "" : " (" + String.join(", ", parts) + ")";
    }

    /** 1280.0 as "1280", 0.5 as "0.5". */
    static String format(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
    }

    private static XYChart lineChart(Plot p) {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT)
                .title(p.title()).xAxisTitle(p.xTitle()).yAxisTitle(p.yTitle()).build();
        style(chart.getStyler(), p.data());
        chart.getStyler().setYAxisMin(0.0);
        p.data().medians().forEach((name, points) -> {
            List<Double> xs = points.keySet().stream().map(x -> (Double) x).toList();
            chart.addSeries(name, xs, new ArrayList<>(points.values()));
        });
        return chart;
    }

    private static CategoryChart categoryChart(Plot p) {
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT)
                .title(p.title()).xAxisTitle(p.xTitle()).yAxisTitle(p.yTitle()).build();
        CategoryStyler styler = chart.getStyler();
        style(styler, p.data());
        styler.setDefaultSeriesRenderStyle(p.style() == Style.BAR
                ? CategorySeriesRenderStyle.Bar
                : CategorySeriesRenderStyle.Line);
        // Lines share category positions; only bars sit side by side.
        styler.setOverlapped(p.style() == Style.CATEGORY_LINE);
        styler.setYAxisMin(0.0);
        List<Object> categories = p.data().categories();
        List<String> labels = categories.stream()
                .map(c -> c instanceof Double d ? format(d) : c.toString()).toList();
        if (labels.size() * labels.stream().mapToInt(String::length).max().orElse(0) > 60) {
            styler.setXAxisLabelRotation(30);
        }
        // XChart needs every series on the same categories; a point a series lacks is a gap (null).
        p.data().medians().forEach((name, points) ->
                chart.addSeries(name, labels, categories.stream().map(points::get).toList()));
        return chart;
    }

    private static void style(AxesChartStyler styler, Data data) {
        styler.setLegendVisible(data.medians().size() > 1);
        styler.setLegendPosition(LegendPosition.OutsideE);
        styler.setChartBackgroundColor(Color.WHITE);
        styler.setPlotGridVerticalLinesVisible(false);
        styler.setYAxisDecimalPattern("#,##0.###");
    }
}
