package io.glassledger.core.ledger;

import io.glassledger.core.hash.Hash;
import io.glassledger.core.postree.Node;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Decoded nodes by hash, least-recently-used out first, bounded by {@link Node#weight()}. Sixteen independently
 * locked stripes keep readers from queueing behind each other.
 *
 * <p>Why not a frequency-based cache: a node written by an append is next read when one of its keys is next
 * updated, often hundreds of blocks later, having been read at most once. Frequency-based admission (Caffeine's
 * TinyLFU) turns such nodes away in favour of stale versions that were read more often, and every update then
 * misses; recency keeps exactly the live tree.
 */
final class NodeCache {
    private static final int STRIPES = 16;
    private final Stripe[] stripes = new Stripe[STRIPES];

    NodeCache(long maxWeight) {
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Stripe(Math.max(1, maxWeight / STRIPES));
        }
    }

    private Stripe stripe(Hash h) {
        return stripes[h.hashCode() & (STRIPES - 1)];
    }

    Node get(Hash h) {
        return stripe(h).get(h);
    }

    /** @param h the node's hash, passed in so that a freshly decoded node is not hashed just to be cached */
    void put(Hash h, Node n) {
        stripe(h).put(h, n);
    }

    private static final class Stripe {
        private final long max;
        private long weight;
        private final LinkedHashMap<Hash, Node> map = new LinkedHashMap<>(1024, 0.75f, true);

        Stripe(long max) {
            this.max = max;
        }

        synchronized Node get(Hash h) {
            return map.get(h);
        }

        synchronized void put(Hash h, Node n) {
            Node old = map.put(h, n);
            if (old != null) {
                weight -= old.weight();
            }
            weight += n.weight();
            Iterator<Map.Entry<Hash, Node>> it = map.entrySet().iterator();
            while (weight > max && it.hasNext()) {
                Map.Entry<Hash, Node> e = it.next();
                if (e.getValue() == n) {
                    break;
                }
                weight -= e.getValue().weight();
                it.remove();
            }
        }
    }
}
