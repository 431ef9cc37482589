package io.glassledger.verify.codec;

import io.glassledger.verify.LedgerException;

/** Bytes that do not decode to exactly one canonical value. */
public class MalformedException extends LedgerException {
    public MalformedException(String message) {
        super(message);
    }
}
