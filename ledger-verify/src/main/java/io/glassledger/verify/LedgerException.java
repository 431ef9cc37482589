package io.glassledger.verify;

/** Unchecked root of every GlassLedger failure that a caller may want to catch as one. */
public class LedgerException extends RuntimeException {
    public LedgerException(String message) {
        super(message);
    }

    public LedgerException(String message, Throwable cause) {
        super(message, cause);
    }
}
