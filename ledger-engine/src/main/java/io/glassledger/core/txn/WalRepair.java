package io.glassledger.core.txn;

import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.core.store.FrameScan;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * The way past a {@link WalCorruptedException}: {@code ./glassledger wal-repair <shard dir>}. It finds the first
 * damage that {@link Wal#open} would refuse, moves everything from there to the end of the log (the rest of that
 * segment, copied, and every later segment, moved whole) into {@code <shard dir>/wal-quarantine/<UTC time>/} with a
 * {@code REPORT.txt}, and then cuts the damaged segment at its last intact frame (or moves it whole if its header is
 * damaged). It deletes nothing. The shard then starts from the intact log; the acknowledged transactions whose
 * records were after the damage are not replayed, and the report lists the ones still readable there.
 *
 * <p>Crash-safe in that order: the evidence is durable before the log is cut, so a repair interrupted at any point
 * can be run again. Run it only while the shard is stopped.
 */
public final class WalRepair {
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    /**
     * What a repair did.
     *
     * @param quarantine where the damaged part went; null if the log needed no repair
     * @param report     what was moved and what may be lost, as written to {@code REPORT.txt}
     */
    public record Outcome(Path quarantine, String report) {
    }

    private WalRepair() {
    }

    /** Repairs the WAL of the shard in {@code shardDir} (the directory holding {@code wal/}); see the class comment. */
    public static Outcome repair(Path shardDir, Instant now) {
        Path walDir = shardDir.resolve("wal");
        try {
            List<Path> files = segments(walDir);
            for (int i = 0; i < files.size(); i++) {
                Path p = files.get(i);
                FrameScan.Result r = FrameScan.scan(p, Wal.RULES);
                boolean last = i == files.size() - 1;
                int cut = damageAt(r, last);
                if (cut >= 0) {
                    return quarantine(shardDir, files.subList(i, files.size()), r, cut, now);
                }
            }
            return new Outcome(null, "the WAL in " + walDir + " (" + files.size()
                    + " segments) has no damage that recovery refuses; nothing moved");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Where recovery would refuse this segment, or -1 (clean, or only a torn tail that recovery cuts itself). */
    private static int damageAt(FrameScan.Result r, boolean last) {
        if (r.damaged() && (!last || r.nextValid() >= 0)) {
            return r.frames().isEmpty() ? 0 : r.stop();
        }
        if (r.frames().isEmpty()) {
            return last ? -1 : 0;
        }
        FrameScan.Frame h = r.frames().get(0);
        if (h.type() != Wal.HEADER || h.payload().length != 14
                || !new String(h.payload(), 0, 6, StandardCharsets.ISO_8859_1).equals("GLWAL1")) {
            return 0;
        }
        for (FrameScan.Frame f : r.frames().subList(1, r.frames().size())) {
            if (f.type() == Wal.HEADER) {
                return (int) f.offset();
            }
        }
        return -1;
    }

    private static Outcome quarantine(Path shardDir, List<Path> from, FrameScan.Result damaged, int cut, Instant now)
            throws IOException {
        Path q = shardDir.resolve("wal-quarantine").resolve(STAMP.format(now));
        Files.createDirectories(q);
        Path first = from.get(0);
        byte[] data = Files.readAllBytes(first);
        StringBuilder rep = new StringBuilder();
        rep.append("GlassLedger WAL repair at ").append(now).append('\n')
                .append("damage: ").append(first.toAbsolutePath()).append(" at offset ").append(cut);
        if (damaged.damaged()) {
            rep.append(": ").append(damaged.damage());
        }
        rep.append('\n');
        List<FrameScan.Frame> lost = new ArrayList<>(FrameScan.salvage(data, cut + 1, Wal.RULES));
        rep.append("moved aside to ").append(q.toAbsolutePath()).append(":\n");
        Path tail = q.resolve(first.getFileName() + ".from-" + cut);
        Files.write(tail, Arrays.copyOfRange(data, cut, data.length), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE);
        force(tail);
        rep.append("  ").append(tail.getFileName()).append(": bytes ").append(cut).append("..").append(data.length)
                .append(" of ").append(first.getFileName()).append('\n');
        for (Path p : from.subList(1, from.size())) {
            lost.addAll(FrameScan.salvage(Files.readAllBytes(p), 0, Wal.RULES));
            rep.append("  ").append(p.getFileName()).append(": the whole segment, ").append(Files.size(p))
                    .append(" bytes\n");
        }
        describeLost(rep, lost);
        Path report = q.resolve("REPORT.txt");
        Files.writeString(report, rep, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW);
        force(report);
        force(q);
        force(q.getParent());
        // The evidence is durable: now the log itself changes, later segments first so that it stays a prefix.
        for (int i = from.size() - 1; i > 0; i--) {
            Files.move(from.get(i), q.resolve(from.get(i).getFileName()));
        }
        if (cut == 0) {
            Files.move(first, q.resolve(first.getFileName()));
        } else {
            try (FileChannel ch = FileChannel.open(first, StandardOpenOption.WRITE)) {
                ch.truncate(cut);
                ch.force(true);
            }
        }
        force(q);
        force(first.getParent());
        return new Outcome(q, rep.toString());
    }

    private static void describeLost(StringBuilder rep, List<FrameScan.Frame> lost) {
        List<String> commits = new ArrayList<>();
        List<String> prepares = new ArrayList<>();
        int decisions = 0;
        int seals = 0;
        for (FrameScan.Frame f : lost) {
            switch (f.type()) {
                case Wal.COMMIT -> commits.add(txId(f.payload()));
                case Wal.PREPARE -> prepares.add(txId(f.payload()));
                case Wal.DECIDE_COMMIT, Wal.DECIDE_ABORT, Wal.OUTCOME -> decisions++;
                case Wal.SEAL -> seals++;
                default -> {
                }
            }
        }
        rep.append("not replayed: the records in what was moved; still readable there: ").append(commits.size())
                .append(" commits, ").append(prepares.size()).append(" prepares, ").append(decisions)
                .append(" 2PC decisions, ").append(seals).append(" seals")
                .append(" (the damaged record itself is not readable, and may have been acknowledged)\n");
        for (String id : commits) {
            rep.append("  commit ").append(id).append('\n');
        }
        for (String id : prepares) {
            rep.append("  prepare ").append(id).append('\n');
        }
        rep.append("Clients that hold promises for these transactions will find them missing;")
                .append(" the bytes stay in this directory.\n");
    }

    private static String txId(byte[] record) {
        try {
            return SignedTransaction.decode(record).txId().hex();
        } catch (RuntimeException e) {
            return "(undecodable record of " + record.length + " bytes)";
        }
    }

    private static List<Path> segments(Path walDir) throws IOException {
        if (!Files.isDirectory(walDir)) {
            throw new IllegalArgumentException("no WAL directory " + walDir.toAbsolutePath());
        }
        try (Stream<Path> s = Files.list(walDir)) {
            return s.filter(p -> p.getFileName().toString().matches("wal-\\d{16}\\.log")).sorted().toList();
        }
    }

    private static void force(Path p) throws IOException {
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /**
     * {@code WalRepair <shard dir>} or {@code WalRepair --glassledger.data-dir=DIR [--glassledger.shard=N]} (the
     * server's options; the shard dir is then {@code DIR/shard-N}). Exit 0 after a repair or when none is needed,
     * 2 on a usage error.
     */
    public static void main(String[] args) {
        Path dataDir = Path.of("data");
        int shard = 0;
        Path shardDir = null;
        for (String a : args) {
            if (a.startsWith("--glassledger.data-dir=")) {
                dataDir = Path.of(a.substring(a.indexOf('=') + 1));
            } else if (a.startsWith("--glassledger.shard=")) {
                shard = Integer.parseInt(a.substring(a.indexOf('=') + 1));
            } else if (!a.startsWith("-") && shardDir == null) {
                shardDir = Path.of(a);
            } else {
                System.err.println("usage: wal-repair <shard dir> | wal-repair [--glassledger.data-dir=DIR]"
                        + " [--glassledger.shard=N]");
                System.exit(2);
            }
        }
        if (shardDir == null) {
            shardDir = dataDir.resolve("shard-" + shard);
        }
        Outcome o;
        try {
            o = repair(shardDir, Instant.now());
        } catch (IllegalArgumentException e) {
            System.err.println("wal-repair: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.out.print(o.report().endsWith("\n") ? o.report() : o.report() + "\n");
        if (o.quarantine() != null) {
            System.out.println("The WAL now ends at the last intact frame; the shard can start.");
        }
    }
}
