package io.glassledger.benchmark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The benchmarks' working directories, and the machine's load for the record. */
final class WorkDir {
    static final String MARKER = ".glassledger-benchmark";

    private WorkDir() {
    }

    /**
     * Empties {@code dir}, refusing (IllegalArgumentException) to touch a non-empty directory that this harness did
     * not create, so that a mistyped --dir cannot wipe anything else.
     */
    static void prepare(Path dir) {
        try {
            if (Files.isDirectory(dir)) {
                boolean empty;
                try (Stream<Path> s = Files.list(dir)) {
                    empty = s.findAny().isEmpty();
                }
                if (!empty && !Files.exists(dir.resolve(MARKER))) {
                    throw new IllegalArgumentException("refusing to wipe " + dir + ": it is not empty and has no "
                            + MARKER + " file; pass an empty or new --dir");
                }
                try (Stream<Path> s = Files.list(dir)) {
                    for (Path p : s.toList()) {
                        if (!p.getFileName().toString().equals(MARKER)) {
                            deleteTree(p);
                        }
                    }
                }
            }
            Files.createDirectories(dir);
            if (!Files.exists(dir.resolve(MARKER))) {
                Files.createFile(dir.resolve(MARKER));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void deleteTree(Path p) {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            for (Path q : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(q);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The 1-, 5- and 15-minute load averages, so that a run on a busy machine can be recognised. */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
