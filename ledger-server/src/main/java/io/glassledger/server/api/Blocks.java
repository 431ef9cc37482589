package io.glassledger.server.api;

import io.glassledger.core.txn.TxnEngine;
import org.springframework.http.HttpStatus;

/** Block numbers in requests: only persisted blocks can be read or proven. */
final class Blocks {
    private Blocks() {
    }

    static long persisted(TxnEngine e, long block) {
        long head = e.digest().blockNo();
        if (block < 0 || block > head) {
            throw new ApiException("unknown_block", HttpStatus.NOT_FOUND, "block " + block + " is not in the ledger"
                    + " (head " + head + ")");
        }
        return block;
    }

    /** The last block whose timestamp is at most {@code ts}; block timestamps never decrease. */
    static long atTimestamp(TxnEngine e, long ts) {
        long lo = 0;
        long hi = e.digest().blockNo();
        if (e.ledger().block(0).timestamp() > ts) {
            throw new ApiException("unknown_block", HttpStatus.NOT_FOUND, "no block at or before timestamp " + ts);
        }
        while (lo < hi) {
            long mid = (lo + hi + 1) >>> 1;
            if (e.ledger().block(mid).timestamp() <= ts) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }
}
