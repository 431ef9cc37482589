package io.glassledger.client.cli;

import io.glassledger.verify.hash.Bytes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Merges one scan page per shard into one listing in key order that has no gaps: a key is listed only if every
 * key before it (in the range, on any shard) is listed too. A shard whose page ended early ({@code more}: its limit
 * or its byte budget) has said nothing about keys after its last one, so keys of other shards beyond the smallest
 * such last key are held back for the next scan. Pure: no I/O.
 */
final class ScanMerge {
    /** One shard's page: its keys in order, and whether it has more after them. */
    record Page<T>(List<T> items, boolean more) {
    }

    /** The listing, and whether there is more after its last key. */
    record Result<T>(List<T> items, boolean more) {
    }

    private ScanMerge() {
    }

    /**
     * @param key the key of an item; an empty page with {@code more} holds everything back (nothing is known to
     *            be complete)
     */
    static <T> Result<T> merge(List<Page<T>> pages, int limit, java.util.function.Function<T, Bytes> key) {
        List<T> all = new ArrayList<>();
        boolean more = false;
        Bytes cutoff = null;  // inclusive: nothing after it is known to be complete
        boolean nothing = false;
        for (Page<T> p : pages) {
            all.addAll(p.items());
            if (p.more()) {
                more = true;
                if (p.items().isEmpty()) {
                    nothing = true;
                } else {
                    Bytes last = key.apply(p.items().get(p.items().size() - 1));
                    cutoff = cutoff == null || last.compareTo(cutoff) < 0 ? last : cutoff;
                }
            }
        }
        if (nothing) {
            return new Result<>(List.of(), true);
        }
        all.sort(Comparator.comparing(key));
        List<T> out = new ArrayList<>();
        for (T t : all) {
            if ((cutoff != null && key.apply(t).compareTo(cutoff) > 0) || out.size() == limit) {
                more = true;
                break;
            }
            out.add(t);
        }
        return new Result<>(out, more);
    }
}
