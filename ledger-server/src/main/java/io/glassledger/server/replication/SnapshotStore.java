package io.glassledger.server.replication;

import io.glassledger.core.txn.ReplicatedLog;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.impl.FileListSnapshotInfo;

/**
 * A replica's snapshots, in the Ratis state-machine directory: {@code sm/snapshots/<index>/} holds {@code ledger/} (a
 * RocksDB checkpoint), {@code wal/} (the engine's journal up to the snapshot's position) and {@code snapshot.meta}
 * ({@code term index}, written last). A new snapshot is built in {@code sm/building/} and moved in; the newest
 * {@link #KEEP} are kept, so that the files of one being sent to a replica that is too far behind are not deleted
 * under the transfer by the next (Ratis sends a snapshot's files one by one and installs them in the same place).
 */
final class SnapshotStore implements StateMachineStorage {
    static final String META = "snapshot.meta";
    /** Snapshots kept. */
    static final int KEEP = 2;
    private Path smDir;
    private volatile FileListSnapshotInfo latest;

    @Override
    public void init(RaftStorage storage) throws IOException {
        smDir = storage.getStorageDir().getStateMachineDir().toPath();
        Files.createDirectories(snapshots());
        deleteTree(smDir.resolve("building"));
        latest = load();
    }

    private Path snapshots() {
        return smDir.resolve("snapshots");
    }

    /** The newest complete snapshot's directory, or null. */
    Path current() throws IOException {
        if (!Files.isDirectory(snapshots())) {
            return null;
        }
        try (Stream<Path> s = Files.list(snapshots())) {
            return s.filter(p -> p.getFileName().toString().matches("\\d+") && Files.exists(p.resolve(META)))
                    .max(Comparator.comparingLong(p -> Long.parseLong(p.getFileName().toString()))).orElse(null);
        }
    }

    /** An empty directory for the next snapshot (the engine writes into it). */
    Path prepareNew() throws IOException {
        Path p = smDir.resolve("building");
        deleteTree(p);
        Files.createDirectories(smDir);
        return p;
    }

    /** Makes the snapshot built in {@code dir} the newest, durably, and deletes all but the newest {@link #KEEP}. */
    void commit(Path dir, ReplicatedLog.Position pos) throws IOException {
        Path meta = dir.resolve(META);
        Files.writeString(meta, pos.term() + " " + pos.index() + "\n", StandardCharsets.US_ASCII);
        forceTree(dir);
        Files.createDirectories(snapshots());
        Path to = snapshots().resolve(Long.toString(pos.index()));
        deleteTree(to);
        Files.move(dir, to);
        force(snapshots());
        List<Path> all;
        try (Stream<Path> s = Files.list(snapshots())) {
            all = s.filter(p -> p.getFileName().toString().matches("\\d+"))
                    .sorted(Comparator.comparingLong((Path p) -> Long.parseLong(p.getFileName().toString()))
                            .reversed()).toList();
        }
        for (Path old : all.subList(Math.min(KEEP, all.size()), all.size())) {
            deleteTree(old);
        }
        latest = load();
    }

    /** Re-reads the current snapshot (after Ratis installed one from the leader). */
    void reload() throws IOException {
        latest = load();
    }

    private FileListSnapshotInfo load() throws IOException {
        Path cur = current();
        if (cur == null) {
            return null;
        }
        Path meta = cur.resolve(META);
        String[] f = Files.readString(meta, StandardCharsets.US_ASCII).trim().split(" ");
        if (f.length != 2) {
            throw new IOException(meta + " is not 'term index'");
        }
        List<FileInfo> files = new ArrayList<>();
        try (Stream<Path> s = Files.walk(cur)) {
            for (Path p : s.filter(Files::isRegularFile).sorted().toList()) {
                if (!p.getFileName().toString().endsWith(".md5")) {
                    files.add(new FileInfo(p, null));
                }
            }
        }
        return new FileListSnapshotInfo(files, Long.parseLong(f[0]), Long.parseLong(f[1]));
    }

    /**
     * Replaces the engine's {@code ledger/} and {@code wal/} in {@code engineDir} with the current snapshot's:
     * RocksDB's immutable table files are linked, the others copied (RocksDB appends to its manifest).
     */
    void restoreTo(Path engineDir) throws IOException {
        Path cur = current();
        if (cur == null) {
            throw new IOException("no snapshot in " + snapshots());
        }
        for (String part : List.of("ledger", "wal")) {
            Path to = engineDir.resolve(part);
            deleteTree(to);
            Files.createDirectories(to);
            Path from = cur.resolve(part);
            if (!Files.isDirectory(from)) {
                continue;
            }
            try (Stream<Path> s = Files.list(from)) {
                for (Path p : s.filter(Files::isRegularFile).toList()) {
                    String name = p.getFileName().toString();
                    if (name.endsWith(".md5")) {
                        continue;
                    }
                    Path target = to.resolve(name);
                    if (name.endsWith(".sst")) {
                        try {
                            Files.createLink(target, p);
                            continue;
                        } catch (IOException | UnsupportedOperationException e) {
                            // another file system: copy instead
                        }
                    }
                    Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
            forceTree(to);
        }
        force(engineDir);
    }

    @Override
    public SnapshotInfo getLatestSnapshot() {
        return latest;
    }

    @Override
    public void format() {
        // nothing to format: init creates the directory
    }

    @Override
    public void cleanupOldSnapshots(SnapshotRetentionPolicy policy) {
        // only one snapshot is ever kept
    }

    @Override
    public File getSnapshotDir() {
        return snapshots().toFile();
    }

    @Override
    public File getTmpDir() {
        return smDir.resolve("tmp").toFile();
    }

    static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            for (Path q : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(q);
            }
        }
    }

    private static void forceTree(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.toList()) {
                force(p);
            }
        }
    }

    private static void force(Path p) {
        try (FileChannel c = FileChannel.open(p, StandardOpenOption.READ)) {
            c.force(true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
