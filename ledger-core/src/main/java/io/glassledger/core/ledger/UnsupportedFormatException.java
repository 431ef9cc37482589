package io.glassledger.core.ledger;

import io.glassledger.verify.LedgerException;
import io.glassledger.verify.format.Format;

/**
 * A store holds a ledger of another format than this release's {@link Format#ID} (FORMAT.md §6.2, §18): it is
 * refused, never read. There is no in-place upgrade, because the genesis block, and with it every hash, differs.
 */
public final class UnsupportedFormatException extends LedgerException {
    private final String found;

    public UnsupportedFormatException(String found) {
        super("the ledger's genesis block names format " + (found == null ? "(none)" : "\"" + found + "\"")
                + ", but this release reads only " + Format.ID + " (FORMAT.md §18): there is no in-place upgrade");
        this.found = found;
    }

    /** The format string the genesis block names, or null if it names none. */
    public String found() {
        return found;
    }

    /** What an operator can do about it. */
    public static String action() {
        return "Keep the release that wrote this data directory to read it, or start this release on a new, empty data"
                + " directory and write the data again through the API.";
    }
}
