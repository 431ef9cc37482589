package io.glassledger.core.vectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.format.FormatRule;
import io.glassledger.verify.format.RuleSwitch;
import io.glassledger.verify.block.Block;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.entry.Entry;
import io.glassledger.core.postree.Node;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.verify.proof.VerificationException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * No rule of the reference's decoders and verifiers can be switched off without a test vector noticing, except the
 * rules the vectors' README lists as implied by others or as beyond a vector's size. A vector notices when, with the
 * rule off, an input it must reject is accepted or makes the reference fail in another way than rejecting it (which
 * {@link VectorTest} reports as a failure too).
 *
 * <p>Every rejection of every invalid vector, with all rules on, must come from a named rule ({@link FormatRule}).
 * Then switching off a rule changes the verdict only on inputs that this very rule rejected first: the code runs
 * exactly as before up to that point. So each invalid vector is checked once with all rules on and once with its
 * rejecting rule off, and the test runs in seconds.
 */
class RuleAblationTest {
    private static final Path DIR = Path.of(VectorGenerator.DIR);
    private static final Pattern ROW = Pattern.compile("^\\| `([A-Z0-9_]+)` \\| §([0-9.]+) \\|(.*)\\|(.*)\\|\\s*$");
    private static final Pattern TICKED = Pattern.compile("`([^`]+)`");

    /** One input of a vector file: checked with one rule off, it is accepted, rejected, or the check fails. */
    private record Probe(String where, String name, boolean valid, Check check) {
    }

    @FunctionalInterface
    private interface Check {
        /** Returns if the input is accepted; throws the reference's rejection, or anything else on failure. */
        void run() throws Exception;
    }

    private enum Verdict { ACCEPTED, REJECTED, FAILED }

    /** How the README classifies a rule. */
    private enum Kind { PINNED, IMPLIED, BEYOND_SIZE }

    private record Row(FormatRule rule, String section, Kind kind, String text) {
    }

