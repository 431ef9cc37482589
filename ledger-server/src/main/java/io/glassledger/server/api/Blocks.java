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

    /**
     * The last persisted block whose timestamp is at most {@code ts}; block timestamps never decrease. Only a final
     * answer is given, one that the same question asked later answers alike: a timestamp at or beyond the server's
     * clock is refused (400 {@code future_timestamp}: a block sealed from now on may carry it), and so is one at or
     * after the newest persisted block's while later blocks are promised but not yet persisted (503
     * {@code not_persisted}, retry shortly: one of them may carry a timestamp at most {@code ts}).
     */
    static long atTimestamp(TxnEngine e, long ts, long nowMillis) {
        if (ts >= nowMillis) {
            throw new ApiException("future_timestamp", HttpStatus.BAD_REQUEST, "timestamp " + ts
                    + " is not before the server's clock (" + nowMillis + "): blocks stamped at or before it may"
                    + " still be made");
        }
        long hi = e.digest().blockNo();  // read before promisedBound: a block persisted in between only refuses more
        if (e.promisedBound() > hi + 1 && e.ledger().block(hi).timestamp() <= ts) {
            throw new ApiException("not_persisted", HttpStatus.SERVICE_UNAVAILABLE, "blocks after " + hi
                    + " are committed but not yet persisted; one may be stamped at or before " + ts, true);
        }
        long lo = 0;
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
