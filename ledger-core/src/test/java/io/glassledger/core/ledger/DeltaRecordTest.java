package io.glassledger.core.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.core.codec.MalformedException;
import io.glassledger.core.hash.Bytes;
import io.glassledger.core.hash.Hash;
import io.glassledger.core.postree.Node;
import io.glassledger.core.postree.Mutation;
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
        Ledger l = Ledger.openOrCreate(store, new TreeParams(256, 2048, 4, 32), 0);
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
    void deltaRecords_readBackAsTheNodesTheyEncode_withChainsOfAtMost16() {
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
        Ledger l = Ledger.openOrCreate(store, new TreeParams(64, 256, 2, 8), 0);
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

    @Test
    void deltaRecord_withBadIndexOrDepth_isMalformed() {
        InMemoryNodeStore store = new InMemoryNodeStore();
        Ledger l = ledgerWithRepeatedUpdates(store);
        Hash base = firstLeaf(l);
        io.glassledger.core.postree.NodeSource src = l.nodes();
        byte[] depthZero = new io.glassledger.core.codec.ByteWriter().u8(Node.DELTA_TAG).hash(base).u8(0).varint(0)
                .toByteArray();
        assertThrows(MalformedException.class, () -> Node.decodeRecord(Hash.ZERO, depthZero, src));
        byte[] indexPastEnd = new io.glassledger.core.codec.ByteWriter().u8(Node.DELTA_TAG).hash(base).u8(1)
                .varint(1).varint(1000).toByteArray();
        assertThrows(MalformedException.class, () -> Node.decodeRecord(Hash.ZERO, indexPastEnd, src));
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
