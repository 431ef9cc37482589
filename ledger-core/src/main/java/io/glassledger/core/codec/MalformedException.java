package io.glassledger.core.codec;

import io.glassledger.core.LedgerException;

/** Bytes that do not decode to exactly one canonical value. */
public class MalformedException extends LedgerException {
    public MalformedException(String message) {
        super(message);
    }
}
