package io.glassledger.core.postree;

import io.glassledger.verify.LedgerException;
import io.glassledger.verify.hash.Hash;

/** A node the tree refers to is not in the store: corruption, or a root from another ledger. */
public class MissingNodeException extends LedgerException {
    private final Hash hash;

    public MissingNodeException(Hash hash) {
        super("node " + hash + " is not stored");
        this.hash = hash;
    }

    public Hash hash() {
        return hash;
    }
}
