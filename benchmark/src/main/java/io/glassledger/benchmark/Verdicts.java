package io.glassledger.benchmark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * {@code Verdicts [--quick] SUITE FILE}: one line per target of {@link Targets} that {@code benchmark/run SUITE}
 * measures, read from the run's result lines in FILE, on stdout, e.g.
 * {@code VERDICT persist keys_per_second 23804 target >= 100000: MISSED}. A target with no line in FILE is
 * {@code NOT MEASURED}. A missed target does not change the run's exit status. After {@code --quick} the line of each
 * performance or size target says that the sizes were too small to judge it (checks, such as no failed promise,
 * hold in any run).
 */
public final class Verdicts {
    private static final ObjectMapper JSON = new ObjectMapper();

    private Verdicts() {
    }

    public static void main(String[] args) throws IOException {
        List<String> a = new ArrayList<>(List.of(args));
        boolean quick = a.remove("--quick");
        if (a.size() != 2) {
            System.err.println("usage: Verdicts [--quick] SUITE FILE");
            System.exit(2);
        }
        List<JsonNode> lines = new ArrayList<>();
        for (String s : Files.readAllLines(Path.of(a.get(1)))) {
            if (s.startsWith("{")) {
                try {
                    lines.add(JSON.readTree(s));
                } catch (IOException e) {
                    // not a result line
                }
            }
        }
        print(a.get(0), quick, lines, System.out);
    }

    static void print(String suite, boolean quick, List<JsonNode> lines, PrintStream out) {
        for (Targets.Row row : Targets.ROWS) {
            String note = quick && !row.check() ? " (quick run: sizes too small to judge the target)" : "";
            if (!row.suites().contains(suite)) {
                continue;
            }
            boolean any = false;
            for (JsonNode line : lines) {
                Function<String, String> field = name -> line.hasNonNull(name)
                        ? Targets.text(line.get(name).isNumber() ? line.get(name).numberValue() : line.get(name).asText())
                        : null;
                if (!row.appliesTo(field)) {
                    continue;
                }
                any = true;
                StringBuilder detail = new StringBuilder();
                for (String d : row.detail()) {
                    if (field.apply(d) != null) {
                        detail.append(detail.length() == 0 ? " (" : ", ").append(d).append('=').append(field.apply(d));
                    }
                }
                if (detail.length() > 0) {
                    detail.append(')');
                }
                String value = field.apply("value");
                String verdict = value == null ? "NOT MEASURED" : row.met(Double.parseDouble(value)) ? "MET" : "MISSED";
                out.printf("VERDICT %s %s%s %s target %s: %s%s%n", field.apply("bench"), row.metric(), detail,
                        value == null ? "-" : value, row.target(), verdict, note);
            }
            if (!any) {
                out.printf("VERDICT %s %s - target %s: NOT MEASURED%n", row.bench(), row.metric(), row.target());
            }
        }
    }
}
