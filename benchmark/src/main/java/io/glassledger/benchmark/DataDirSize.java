package io.glassledger.benchmark;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The size of ledger-server data directories, read while the servers run (RocksDB may create and delete files
 * meanwhile: a file that disappears during the walk is skipped).
 *
 * <p>Every regular file under the directories counts, once even if hard-linked twice. The parts are by place in a
 * server's data directory: {@code shard-N/wal/} (the transaction WAL), {@code shard-N/ledger/} (the ledger's
 * RocksDB, of which {@code *.sst} files are also counted apart), and the rest (auth store, keys, TLS, logs,
 * credentials, and the benchmark's {@code server-console.log}).
 *
 * @param bytes          apparent size: the sum of the files' lengths
 * @param allocatedBytes what the file system allocated, {@code du -s -B1} summed over the directories (directories'
 *                       own blocks included), or -1 if {@code du} failed
 * @param files          regular files counted
 * @param walBytes       bytes under {@code shard-N/wal/}
 * @param ledgerBytes    bytes under {@code shard-N/ledger/}
 * @param sstBytes       of {@code ledgerBytes}, the {@code .sst} files'
 */
record DataDirSize(long bytes, long allocatedBytes, long files, long walBytes, long ledgerBytes, long sstBytes) {
    /** Bytes outside {@code wal/} and {@code ledger/}. */
    long otherBytes() {
        return bytes - walBytes - ledgerBytes;
    }

    /** Walks every directory of {@code dataDirs} (a server's {@code --glassledger.data-dir} each), then runs du. */
    static DataDirSize of(List<Path> dataDirs) throws IOException {
        Walk w = new Walk();
        for (Path d : dataDirs) {
            w.root = d;
            Files.walkFileTree(d, w);
        }
        return new DataDirSize(w.bytes, allocated(dataDirs), w.files, w.wal, w.ledger, w.sst);
    }

    private static final class Walk extends SimpleFileVisitor<Path> {
        private final Set<Object> seen = new HashSet<>();
        Path root;
        long bytes;
        long files;
        long wal;
        long ledger;
        long sst;

        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes a) {
            if (!a.isRegularFile() || (a.fileKey() != null && !seen.add(a.fileKey()))) {
                return FileVisitResult.CONTINUE;
            }
            bytes += a.size();
            files++;
            Path rel = root.relativize(file);
            if (rel.getNameCount() > 2 && rel.getName(0).toString().startsWith("shard-")) {
                switch (rel.getName(1).toString()) {
                    case "wal" -> wal += a.size();
                    case "ledger" -> {
                        ledger += a.size();
                        if (file.getFileName().toString().endsWith(".sst")) {
                            sst += a.size();
                        }
                    }
                    default -> {
                    }
                }
            }
            return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
            if (e instanceof NoSuchFileException) {
                return FileVisitResult.CONTINUE; // deleted since its directory was listed (a compaction)
            }
            throw e;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
            if (e != null && !(e instanceof NoSuchFileException)) {
                throw e;
            }
            return FileVisitResult.CONTINUE;
        }
    }

    /**
     * {@code du -s -B1 DIR...}: Java has no portable way to read a file's allocated blocks. du reports the total even
     * when a file vanished under it (its exit status is then 1), so the output is used whenever it parses.
     */
    private static long allocated(List<Path> dirs) {
        List<String> cmd = new ArrayList<>(List.of("du", "-s", "-B1", "--"));
        dirs.forEach(d -> cmd.add(d.toString()));
        try {
            Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return -1;
            }
            return sumFirstColumn(out, dirs.size());
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** The sum of the first column of du's {@code lines} lines ("BYTES\tPATH"), or -1 if there are not that many. */
    static long sumFirstColumn(String duOutput, int lines) {
        long sum = 0;
        int n = 0;
        for (String line : duOutput.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            try {
                sum += Long.parseLong(line.split("\t", 2)[0].trim());
                n++;
            } catch (NumberFormatException e) {
                return -1;
            }
        }
        return n == lines ? sum : -1;
    }
}
