package io.glassledger.core.ledger;

import io.glassledger.verify.block.BlockSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.core.postree.Node;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.core.store.InMemoryNodeStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Nodes stored as deltas against the nodes they replaced read back as the same nodes, and chains stay bounded. */
class DeltaRecordTest {
    private static Bytes key(int i) {
        return Bytes.utf8(String.format("key-%05d", i));
    }

    /** A ledger of 2,000 keys, then 200 blocks each updating one key, so the same leaves change again and again. */
    private static Ledger ledgerWithRepeatedUpdates(InMemoryNodeStore store) {
        Ledger l = Ledger.openOrCreate(store, new TreeParams(8, 64, 4, 32), 0);
        List<Mutation> bulk = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            bulk.add(Mutation.put(key(i), Bytes.utf8("v0-" + i)));
        }
        l.append(List.of(new BlockSpec(1, List.of(), bulk)));
        for (int b = 0; b < 200; b++) {
            int k = (b * 7) % 40;
            l.append(List.of(new BlockSpec(2 + b, List.of(), List.of(Mutation.put(key(k), Bytes.utf8("v" + b))))));
        }
        return l;
    }

    @Test
    void deltaRecords_readBackAsTheNodesTheyEncode_withBoundedChains() {
        InMemoryNodeStore store = new InMemoryNodeStore();
        Ledger l = ledgerWithRepeatedUpdates(store);
        Map<Hash, Node> decoded = new HashMap<>();
        int[] deltas = {0};
        int[] maxDepth = {0};
        // Walk every node of the head tree through a source that decodes records itself, checking each hash.
        io.glassledger.core.postree.NodeSource src = new io.glassledger.core.postree.NodeSource() {
            @Override
            public Node node(Hash h) {
                Node n = decoded.get(h);
                if (n == null) {
                    byte[] rec = store.node(h);
                    if ((rec[0] & 0xff) == Node.DELTA_TAG) {
                        deltas[0]++;
                        maxDepth[0] = Math.max(maxDepth[0], rec[33] & 0xff);
                    }
                    n = Node.decodeRecord(h, rec, this);
                    assertEquals(h, Node.decode(n.encode()).hash(), "record under " + h + " decodes to another node");
                    decoded.put(h, n);
                }
                return n;
            }
        };
        for (long b = 1; b <= l.head().block().number(); b += 17) {
            walk(src, l.block(b).lowerRoot());
        }
        assertTrue(deltas[0] > 0, "repeated updates should have produced delta records");
        assertTrue(maxDepth[0] <= Node.MAX_DELTA_DEPTH, "delta chain of " + maxDepth[0]);
        // Reading through a fresh ledger (cold cache) gives the same values and digest.
        Ledger reopened = Ledger.open(store);
        assertEquals(l.digest(), reopened.digest());
        for (int i = 0; i < 40; i++) {
            assertEquals(l.get(key(i)), reopened.get(key(i)));
        }
    }

    /**
     * Deletes and re-puts over a small key space move leaf boundaries back and forth, so that leaves of old entries
     * are re-cut; every node must still read back from a cold cache. (A delta written over such a re-cut historical
     * node once closed a cycle of bases; RocksDbCrashTest caught it, this seed does not reproduce it.)
     */
    @Test
    void boundaryChurn_neverClosesACycleOfDeltaBases() {
        InMemoryNodeStore store = new InMemoryNodeStore();
        Ledger l = Ledger.openOrCreate(store, new TreeParams(2, 8, 2, 8), 0);
        java.util.Random rnd = new java.util.Random(11);
        for (int b = 1; b <= 400; b++) {
            java.util.TreeMap<Bytes, Mutation> w = new java.util.TreeMap<>();
            for (int j = 0; j < 1 + rnd.nextInt(6); j++) {
                Bytes k = key(rnd.nextInt(60));
                w.put(k, rnd.nextInt(3) == 0 ? Mutation.delete(k) : Mutation.put(k, Bytes.utf8("v" + b)));
            }
            l.append(List.of(new BlockSpec(b, List.of(), new ArrayList<>(w.values()))));
        }
        Ledger cold = Ledger.open(store);
        for (long b = 1; b <= cold.head().block().number(); b++) {
            walk(cold.nodes(), cold.block(b).lowerRoot());
        }
        assertEquals(l.digest(), cold.digest());
    }

    /** Every node hash of the tree under {@code root}, skipping subtrees already collected. */
    private static void collect(io.glassledger.core.postree.NodeSource src, Hash root, java.util.Set<Hash> out) {
        if (root.isZero() || !out.add(root)) {
            return;
        }
        if (src.node(root) instanceof io.glassledger.core.postree.IndexNode in) {
            for (int i = 0; i < in.size(); i++) {
                collect(src, in.child(i), out);
            }
        }
    }

    private static void walk(io.glassledger.core.postree.NodeSource src, Hash root) {
        if (root.isZero()) {
            return;
        }
        Node n = src.node(root);
        if (n instanceof io.glassledger.core.postree.IndexNode in) {
            for (int i = 0; i < in.size(); i++) {
                walk(src, in.child(i));
            }
        }
    }

    /**
     * Inserts grow leaves and split them, so deltas carry runs that insert more items than they remove, and index
     * nodes gain children. Every record must read back, cold, as the node it encodes.
     */
    @Test
    void inserts_giveSizeChangingDeltas_thatReadBack() {
        InMemoryNodeStore store = new InMemoryNodeStore();
        Ledger l = Ledger.openOrCreate(store, new TreeParams(8, 64, 4, 32), 0);
        java.util.Random rnd = new java.util.Random(5);
        int sizeChanging = 0;
        for (int b = 1; b <= 150; b++) {
            java.util.TreeMap<Bytes, Mutation> w = new java.util.TreeMap<>();
            for (int j = 0; j < 1 + rnd.nextInt(8); j++) {
                Bytes k = key(rnd.nextInt(100_000));
                w.put(k, Mutation.put(k, Bytes.utf8("v" + b)));
            }
            l.append(List.of(new BlockSpec(b, List.of(), new ArrayList<>(w.values()))));
        }
        Ledger cold = Ledger.open(store);
        java.util.Set<Hash> all = new java.util.HashSet<>();
        for (long b = 1; b <= cold.head().block().number(); b++) {
            collect(cold.nodes(), cold.block(b).lowerRoot(), all);
        }
        for (Hash h : all) {
            byte[] rec = store.node(h);
            Node n = Node.decodeRecord(h, rec, cold.nodes());
            assertEquals(h, Node.decode(n.encode()).hash(), "record under " + h + " decodes to another node");
            if ((rec[0] & 0xff) == Node.DELTA_TAG) {
                Node base = cold.nodes().node(Hash.of(rec, 1));
                sizeChanging += base.size() != n.size() ? 1 : 0;
            }
        }
        assertTrue(sizeChanging > 0, "inserts should have produced deltas that change a node's size");
        assertEquals(l.digest(), cold.digest());
    }

    @Test
    void deltaRecord_thatIsMalformed_isRejected() {
        InMemoryNodeStore store = new InMemoryNodeStore();
        Ledger l = ledgerWithRepeatedUpdates(store);
        Hash base = firstLeaf(l);
        io.glassledger.core.postree.NodeSource src = l.nodes();
        int size = src.node(base).size();
        java.util.function.Function<Integer, io.glassledger.verify.codec.ByteWriter> head = depth ->
                new io.glassledger.verify.codec.ByteWriter().u8(Node.DELTA_TAG).hash(base).u8(depth);
        Map<String, byte[]> bad = new java.util.LinkedHashMap<>();
        bad.put("depth 0", head.apply(0).varint(1).varint(0).varint(1).varint(0).toByteArray());
        bad.put("depth over the maximum", head.apply(Node.MAX_DELTA_DEPTH + 1).varint(1).varint(0).varint(1).varint(0)
                .toByteArray());
        bad.put("no runs", head.apply(1).varint(0).toByteArray());
        bad.put("skip past the end", head.apply(1).varint(1).varint(size + 1).varint(0).varint(0).toByteArray());
        bad.put("removal past the end", head.apply(1).varint(1).varint(0).varint(size + 1).varint(0).toByteArray());
        bad.put("empty run", head.apply(1).varint(1).varint(0).varint(0).varint(0).toByteArray());
        bad.put("everything removed", head.apply(1).varint(1).varint(0).varint(size).varint(0).toByteArray());
        io.glassledger.core.postree.LeafNode leaf = (io.glassledger.core.postree.LeafNode) src.node(base);
        io.glassledger.verify.codec.ByteWriter dup = head.apply(1).varint(1).varint(1).varint(0).varint(1);
        leaf.entry(0).write(dup);
        bad.put("a duplicate key inserted", dup.toByteArray());
        bad.put("trailing bytes", head.apply(1).varint(1).varint(0).varint(1).varint(0).u8(0).toByteArray());
        for (Map.Entry<String, byte[]> e : bad.entrySet()) {
            assertThrows(MalformedException.class, () -> Node.decodeRecord(Hash.ZERO, e.getValue(), src), e.getKey());
        }
        // The same shape with a valid run (remove the first entry) decodes.
        Node ok = Node.decodeRecord(Hash.ZERO, head.apply(1).varint(1).varint(0).varint(1).varint(0).toByteArray(),
                src);
        assertEquals(size - 1, ok.size());
    }

    private static Hash firstLeaf(Ledger l) {
        Node n = l.nodes().node(l.head().block().lowerRoot());
        Hash h = l.head().block().lowerRoot();
        while (n instanceof io.glassledger.core.postree.IndexNode in) {
            h = in.child(0);
            n = l.nodes().node(h);
        }
        return h;
    }
}
