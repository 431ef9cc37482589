package io.glassledger.api.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The {@code glassledger.*} properties a service knows: read from the {@code META-INF/spring-configuration-metadata.json}
 * that spring-boot-configuration-processor writes from the service's {@code @ConfigurationProperties} records (name,
 * type, default, and the record's {@code @param} text). It is the one list that the start-up check (a property under
 * the prefix that is not in it is refused, naming the nearest known one) and docs/CONFIGURATION.md (checked against
 * it by a test) both follow.
 */
public final class KnownProperties {
    public static final String METADATA = "META-INF/spring-configuration-metadata.json";

    /**
     * @param defaultValue the default as the metadata gives it (JSON text of a number or boolean, a string as is),
     *                     or null where the property has none
     */
    public record Property(String name, String type, String description, String defaultValue) {
    }

    private final Map<String, Property> properties;

    private KnownProperties(Map<String, Property> properties) {
        this.properties = Collections.unmodifiableMap(properties);
    }

    /** Every property under {@code prefix} (e.g. {@code "glassledger."}) in the metadata {@code loader} sees. */
    public static KnownProperties load(ClassLoader loader, String prefix) {
        Map<String, Property> found = new TreeMap<>();
        ObjectMapper json = new ObjectMapper();
        try {
            for (URL url : Collections.list(loader.getResources(METADATA))) {
                try (InputStream in = url.openStream()) {
                    for (JsonNode p : json.readTree(in).path("properties")) {
                        String name = p.path("name").asText();
                        if (name.startsWith(prefix)) {
                            JsonNode d = p.get("defaultValue");
                            found.put(name, new Property(name, p.path("type").asText(),
                                    p.path("description").asText(""),
                                    d == null || d.isNull() ? null : d.isTextual() ? d.asText() : d.toString()));
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + METADATA, e);
        }
        return new KnownProperties(found);
    }

    /** By name, in name order. */
    public Map<String, Property> properties() {
        return properties;
    }

    /**
     * The reference table of docs/CONFIGURATION.md for these properties: name, default, and the {@code @param} text
     * of the record component it binds to.
     */
    public String markdownTable() {
        StringBuilder b = new StringBuilder("| property | default | what it does |\n|---|---|---|\n");
        for (Property p : properties.values()) {
            String d = p.defaultValue() == null || p.defaultValue().isEmpty() ? "(none)" : "`" + p.defaultValue() + "`";
            b.append("| `").append(p.name()).append("` | ").append(d).append(" | ")
                    .append(markdown(p.description())).append(" |\n");
        }
        return b.toString();
    }

    private static String markdown(String javadoc) {
        String s = javadoc.replaceAll("\\{@(?:code|literal) ([^}]*)}", "`$1`")
                .replaceAll("\\{@link(?:plain)? (?:[\\w.]*\\.)?([\\w#().]+)[^}]*}", "`$1`")
                .replaceAll("\\s+", " ").replace("|", "\\|").strip();
        return s.isEmpty() ? "(undocumented)" : s;
    }

    /**
     * The refusal for the given property names (canonical form, e.g. {@code glassledger.cluster.peers[0]}, each
     * with where it was set) that are under {@code prefix} but not known, or empty if all are known.
     *
     * @param given name to where it came from (a property source's name)
     */
    public Optional<String> refusal(String prefix, Map<String, String> given) {
        List<String> lines = new ArrayList<>();
        for (var e : new TreeMap<>(given).entrySet()) {
            String name = e.getKey();
            int index = name.indexOf('[');
            String base = index < 0 ? name : name.substring(0, index);  // list elements: peers[0]
            if (!base.startsWith(prefix) || properties.containsKey(base)) {
                continue;
            }
            String nearest = nearest(base, properties.keySet());
            lines.add("unknown property " + base + " (set in " + e.getValue() + ")"
                    + (nearest == null ? "" : "; did you mean " + nearest + "?"));
        }
        if (lines.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(String.join("\n", lines) + "\nThe known " + prefix + "* properties are listed in "
                + "docs/CONFIGURATION.md.");
    }

    /** The known name closest to {@code name} by edit distance, or null when none is reasonably close. */
    static String nearest(String name, Collection<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String k : new TreeSet<>(known)) {
            int d = distance(name, k);
            if (d < bestDistance) {
                best = k;
                bestDistance = d;
            }
        }
        // a typo: within half the length of the name's last part
        String tail = name.substring(name.lastIndexOf('.') + 1);
        if (best != null && bestDistance <= Math.max(2, tail.length() / 2)) {
            return best;
        }
        // the right name under the wrong parent (glassledger.data-dir given to the auditor): the same last parts
        String rest = name.substring(name.indexOf('.') + 1);
        for (String k : new TreeSet<>(known)) {
            if (k.endsWith("." + rest)) {
                return k;
            }
        }
        return null;
    }

    /** Levenshtein distance. */
    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
