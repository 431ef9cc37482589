package io.glassledger.core.vectors;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Writes the JSON test vectors of ledger-core/src/test/resources/vectors (schema in that folder's README.md).
 * Deterministic: fixed seeds, fixed timestamps, in-memory stores, so a rerun gives byte-identical files, and
 * {@link VectorTest} fails when the code no longer produces them.
 *
 * <p>Run from the repository root (see {@link #REGENERATE}); an optional argument names the output directory.
 */
public final class VectorGenerator {
    /** How to regenerate; printed by {@link VectorTest} when the committed vectors are out of date. */
    public static final String REGENERATE = String.join("\n",
            "./mvnw -q -o -B -pl ledger-core test-compile dependency:build-classpath "
                    + "-Dmdep.outputFile=target/test.classpath -Dmdep.includeScope=test",
            "java -cp \"ledger-core/target/test-classes:ledger-core/target/classes:$(cat "
                    + "ledger-core/target/test.classpath)\" io.glassledger.core.vectors.VectorGenerator");

    static final String DIR = "src/test/resources/vectors";

    private VectorGenerator() {
    }

    public static void main(String[] args) throws IOException {
        Path dir = args.length > 0 ? Path.of(args[0]) : defaultDir();
        Files.createDirectories(dir);
        SortedMap<String, String> files;
        try {
            files = VectorVerifier.onLargeStack(VectorGenerator::generate);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        for (Map.Entry<String, String> e : files.entrySet()) {
            Files.writeString(dir.resolve(e.getKey()), e.getValue(), StandardCharsets.UTF_8);
            System.out.println("wrote " + dir.resolve(e.getKey()));
        }
    }

    /** The vectors directory, from the repository root or from ledger-core. */
    static Path defaultDir() {
        Path fromRoot = Path.of("ledger-core").resolve(DIR);
        return Files.isDirectory(Path.of("ledger-core")) ? fromRoot : Path.of(DIR);
    }

    /** File name to content, for every vector file. */
    public static SortedMap<String, String> generate() {
        Fixtures f = Fixtures.build();
        SortedMap<String, String> out = new TreeMap<>();
        PrimitiveVectors prim = new PrimitiveVectors(f);
        out.put("entry-hash.json", prim.entryHash());
        out.put("primitives.json", prim.primitives());
        out.put("tree-build.json", prim.treeBuild());
        out.put("ledger.json", new LedgerVectors(f).ledger());
        KeysVectors keys = new KeysVectors(f);
        for (VectorFile v : new VectorFile[] {keys.currentValue(), keys.nonExistence(), keys.inclusion(), keys.batch()}) {
            out.put(v.fileName + ".json", v.json());
        }
        HistoryAppendVectors ha = new HistoryAppendVectors(f);
        out.put("history.json", ha.history().json());
        out.put("append-only.json", ha.appendOnly().json());
        SignatureVectors sig = new SignatureVectors(f);
        out.put("signed-head.json", sig.signedHeads().json());
        out.put("signed-transaction.json", sig.signedTransactions().json());
        return out;
    }
}
