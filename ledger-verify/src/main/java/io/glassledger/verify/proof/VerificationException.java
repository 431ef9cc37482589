package io.glassledger.verify.proof;

import io.glassledger.verify.hash.Hash;

/**
 * A proof did not verify. Checked, so that no caller can forget it; carries the root the trusted digest names
 * and the root the proof led to, when the failure got that far.
 */
public class VerificationException extends Exception {
    private final Hash expected;
    private final Hash computed;

    public VerificationException(String message) {
        this(message, null, null);
    }

    public VerificationException(String message, Hash expected, Hash computed) {
        super(expected == null ? message : message + " (expected " + expected + ", computed " + computed + ")");
        this.expected = expected;
        this.computed = computed;
    }

    /** The root that the trusted digest requires, or null. */
    public Hash expected() {
        return expected;
    }

    /** The root the proof produced, or null. */
    public Hash computed() {
        return computed;
    }
}
