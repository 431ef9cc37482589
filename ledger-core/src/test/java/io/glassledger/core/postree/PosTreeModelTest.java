package io.glassledger.core.postree;

import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The POS-tree against a {@link TreeMap} model: history independence (any insertion order and batching gives the
 * bulk-built root), and get, scan and diff agreeing with the model.
 */
class PosTreeModelTest {

    @Provide
    Arbitrary<TreeParams> params() {
        return TreeGen.params();
    }

    @Provide
    Arbitrary<TreeMap<Bytes, Bytes>> entryMaps() {
        return TreeGen.entryMaps(300);
    }

    @Provide
    Arbitrary<List<Bytes>> pools() {
        return TreeGen.keyPools(120);
    }

    @Provide
    Arbitrary<List<TreeGen.Op>> ops() {
        return TreeGen.ops(400);
    }

    @Provide
    Arbitrary<List<Bytes>> probes() {
        return TreeGen.keys().list().ofMaxSize(30);
    }

    @Property(tries = 150)
    void apply_anyInsertionOrderAndBatching_givesBulkRoot(@ForAll("params") TreeParams p,
            @ForAll("entryMaps") TreeMap<Bytes, Bytes> entries, @ForAll Random random) {
        MemNodes mem = new MemNodes();
        PosTree t = new PosTree(mem, p);
        Hash bulk = mem.store(t.build(TreeGen.entries(entries)));

        List<Bytes> order = new ArrayList<>(entries.keySet());
        Collections.shuffle(order, random);
        Hash root = Hash.ZERO;
        for (List<Bytes> batch : TreeGen.batches(order, random, 1 + random.nextInt(60))) {
            List<Mutation> ms = new ArrayList<>();
            for (Bytes k : new TreeSet<>(batch)) {
                ms.add(Mutation.put(k, entries.get(k)));
            }
            root = mem.store(t.apply(root, ms, EntryMaker.PLAIN));
        }
        assertEquals(bulk, root, "incremental root differs from bulk root for " + entries.size() + " entries");
    }

    @Property(tries = 150)
    void apply_anyBatchingOfPutsDeletesAndReputs_givesBulkRoot(@ForAll("params") TreeParams p,
            @ForAll("pools") List<Bytes> pool, @ForAll("ops") List<TreeGen.Op> ops, @ForAll Random random) {
        MemNodes mem = new MemNodes();
        PosTree t = new PosTree(mem, p);
        TreeMap<Bytes, Bytes> model = new TreeMap<>();
        Hash root = Hash.ZERO;
        int b = 0;
        for (List<TreeGen.Op> batch : TreeGen.batches(ops, random, 1 + random.nextInt(80))) {
            List<Mutation> ms = TreeGen.mutations(batch, pool);
            root = mem.store(t.apply(root, ms, EntryMaker.PLAIN));
            TreeGen.applyToModel(model, ms);
            Hash bulk = mem.store(t.build(TreeGen.entries(model)));
            assertEquals(bulk, root, "after batch " + b + " (" + ms.size() + " mutations, " + model.size()
                    + " keys)");
            b++;
        }
        // Shrinking in random batches of deletes (the tree loses levels) until empty, still equal to bulk builds.
        List<Bytes> live = new ArrayList<>(model.keySet());
        Collections.shuffle(live, random);
        for (List<Bytes> batch : TreeGen.batches(live, random, 1 + random.nextInt(40))) {
            List<Mutation> ms = new ArrayList<>();
            for (Bytes k : new TreeSet<>(batch)) {
                ms.add(Mutation.delete(k));
            }
            root = mem.store(t.apply(root, ms, EntryMaker.PLAIN));
            TreeGen.applyToModel(model, ms);
            assertEquals(mem.store(t.build(TreeGen.entries(model))), root, "after deleting down to " + model.size());
        }
        assertEquals(Hash.ZERO, root);
    }

    @Property(tries = 80)
    void apply_insertThenDeleteSameKeys_restoresRootAndCreatesNothingOnNoOp(@ForAll("params") TreeParams p,
            @ForAll("entryMaps") TreeMap<Bytes, Bytes> base, @ForAll("entryMaps") TreeMap<Bytes, Bytes> extra) {
        extra.keySet().removeAll(base.keySet());
        MemNodes mem = new MemNodes();
        PosTree t = new PosTree(mem, p);
        Hash root = mem.store(t.build(TreeGen.entries(base)));

        List<Mutation> puts = new ArrayList<>();
        List<Mutation> deletes = new ArrayList<>();
        extra.forEach((k, v) -> {
            puts.add(Mutation.put(k, v));
            deletes.add(Mutation.delete(k));
        });
        Hash grown = mem.store(t.apply(root, puts, EntryMaker.PLAIN));
        assertEquals(root, mem.store(t.apply(grown, deletes, EntryMaker.PLAIN)));

        // Deleting absent keys and re-putting current values changes nothing and creates no node.
        List<Mutation> noop = new ArrayList<>(deletes);
        base.forEach((k, v) -> noop.add(Mutation.put(k, v)));
        noop.sort((x, y) -> x.key().compareTo(y.key()));
        PosTree.Result r = t.apply(root, noop, EntryMaker.PLAIN);
        assertEquals(root, r.root());
        assertTrue(r.created().isEmpty(), "a no-op batch created " + r.created().size() + " nodes");
    }

