package io.glassledger.server.replication;

import io.glassledger.api.PrivateFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HexFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replica that met a committed entry it must not apply (its seal or its content does not verify): the entry is kept
 * as evidence in {@code <data>/quarantine/} ({@code entry-<term>-<index>.bin}, the entry's bytes as the log holds
 * them, and {@code .txt}, what was wrong), nothing of it is applied, and the replica stops taking part in its group
 * (its Raft server closes, so it neither votes nor acknowledges) and reports itself not ready, with the reason, until
 * an operator looks at the evidence and rebuilds it (docs/ARCHITECTURE.md "Trust boundary"). The group goes on through
 * its majority. Thread-safe.
 */
final class Quarantine {
    private static final Logger LOG = LoggerFactory.getLogger(Quarantine.class);

    /** What was quarantined. */
    record Entry(long term, long index, String reason, Path evidence, Instant at) {
    }

    private final Path dir;
    private volatile Entry entry;

    Quarantine(Path dir) {
        this.dir = dir;
    }

    /** The quarantined entry, or null. */
    Entry entry() {
        return entry;
    }

    /** Records the evidence; returns true the first time (the caller then takes the replica out of its group). */
    synchronized boolean put(int shard, long term, long index, byte[] data, String reason) {
        if (entry != null) {
            return false;
        }
        Path bin = dir.resolve("entry-" + term + "-" + index + ".bin");
        try {
            Files.createDirectories(dir);
            Files.write(bin, data);
            PrivateFiles.write(dir.resolve("entry-" + term + "-" + index + ".txt"), "shard " + shard + ", log entry "
                    + index + " of term " + term + ", " + data.length + " bytes, quarantined at " + Instant.now()
                    + "\nreason: " + reason + "\nfirst bytes: " + HexFormat.of().formatHex(data, 0,
                    Math.min(64, data.length)) + "\n");
        } catch (IOException e) {
            LOG.error("shard {}: cannot write the quarantined entry's evidence to {}: {}", shard, dir, e.toString());
        }
        entry = new Entry(term, index, reason, bin, Instant.now());
        LOG.error("shard {}: log entry {} (term {}) cannot be applied and is quarantined ({}); evidence in {}. This "
                + "replica leaves its group and reports itself not ready; the others go on. To rebuild it, move its "
                + "data directory aside and start it again: it catches up from the leader.", shard, index, term,
                reason, bin);
        return true;
    }
}
