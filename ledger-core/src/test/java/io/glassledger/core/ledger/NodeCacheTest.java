package io.glassledger.core.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.entry.Entry;
import io.glassledger.core.postree.IndexNode;
import io.glassledger.core.postree.LeafNode;
import io.glassledger.core.postree.Node;
import io.glassledger.core.postree.NodeSource;
import io.glassledger.core.postree.PosTree;
import io.glassledger.core.postree.TreeParams;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeCacheTest {

    /** Twenty equal-weight nodes whose hashes fall in the same stripe (the cache has 16). */
    private static List<Node> sameStripe() {
        List<Node> out = new ArrayList<>();
        for (int i = 0; out.size() < 20; i++) {
            Node n = LeafNode.of(List.of(Entry.of(Bytes.utf8(String.format("k%06d", i)), Bytes.utf8("v"), 1)));
            if ((n.hash().hashCode() & 15) == 0) {
                out.add(n);
            }
        }
        return out;
    }

    private static int present(NodeCache cache, List<Node> nodes) {
        int n = 0;
        for (Node x : nodes) {
            n += cache.get(x.hash()) == x ? 1 : 0;
        }
        return n;
    }

    @Test
    void demotedNodes_areGone_andTheirWeightGoesToNewOnes() {
        List<Node> nodes = sameStripe();
        long tenPerStripe = 16L * 10 * (nodes.get(0).weight() + NodeCache.SLOT_BYTES);
        NodeCache cache = new NodeCache(tenPerStripe);
        NodeCache control = new NodeCache(tenPerStripe);
        for (Node n : nodes.subList(0, 10)) {
            cache.put(n.hash(), n);
            control.put(n.hash(), n);
        }
        assertEquals(10, present(cache, nodes.subList(0, 10)));
        for (Node n : nodes.subList(0, 5)) {
            cache.demote(n.hash());
            assertNull(cache.get(n.hash()), "a demoted node is no longer cached");
        }
        for (Node n : nodes.subList(10, 15)) {
            cache.put(n.hash(), n);
            control.put(n.hash(), n);
            assertSame(n, cache.get(n.hash()));
        }
        assertEquals(10, present(cache, nodes.subList(5, 15)), "the five kept and the five new all fit");
        assertEquals(10, present(control, nodes.subList(0, 15)), "without demotion, five had to go");
        // The ring drops demoted slots as the hand passes; many more puts keep the weight bounded.
        for (Node n : nodes.subList(15, 20)) {
            cache.put(n.hash(), n);
        }
        assertEquals(10, present(cache, nodes), "the stripe holds ten nodes' weight");
    }

    /** A two-level tree in memory: an index root over several leaves. */
    private static java.util.Map<Hash, Node> smallTree(IndexNode[] root) {
        java.util.Map<Hash, Node> store = new java.util.HashMap<>();
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            entries.add(Entry.of(Bytes.utf8(String.format("k%06d", i)), Bytes.utf8("value " + i), 1));
        }
        PosTree.Result r = new PosTree(store::get, new TreeParams(2, 16, 64, 512)).build(entries);
        r.created().forEach(n -> store.put(n.hash(), n));
        root[0] = (IndexNode) store.get(r.root());
        return store;
    }

    @Test
    void aLinkFindsTheCachedChildWithoutALookup_untilTheChildIsDemotedOrEvicted() {
        IndexNode[] rootOut = new IndexNode[1];
        java.util.Map<Hash, Node> store = smallTree(rootOut);
        IndexNode root = rootOut[0];
        final java.util.Map<Hash, Node> bigStore = store;
        assertEquals(true, root.size() >= 2, "the root has several children");
        int[] loads = {0};
        NodeCache cache = new NodeCache(1L << 30);
        NodeSource loader = h -> {
            loads[0]++;
            Node n = cache.get(h);
            if (n == null) {
                n = bigStore.get(h);
                cache.put(h, n);
            }
            return n;
        };
        Node c0 = cache.child(root, 0, loader);
        assertSame(store.get(root.child(0)), c0);
        assertEquals(1, loads[0]);
        for (int i = 0; i < 3; i++) {
            assertSame(c0, cache.child(root, 0, loader));
        }
        assertEquals(1, loads[0], "found through the link, no lookup");
        cache.demote(root.child(0));
        assertSame(c0, cache.child(root, 0, loader));
        assertEquals(2, loads[0], "a demoted child is looked up again, not taken from the link");

        // A cache of one node per stripe: linking every child evicts others in its stripe, and a link to an evicted
        // child must not answer with it. A tree of its own, whose nodes no other cache has linked.
        store = smallTree(rootOut);
        root = rootOut[0];
        java.util.Map<Hash, Node> tinyStore = store;
        NodeCache tiny = new NodeCache(1);
        int[] tinyLoads = {0};
        NodeSource tinyLoader = h -> {
            tinyLoads[0]++;
            Node n = tinyStore.get(h);
            tiny.put(h, n);
            return n;
        };
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < root.size(); i++) {
                tiny.child(root, i, tinyLoader);
            }
        }
        int evicted = 0;
        for (int i = 0; i < root.size(); i++) {
            if (tiny.get(root.child(i)) == null) {
                evicted++;
                int before = tinyLoads[0];
                assertSame(store.get(root.child(i)), tiny.child(root, i, tinyLoader));
                assertEquals(before + 1, tinyLoads[0], "child " + i + " was evicted, so it is loaded again");
            }
        }
        assertEquals(true, evicted > 0, "some children were evicted (" + root.size() + " children)");
    }
}

