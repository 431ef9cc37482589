package io.glassledger.core.postree;

import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Updates that only replace values of existing keys take the in-place paths of {@link PosTree#apply} (an entry or a
 * child swapped without re-cutting the node) whenever the rolling hash, the size limits and the index boundaries
 * allow it. Values here change length by a few bytes, versions cross varint widths, and the parameters are small,
 * so that every reason to fall back occurs: a new pattern hit near the change, a lost hit in a last entry, a
 * maximum-size cut that moves. Whatever path each node takes, the tree must be the bulk build's, and every created
 * node must hash as its encoding does and be flagged fresh exactly when it holds an entry of the update.
 */
class PosTreeInPlaceTest {

    @Property(tries = 60)
    void valueUpdates_giveTheBulkTree(@ForAll("params") TreeParams p, @ForAll @IntRange(min = 20, max = 600) int keys,
            @ForAll long seed) {
        Random r = new Random(seed);
        MemNodes mem = new MemNodes();
        PosTree t = new PosTree(mem, p);
        TreeMap<Bytes, Entry> model = new TreeMap<>();
        for (int i = 0; i < keys; i++) {
            byte[] k = new byte[1 + r.nextInt(12)];
            r.nextBytes(k);
            Bytes key = Bytes.wrap(k);
            model.put(key, Entry.of(key, value(r, 40), 1));
        }
        Hash root = mem.store(t.build(new ArrayList<>(model.values())));
        List<Bytes> pool = new ArrayList<>(model.keySet());
        for (int round = 0; round < 12; round++) {
            long version = round % 2 == 0 ? 2 + round : 120 + 20L * round;
            TreeMap<Bytes, Mutation> batch = new TreeMap<>();
            int size = 1 + r.nextInt(Math.max(1, pool.size() / 4));
            for (int j = 0; j < size; j++) {
                Bytes k = pool.get(r.nextInt(pool.size()));
                Bytes old = model.get(k).value();
                int len = Math.max(0, old.length() + (r.nextInt(3) == 0 ? r.nextInt(7) - 3 : 0));
                batch.put(k, Mutation.put(k, value(r, len, len)));
            }
            Hash base = root;
            PosTree.Result res = t.apply(base, new ArrayList<>(batch.values()),
                    (m, old) -> Entry.of(m.key(), m.value(), version));
            java.util.Set<Hash> holding = new java.util.HashSet<>();
            for (Node n : res.created()) {
                assertEquals(Node.decode(n.encode()).hash(), n.hash(), "created node hashes unlike its encoding");
                // An in-place patch derives its weight from the old node's; it must be what a full count gives.
                assertEquals(Node.decode(n.encode()).weight(), n.weight(), "weight of a created level-" + n.level()
                        + " node");
                boolean holds = false;
                for (int i = 0; i < n.size(); i++) {
                    holds |= n instanceof LeafNode leaf ? leaf.entry(i).version() == version
                            : holding.contains(n.itemHash(i));
                }
                if (holds) {
                    holding.add(n.hash());
                }
                // Only a node holding this round's entries may be stored as a delta; see Node#fresh.
                assertEquals(holds, n.fresh(), "fresh flag of a created level-" + n.level() + " node");
            }
            root = mem.store(res);
            for (Mutation m : batch.values()) {
                Entry before = new PosTree(mem, p).get(base, m.key());
                model.put(m.key(), Entry.of(m.key(), m.value(), version));
            }
            assertEquals(mem.store(t.build(new ArrayList<>(model.values()))), root, "root after round " + round);
        }
    }

    /** The hash of the leaf that holds {@code key} under {@code root}: the new entry's prev. */
    private static Hash leafOf(MemNodes mem, Hash root, Bytes key, Entry present) {
        Node n = mem.node(root);
        while (n instanceof IndexNode in) {
            n = mem.node(in.child(in.route(key)));
        }
        return present == null ? Hash.ZERO : n.hash();
    }

    private static Bytes value(Random r, int maxLen) {
        return value(r, 0, maxLen);
    }

    private static Bytes value(Random r, int minLen, int maxLen) {
        byte[] v = new byte[minLen + r.nextInt(maxLen - minLen + 1)];
        r.nextBytes(v);
        return Bytes.wrap(v);
    }

    @Provide
    Arbitrary<TreeParams> params() {
        return TreeGen.params();
    }
}
