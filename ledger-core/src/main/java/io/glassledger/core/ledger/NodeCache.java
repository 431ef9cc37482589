package io.glassledger.core.ledger;

import io.glassledger.verify.hash.Hash;
import io.glassledger.core.postree.IndexNode;
import io.glassledger.core.postree.Node;
import io.glassledger.core.postree.NodeSource;
import java.util.HashMap;

/**
 * Decoded nodes by hash, bounded by {@link Node#weight()}, evicted by CLOCK (second chance): a hit sets a flag,
 * and the eviction hand passes over flagged nodes once before taking them. Sixteen independently locked stripes
 * keep readers from queueing behind each other.
 *
 * <p>Why recency and not frequency: a node written by an append is next read when one of its keys is next updated,
 * often hundreds of blocks later, having been read at most once. Frequency-based admission (Caffeine's TinyLFU)
 * turns such nodes away in favour of stale versions that were read more often, and every update then misses.
 *
 * <p>Why CLOCK and not an access-ordered LinkedHashMap: a hit there relinks the entry, three pointer writes into
 * long-lived objects per read, which the garbage collector must then track and rescan. A hit here writes one
 * boolean.
 *
 * <p>Accounting: the configured maximum bounds the sum of the weights of the cached nodes, and that sum bounds the
 * heap the cache keeps reachable. Each node weighs {@link Node#weight()}, everything it references counted whole
 * even where it shares entries with another version of itself (a patched node and its base), plus
 * {@link #SLOT_BYTES} for the cache's own bookkeeping. A shared entry is thus counted once per cached node holding
 * it, never by no one: removing one holder (demotion, eviction, replacement) subtracts only that holder's weight,
 * and the entry stays counted in every other holder for as long as it is cached. The price is that two versions
 * cached together are charged more than they retain; demotion bounds that by dropping each replaced node a few
 * appends after its successor is cached.
 */
final class NodeCache {
    /** A slot, its hash-map node and its share of the table and the ring, on a 64-bit JVM. */
    static final int SLOT_BYTES = 128;

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

    /**
     * Child {@code i} of {@code parent}, through the link this cache left in the parent when it last found that
     * child: no hashing, no lock, as long as the child stays cached. Otherwise it is read through {@code loader}
     * (which caches it) and linked. A link holds the child's slot, not the child: eviction empties the slot, so a
     * cached parent never keeps an evicted child reachable, only its slot ({@link IndexNode#LINK_BYTES}, counted in
     * the parent's weight).
     */
    Node child(IndexNode parent, int i, NodeSource loader) {
        if (parent.link(i) instanceof Slot s) {
            Node n = s.node;
            if (n != null) {
                s.referenced = true;
                return n;
            }
        }
        Hash h = parent.child(i);
        Node n = loader.node(h);
        Slot s = stripe(h).slot(h);
        if (s != null) {
            parent.link(i, s);
        }
        return n;
    }

    /**
     * Drops the node under {@code h}: the ledger calls this for each node an append replaced, some appends later
     * (once the proofs of recent promises, taken at the blocks that held it, are done with it), so that the cache
     * keeps the live tree rather than its history.
     */
    void demote(Hash h) {
        stripe(h).demote(h);
    }

    /** The sum of the cached nodes' weights, slots included: never above the configured maximum but for one node. */
    long weight() {
        long w = 0;
        for (Stripe s : stripes) {
            w += s.weight();
        }
        return w;
    }

    /** @param h the node's hash, passed in so that a freshly decoded node is not hashed just to be cached */
    void put(Hash h, Node n) {
        stripe(h).put(h, n);
    }

    private static final class Slot {
        final Hash hash;
        /** Null once evicted or demoted; volatile, since links read it without the stripe's lock. */
        volatile Node node;
        /** The CLOCK flag; a hit through a link sets it without the lock (a lost write only costs a second chance). */
        boolean referenced;

        Slot(Hash hash, Node node) {
            this.hash = hash;
            this.node = node;
        }
    }

    private static final class Stripe {
        private final long max;
        private long weight;
        private final HashMap<Hash, Slot> map = new HashMap<>(1024);
        /** The clock: slots in insertion order, with the hand at {@code hand}; null where a slot was removed. */
        private Slot[] ring = new Slot[1024];
        private int size;
        private int hand;

        Stripe(long max) {
            this.max = max;
        }

        synchronized long weight() {
            return weight;
        }

        synchronized Node get(Hash h) {
            Slot s = map.get(h);
            if (s == null) {
                return null;
            }
            s.referenced = true;
            return s.node;
        }

        synchronized Slot slot(Hash h) {
            return map.get(h);
        }

        synchronized void demote(Hash h) {
            Slot s = map.remove(h);
            if (s != null) {
                weight -= weigh(s.node);
                // The ring keeps the slot until the hand passes; a removed slot is skipped there.
                s.node = null;
            }
        }

        synchronized void put(Hash h, Node n) {
            Slot s = map.get(h);
            if (s != null) {
                weight += weigh(n) - weigh(s.node);
                s.node = n;
                s.referenced = true;
            } else {
                s = new Slot(h, n);
                // An index node starts with its second chance: it routes to dozens of leaves, and the flood of new
                // leaf versions each block must not push it out before its next use.
                s.referenced = n.level() > 0;
                map.put(h, s);
                if (size == ring.length) {
                    compactOrGrow();
                }
                ring[size++] = s;
                weight += weigh(n);
            }
            evict(s);
        }

        private static long weigh(Node n) {
            return (long) n.weight() + SLOT_BYTES;
        }

        /** Advances the hand, giving flagged slots a second chance, until the weight fits; never evicts {@code keep}. */
        private void evict(Slot keep) {
            int passes = 0;
            while (weight > max && map.size() > 1 && passes < 2 * size + 2) {
                if (hand >= size) {
                    hand = 0;
                }
                Slot s = ring[hand];
                if (s != null && s.node == null) {
                    ring[hand] = null;
                } else if (s != null && s != keep) {
                    if (s.referenced) {
                        s.referenced = false;
                    } else {
                        map.remove(s.hash);
                        weight -= weigh(s.node);
                        s.node = null;
                        ring[hand] = null;
                    }
                }
                hand++;
                passes++;
            }
        }

        /** Drops the holes left by evictions, or doubles the ring when there are few. */
        private void compactOrGrow() {
            if (map.size() * 2 > ring.length) {
                ring = java.util.Arrays.copyOf(ring, ring.length * 2);
            }
            int j = 0;
            int newHand = 0;
            for (int i = 0; i < size; i++) {
                if (ring[i] != null && ring[i].node != null) {
                    if (i == hand) {
                        newHand = j;
                    } else if (i < hand) {
                        newHand = j + 1;
                    }
                    ring[j++] = ring[i];
                }
            }
            java.util.Arrays.fill(ring, j, size, null);
            size = j;
            hand = Math.min(newHand, size);
        }
    }
}