    @Property(tries = 100)
    void getAndScan_agreeWithTreeMap(@ForAll("params") TreeParams p, @ForAll("pools") List<Bytes> pool,
            @ForAll("ops") List<TreeGen.Op> ops, @ForAll("probes") List<Bytes> probes, @ForAll Random random) {
        MemNodes mem = new MemNodes();
        PosTree t = new PosTree(mem, p);
        TreeMap<Bytes, Bytes> model = new TreeMap<>();
        Hash root = Hash.ZERO;
        for (List<TreeGen.Op> batch : TreeGen.batches(ops, random, 50)) {
            List<Mutation> ms = TreeGen.mutations(batch, pool);
            root = mem.store(t.apply(root, ms, EntryMaker.PLAIN));
            TreeGen.applyToModel(model, ms);
        }
        for (Bytes k : pool) {
            assertEquals(TreeGen.entry(k, model.get(k)), t.get(root, k), "get " + k);
        }
        for (Bytes k : probes) {
            assertEquals(TreeGen.entry(k, model.get(k)), t.get(root, k), "get probe " + k);
        }

        List<Bytes> bounds = new ArrayList<>(probes);
        bounds.addAll(pool);
        bounds.add(null);
        for (int i = 0; i < 25; i++) {
            Bytes from = bounds.get(random.nextInt(bounds.size()));
            Bytes to = bounds.get(random.nextInt(bounds.size()));
            List<Entry> expected = new ArrayList<>();
            if (from == null || to == null || from.compareTo(to) < 0) {
                Map<Bytes, Bytes> range = from == null && to == null ? model
                        : from == null ? model.headMap(to) : to == null ? model.tailMap(from) : model.subMap(from, to);
                expected = TreeGen.entries(range);
            }
            List<Entry> got = new ArrayList<>();
            t.scan(root, from, to, e -> got.add(e));
            assertEquals(expected, got, "scan [" + from + ", " + to + ")");

            // A visitor that stops after `limit` entries sees exactly the first `limit` of the range.
            int limit = 1 + random.nextInt(5);
            List<Entry> stopped = new ArrayList<>();
            t.scan(root, from, to, e -> {
                stopped.add(e);
                return stopped.size() < limit;
            });
            assertEquals(expected.subList(0, Math.min(limit, expected.size())), stopped,
                    "scan [" + from + ", " + to + ") stopping after " + limit);
        }
    }

    @Property(tries = 100)
    void diff_equalsModelSymmetricDifference(@ForAll("params") TreeParams p,
            @ForAll("entryMaps") TreeMap<Bytes, Bytes> base, @ForAll("pools") List<Bytes> pool,
            @ForAll("ops") List<TreeGen.Op> ops, @ForAll("entryMaps") TreeMap<Bytes, Bytes> unrelated) {
        MemNodes mem = new MemNodes();
        PosTree t = new PosTree(mem, p);
        Hash a = mem.store(t.build(TreeGen.entries(base)));
        // b shares structure with a: it is a after one batch of edits (puts, deletes, overwrites).
        List<Bytes> keys = new ArrayList<>(pool);
        keys.addAll(base.keySet());
        List<Mutation> ms = TreeGen.mutations(ops, keys);
        Hash b = mem.store(t.apply(a, ms, EntryMaker.PLAIN));
        TreeMap<Bytes, Bytes> bModel = new TreeMap<>(base);
        TreeGen.applyToModel(bModel, ms);
        Hash c = mem.store(t.build(TreeGen.entries(unrelated)));

        assertEquals(modelDiff(base, bModel), treeDiff(t, a, b), "diff(a, edited a)");
        assertEquals(modelDiff(bModel, base), treeDiff(t, b, a), "diff(edited a, a)");
        assertEquals(modelDiff(base, unrelated), treeDiff(t, a, c), "diff(a, unrelated)");
        assertEquals(modelDiff(unrelated, bModel), treeDiff(t, c, b), "diff(unrelated, edited a)");
        assertEquals(modelDiff(base, new TreeMap<>()), treeDiff(t, a, Hash.ZERO), "diff(a, empty)");
        assertEquals(modelDiff(new TreeMap<>(), base), treeDiff(t, Hash.ZERO, a), "diff(empty, a)");
        assertEquals(List.of(), treeDiff(t, b, b), "diff(b, b)");
    }

    @Property(tries = 30)
    void get_onEmptyTree_isNullAndScanDiffAreEmpty(@ForAll("params") TreeParams p, @ForAll("probes") List<Bytes> ks) {
        PosTree t = new PosTree(new MemNodes(), p);
        for (Bytes k : ks) {
            assertNull(t.get(Hash.ZERO, k));
        }
        t.scan(Hash.ZERO, null, null, e -> {
            throw new AssertionError("empty tree scanned " + e);
        });
        assertEquals(List.of(), treeDiff(t, Hash.ZERO, Hash.ZERO));
        assertEquals(Hash.ZERO, t.build(List.of()).root());
    }

    /** One reported difference; before/after are null where the key is absent. */
    record Diff(Bytes key, Entry before, Entry after) {
    }

    static List<Diff> treeDiff(PosTree t, Hash a, Hash b) {
        List<Diff> out = new ArrayList<>();
        t.diff(a, b, (k, before, after) -> out.add(new Diff(k, before, after)));
        return out;
    }

    static List<Diff> modelDiff(TreeMap<Bytes, Bytes> a, TreeMap<Bytes, Bytes> b) {
        TreeSet<Bytes> keys = new TreeSet<>(a.keySet());
        keys.addAll(b.keySet());
        List<Diff> out = new ArrayList<>();
        for (Bytes k : keys) {
            Bytes va = a.get(k);
            Bytes vb = b.get(k);
            if (va == null ? vb != null : !va.equals(vb)) {
                out.add(new Diff(k, TreeGen.entry(k, va), TreeGen.entry(k, vb)));
            }
        }
        return out;
    }
}
