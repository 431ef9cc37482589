package io.glassledger.core.store;

import io.glassledger.verify.LedgerException;
import java.nio.file.Path;

/**
 * A {@link ValueLog} file is not what the log wrote: damage that a crash cannot leave (a sealed segment without its
 * seal, a missing segment, damage followed by a valid frame), or a value whose frame no longer matches its
 * checksum. Values acknowledged as durable may be behind it, so nothing is cut off or skipped: the log refuses to
 * open, or the read fails, naming the file and the offset.
 */
public final class ValueLogCorruptedException extends LedgerException {
    private final Path file;
    private final long offset;

    public ValueLogCorruptedException(Path file, long offset, String problem) {
        super("value log " + file + " is damaged at offset " + offset + ": " + problem);
        this.file = file;
        this.offset = offset;
    }

    public Path file() {
        return file;
    }

    public long offset() {
        return offset;
    }
}