    @Test
    void everyRule_isPinnedByAVector_orListedAsImplied() throws Exception {
        Map<FormatRule, Row> readme = readmeRules();
        List<Probe> probes = probes();
        Map<FormatRule, List<Probe>> rejectedBy = new EnumMap<>(FormatRule.class);
        Map<FormatRule, String> noticedBy = new EnumMap<>(FormatRule.class);
        List<String> failures = new ArrayList<>();
        VectorVerifier.onLargeStack(() -> {
            try (RuleSwitch s = RuleSwitch.install()) {
                for (Probe p : probes) {
                    s.switchOff(null);
                    Verdict v = verdict(p);
                    if (p.valid && (v != Verdict.ACCEPTED || s.rejectedBy() != null)) {
                        failures.add(p.where + ": valid, but " + v + " (rule " + s.rejectedBy() + ")");
                    } else if (!p.valid && v != Verdict.REJECTED) {
                        failures.add(p.where + ": invalid, but " + v);
                    } else if (!p.valid && s.rejectedBy() == null) {
                        failures.add(p.where + ": rejected by no named rule (FormatRule): name the check");
                    } else if (!p.valid) {
                        rejectedBy.computeIfAbsent(s.rejectedBy(), r -> new ArrayList<>()).add(p);
                    }
                }
                // An input accepted without the rule is the better evidence; one the check fails on will do.
                for (Map.Entry<FormatRule, List<Probe>> e : rejectedBy.entrySet()) {
                    for (Probe p : e.getValue()) {
                        s.switchOff(e.getKey());
                        Verdict v = verdict(p);
                        if (v != Verdict.REJECTED) {
                            noticedBy.merge(e.getKey(), p.where + " (" + v.name().toLowerCase() + ")",
                                    (old, now) -> old.endsWith("(accepted)") ? old : now);
                            if (v == Verdict.ACCEPTED) {
                                break;
                            }
                        }
                    }
                }
            }
            return null;
        });
        List<String> wrong = new ArrayList<>(failures);
        for (FormatRule r : FormatRule.values()) {
            Row row = readme.get(r);
            if (row == null) {
                wrong.add(r + " (§" + r.section() + ") is not in the README's rule table");
                continue;
            }
            if (!row.section.equals(r.section())) {
                wrong.add(r + ": the README says §" + row.section + ", FormatRule says §" + r.section());
            }
            String noticed = noticedBy.get(r);
            if (row.kind == Kind.PINNED) {
                if (noticed == null) {
                    wrong.add(r + " can be switched off and no vector notices: add a vector that only it rejects, or "
                            + "list it as implied (rejected first by it: " + names(rejectedBy.get(r)) + ")");
                } else if (!namesAVectorThatNotices(row, r, rejectedBy.get(r))) {
                    wrong.add(r + ": the README names no vector that notices it; " + noticed + " does");
                }
            } else if (noticed != null) {
                wrong.add(r + " is listed as " + row.kind.name().toLowerCase().replace('_', ' ') + ", but " + noticed
                        + " notices it: list the vector instead");
            }
        }
        if (System.getProperty("ablation.report") != null) {
            for (FormatRule r : FormatRule.values()) {
                System.out.println("ABLATION " + r + " first-rejects=" + names(rejectedBy.get(r)) + " noticed="
                        + noticedBy.get(r));
            }
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }

    /** Whether a vector named in the row's last column (in backticks) notices the rule. */
    private static boolean namesAVectorThatNotices(Row row, FormatRule r, List<Probe> rejected) throws Exception {
        TreeSet<String> named = new TreeSet<>();
        Matcher m = TICKED.matcher(row.text);
        while (m.find()) {
            named.add(m.group(1));
        }
        return VectorVerifier.onLargeStack(() -> {
            try (RuleSwitch s = RuleSwitch.install()) {
                for (Probe p : rejected) {
                    if (named.contains(p.name)) {
                        s.switchOff(r);
                        if (verdict(p) != Verdict.REJECTED) {
                            return true;
                        }
                    }
                }
            }
            return false;
        });
    }

    private static String names(List<Probe> ps) {
        if (ps == null) {
            return "none";
        }
        TreeSet<String> n = new TreeSet<>();
        ps.forEach(p -> n.add(p.where));
        return n.size() > 6 ? new ArrayList<>(n).subList(0, 6) + " and " + (n.size() - 6) + " more" : n.toString();
    }

    private static Verdict verdict(Probe p) {
        try {
            p.check.run();
            return Verdict.ACCEPTED;
        } catch (VerificationException | MalformedException e) {
            return Verdict.REJECTED;
        } catch (Exception | StackOverflowError e) {
            return Verdict.FAILED;
        }
    }

    // ---------------------------------------------------------------- the README's table

    /** The rows of the README's "Rules" table: rule, section, and how the last column classifies it. */
    private static Map<FormatRule, Row> readmeRules() throws IOException {
        Map<FormatRule, Row> out = new LinkedHashMap<>();
        List<String> unknown = new ArrayList<>();
        for (String line : Files.readAllLines(DIR.resolve("README.md"), StandardCharsets.UTF_8)) {
            Matcher m = ROW.matcher(line);
            if (!m.matches()) {
                continue;
            }
            FormatRule r;
            try {
                r = FormatRule.valueOf(m.group(1));
            } catch (IllegalArgumentException e) {
                unknown.add(m.group(1));
                continue;
            }
            String last = m.group(4).strip();
            Kind k = last.startsWith("Implied by") ? Kind.IMPLIED
                    : last.startsWith("Beyond a vector's size") ? Kind.BEYOND_SIZE : Kind.PINNED;
            assertTrue(out.put(r, new Row(r, m.group(2), k, last)) == null, r + " is in the README twice");
        }
        assertTrue(unknown.isEmpty(), "the README lists rules FormatRule does not have: " + unknown);
        return out;
    }

    // ---------------------------------------------------------------- the vectors

    private static JsonNode load(String name) throws IOException {
        return Json.parse(Files.readString(DIR.resolve(name), StandardCharsets.UTF_8));
    }

    /** Every input of every vector file, valid and invalid, as the reference checks it. */
    static List<Probe> probes() throws IOException {
        List<Probe> out = new ArrayList<>();
        for (String file : new String[] {"current-value.json", "non-existence.json", "inclusion.json", "batch.json",
            "history.json", "append-only.json", "signed-head.json", "signed-transaction.json"}) {
            JsonNode root = load(file);
            String verifier = root.get("verifier").asText();
            for (JsonNode v : root.get("vectors")) {
                String where = file + " " + v.get("name").asText();
                JsonNode input = v.get("input");
                out.add(new Probe(where, v.get("name").asText(), true, () -> VectorVerifier.verify(verifier, input)));
                for (JsonNode m : v.get("invalid")) {
                    JsonNode merged = Json.merge(input, m.get("input"));
                    String name = m.get("name").asText();
                    out.add(new Probe(where + " / " + name, name, false,
                            () -> VectorVerifier.verify(verifier, merged)));
                }
            }
        }
        JsonNode prim = load("primitives.json");
        for (JsonNode v : prim.get("varint")) {
            byte[] enc = Json.unhex(v.get("encoding").asText());
            out.add(new Probe("primitives.json varint " + Json.hex(enc), Json.hex(enc), true, () -> {
                ByteReader r = new ByteReader(enc);
                r.varint();
                r.expectEnd();
            }));
        }
        for (JsonNode v : prim.get("varintInvalid")) {
            byte[] enc = Json.unhex(v.get("encoding").asText());
            out.add(new Probe("primitives.json varintInvalid " + Json.hex(enc), Json.hex(enc), false,
                    () -> new ByteReader(enc).varint()));
        }
        named(out, prim.get("treeParams"), "primitives.json treeParams", "encoding", true,
                b -> TreeParams.decode(b));
        named(out, prim.get("treeParamsInvalid"), "primitives.json treeParamsInvalid", "encoding", false,
                b -> TreeParams.decode(b));
        for (JsonNode v : prim.get("lowerProofLimits")) {
            String name = v.get("name").asText();
            out.add(new Probe("primitives.json lowerProofLimits " + name, name, v.get("valid").asBoolean(),
                    () -> VectorVerifier.verify(v.get("verifier").asText(), v.get("input"))));
        }
        JsonNode tree = load("tree-build.json");
        for (JsonNode v : tree.get("vectors")) {
            if (v.has("nodes")) {
                int i = 0;
                for (JsonNode n : v.get("nodes")) {
                    byte[] enc = Json.unhex(n.get("encoding").asText());
                    out.add(new Probe("tree-build.json " + v.get("name").asText() + " node " + i++, "node", true,
                            () -> Node.decode(enc)));
                }
            }
        }
        named(out, tree.get("invalidNodes"), "tree-build.json invalidNodes", "encoding", false, b -> Node.decode(b));
        JsonNode ledger = load("ledger.json");
        for (JsonNode l : ledger.get("vectors")) {
            for (JsonNode b : l.get("blocks")) {
                long n = b.get("number").asLong();
                byte[] rec = Json.unhex(b.get("record").asText());
                out.add(new Probe("ledger.json " + l.get("name").asText() + " block " + n, "block", true, () -> {
                    Block block = Block.decode(n, rec);
                    if (n == 0) {
                        Ledger.genesisParams(block);
                    }
                }));
            }
        }
        named(out, ledger.get("invalidRecords"), "ledger.json invalidRecords", "record", false,
                b -> Block.decode(0, b));
        named(out, ledger.get("invalidGenesis"), "ledger.json invalidGenesis", "record", false,
                b -> Ledger.genesisParams(Block.decode(0, b)));
        for (JsonNode v : load("entry-hash.json").get("vectors")) {
            byte[] enc = Json.unhex(v.get("encoding").asText());
            out.add(new Probe("entry-hash.json " + v.get("name").asText(), "entry", true, () -> {
                ByteReader r = new ByteReader(enc);
                Entry.read(r);
                r.expectEnd();
            }));
        }
        return out;
    }

    @FunctionalInterface
    private interface Decoder {
        void decode(byte[] b) throws Exception;
    }

    private static void named(List<Probe> out, JsonNode list, String where, String field, boolean valid, Decoder d) {
        if (list == null) {
            return;
        }
        for (JsonNode v : list) {
            String name = v.get("name").asText();
            byte[] enc = Json.unhex(v.get(field).asText());
            out.add(new Probe(where + " " + name, name, valid, () -> d.decode(enc)));
        }
    }

    @Test
    void readmeTable_listsEveryRuleOnce() throws IOException {
        Map<FormatRule, Row> rows = readmeRules();
        assertEquals(FormatRule.values().length, rows.size(), "rules missing from the README: "
                + java.util.EnumSet.complementOf(rows.isEmpty() ? java.util.EnumSet.noneOf(FormatRule.class)
                        : java.util.EnumSet.copyOf(rows.keySet())));
    }
}
