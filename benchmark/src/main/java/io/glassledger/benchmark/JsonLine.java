package io.glassledger.benchmark;

import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One result line: {@code {"bench":…,"metric":…,"value":…,"unit":…,"target":…}} and then any extra fields
 * (quantiles, sample counts). Values are numbers rounded to three decimals; target is a string or null, taken from
 * the one table of targets, {@link Targets}, when the line is printed (a target may depend on its extra fields).
 */
final class JsonLine {
    private final Map<String, Object> fields = new LinkedHashMap<>();

    private JsonLine(String bench, String metric, double value, String unit) {
        fields.put("bench", bench);
        fields.put("metric", metric);
        fields.put("value", value);
        fields.put("unit", unit);
        fields.put("target", null);
    }

    static JsonLine of(String bench, String metric, double value, String unit) {
        return new JsonLine(bench, metric, value, unit);
    }

    /** Adds a field; {@code value} is a Number, Boolean, String or null. */
    JsonLine with(String name, Object value) {
        fields.put(name, value);
        return this;
    }

    /** Adds p10, p90 and n from {@code s}; the line's value is expected to be its median. */
    JsonLine spread(Stats s) {
        return with("p10", s.p10()).with("p90", s.p90()).with("n", s.count());
    }

    void printTo(PrintStream out) {
        fields.put("target", Targets.of(name -> Targets.text(fields.get(name))).orElse(null));
        StringBuilder b = new StringBuilder("{");
        for (Map.Entry<String, Object> e : fields.entrySet()) {
            if (b.length() > 1) {
                b.append(", ");
            }
            b.append(quote(e.getKey())).append(": ").append(render(e.getValue()));
        }
        out.println(b.append('}'));
        out.flush();
    }

    private static String render(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                return "null";
            }
            return BigDecimal.valueOf(d).setScale(3, RoundingMode.HALF_EVEN).stripTrailingZeros().toPlainString();
        }
        if (v instanceof Number || v instanceof Boolean) {
            return v.toString();
        }
        return quote(v.toString());
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
