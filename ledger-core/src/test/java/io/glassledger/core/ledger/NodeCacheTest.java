package io.glassledger.core.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.glassledger.core.hash.Bytes;
import io.glassledger.core.hash.Hash;
import io.glassledger.core.postree.Entry;
import io.glassledger.core.postree.LeafNode;
import io.glassledger.core.postree.Node;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeCacheTest {

    /** Twenty equal-weight nodes whose hashes fall in the same stripe (the cache has 16). */
    private static List<Node> sameStripe() {
        List<Node> out = new ArrayList<>();
        for (int i = 0; out.size() < 20; i++) {
            Node n = LeafNode.of(List.of(Entry.of(Bytes.utf8(String.format("k%06d", i)), Bytes.utf8("v"), 1,
                    Hash.ZERO)));
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
}
