package io.glassledger.verify.format;

/** The constants that name this format (FORMAT.md §6.2, §14.3). */
public final class Format {
    /** The format string of the genesis block's meta entry {@code format}; a verifier refuses any other. */
    public static final String ID = "glassledger/4";
    /** The meta key that binds a block's signed-transaction record into its body (FORMAT.md §14.3). */
    public static final String TXS_META = "txs";

    private Format() {
    }
}
