package io.glassledger.core.txn;

import io.glassledger.verify.LedgerException;
import java.nio.file.Path;

/**
 * The write-ahead log is damaged where acknowledged records may be: in a segment other than the last, in a segment
 * header, or in the last segment with a valid frame after the damage (FORMAT.md §15.1). The shard must not start,
 * since replaying only what precedes the damage would silently drop what follows. {@link WalRepair} moves the damaged
 * part aside, keeping it, and leaves the intact log; the message names the command that runs it.
 */
public final class WalCorruptedException extends LedgerException {
    private final Path file;
    private final long offset;

    WalCorruptedException(Path file, long offset, String what) {
        super("WAL segment " + file.toAbsolutePath() + " is damaged at offset " + offset + ": " + what
                + ". Acknowledged transactions may be in or after the damage, so the shard does not start. To keep"
                + " the damaged part as evidence and start from the intact log, stop the server and run: "
                + repairCommand(file) + " (docs/ARCHITECTURE.md, \"Recovery\")");
        this.file = file;
        this.offset = offset;
    }

    private static String repairCommand(Path segment) {
        Path wal = segment.toAbsolutePath().getParent();
        return "./glassledger wal-repair " + (wal.getParent() == null ? wal : wal.getParent());
    }

    /** The launcher command that repairs this shard's log ({@link WalRepair}). */
    public String repairCommand() {
        return repairCommand(file);
    }

    /** The damaged segment file. */
    public Path file() {
        return file;
    }

    /** The byte offset in {@link #file()} where the damage starts (0: the segment header). */
    public long offset() {
        return offset;
    }
}
