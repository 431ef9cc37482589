package io.glassledger.core.postree;

import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.hash.Bytes;
import java.util.Arrays;

/**
 * A position among the items of one level of an old tree: the path from the root to a node at that level, and
 * an item index in it. The index may equal the node's size ("after its last item") until {@link #normalize()}.
 */
final class Cursor {
    private final NodeSource src;
    final Node[] nodes;
    final int[] idx;
    boolean atEnd;
    /** How many node boundaries this cursor has crossed since it was made. */
    long crossings;
    /** For a cursor made by {@link #seekLeaf}: the leaf holds the key, at the cursor's index. */
    boolean found;

    private Cursor(NodeSource src, Node[] nodes, int[] idx) {
        this.src = src;
        this.nodes = nodes;
        this.idx = idx;
    }

    /** The leaf position of {@code key} in the tree under {@code root}: its index, or its insertion point. */
    static Cursor seekLeaf(NodeSource src, Node root, Bytes key) {
        return seekLeaf(src, root, key, null);
    }

    /** As {@link #seekLeaf(NodeSource, Node, Bytes)}, reusing the nodes of {@code near}'s path while it agrees. */
    static Cursor seekLeaf(NodeSource src, Node root, Bytes key, Cursor near) {
        int depth = root.level() + 1;
        Node[] nodes = new Node[depth];
        int[] idx = new int[depth];
        Node n = root;
        boolean same = near != null && near.nodes.length == depth && near.nodes[0] == root;
        boolean found = false;
        for (int d = 0; d < depth; d++) {
            nodes[d] = n;
            if (n instanceof IndexNode in) {
                idx[d] = in.route(key);
                same = same && near.idx[d] == idx[d];
                n = same ? near.nodes[d + 1] : src.child(in, idx[d]);
            } else {
                int i = ((LeafNode) n).find(key);
                idx[d] = i >= 0 ? i : -i - 1;
                found = i >= 0;
            }
        }
        Cursor c = new Cursor(src, nodes, idx);
        c.found = found;
        return c;
    }

    Cursor copy() {
        Cursor c = new Cursor(src, nodes.clone(), idx.clone());
        c.atEnd = atEnd;
        c.crossings = crossings;
        return c;
    }

    /** The cursor one level up, at the reference to this cursor's node. */
    Cursor parent() {
        return new Cursor(src, Arrays.copyOf(nodes, nodes.length - 1), Arrays.copyOf(idx, idx.length - 1));
    }

    int depth() {
        return nodes.length;
    }

    Node top() {
        return nodes[nodes.length - 1];
    }

    int topIdx() {
        return idx[idx.length - 1];
    }

    void setTopIdx(int i) {
        idx[idx.length - 1] = i;
    }

    boolean pastNode() {
        return topIdx() >= top().size();
    }

    /** The item at this position: an {@link Entry} at level 0, a {@link Ref} above. */
    Object item() {
        Node n = top();
        int i = topIdx();
        return n instanceof LeafNode l ? l.entry(i) : Ref.old((IndexNode) n, i);
    }

    void next() {
        idx[idx.length - 1]++;
    }

    /** If past the end of its node, moves to the first item of the next node on this level (or the end). */
    void normalize() {
        int d = nodes.length - 1;
        if (atEnd || idx[d] < nodes[d].size()) {
            return;
        }
        crossings++;
        int j = d - 1;
        while (j >= 0 && idx[j] + 1 >= nodes[j].size()) {
            j--;
        }
        if (j < 0) {
            atEnd = true;
            return;
        }
        idx[j]++;
        for (int k = j + 1; k <= d; k++) {
            nodes[k] = src.child((IndexNode) nodes[k - 1], idx[k - 1]);
            idx[k] = 0;
        }
    }

    boolean samePosition(Cursor o) {
        return !atEnd && !o.atEnd && Arrays.equals(idx, o.idx);
    }
}
