package io.glassledger.core.postree;

import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.hash.Hash;
import java.util.ArrayList;
import java.util.List;

/**
 * Merges two trees item by item, keeping each side at the highest level it can: equal subtrees at the same
 * position are skipped by hash, and a side descends only into a subtree whose hash differs.
 */
final class TreeDiff {
    private final Side a;
    private final Side b;
    private final DiffVisitor visitor;

    TreeDiff(NodeSource src, Hash rootA, Hash rootB, DiffVisitor visitor) {
        this.a = new Side(src, rootA);
        this.b = new Side(src, rootB);
        this.visitor = visitor;
    }

    void run() {
        while (!a.end || !b.end) {
            if (a.end || b.end) {
                Side s = a.end ? b : a;
                if (s.level() > 0) {
                    s.descend();
                } else {
                    Entry e = s.entry();
                    visitor.onDiff(e.key(), s == a ? e : null, s == b ? e : null);
                    s.advance();
                }
                continue;
            }
            int la = a.level();
            int lb = b.level();
            if (la == lb && a.itemHash().equals(b.itemHash())) {
                a.advance();
                b.advance();
            } else if (la < lb) {
                if (a.canLift()) {
                    a.lift();
                } else {
                    b.descend();
                }
            } else if (lb < la) {
                if (b.canLift()) {
                    b.lift();
                } else {
                    a.descend();
                }
            } else if (la > 0) {
                // A node inserted (or removed) on one side shifts the other's items by one: descend only into
                // the extra one, so that the shared node after it is then skipped, not read.
                if (a.itemHash().equals(b.peekNext())) {
                    b.descend();
                    b.pin();
                } else if (b.itemHash().equals(a.peekNext())) {
                    a.descend();
                    a.pin();
                } else {
                    a.descend();
                    b.descend();
                }
            } else {
                Entry ea = a.entry();
                Entry eb = b.entry();
                int c = Entry.compareKeys(ea, eb);
                if (c < 0) {
                    visitor.onDiff(ea.key(), ea, null);
                    a.advance();
                } else if (c > 0) {
                    visitor.onDiff(eb.key(), null, eb);
                    b.advance();
                } else {
                    visitor.onDiff(ea.key(), ea, eb);
                    a.advance();
                    b.advance();
                }
            }
        }
    }

    private static final class Side {
        private final NodeSource src;
        private final List<Node> nodes = new ArrayList<>();
        private final List<Integer> idx = new ArrayList<>();
        boolean end;
        /** Stack depth that a deliberate descent must not be lifted out of, until the side moves past it. */
        private int pin;

        Side(NodeSource src, Hash root) {
            this.src = src;
            if (root.isZero()) {
                end = true;
            } else {
                nodes.add(src.node(root));
                idx.add(0);
            }
        }

        private int top() {
            return nodes.size() - 1;
        }

        int level() {
            return nodes.get(top()).level();
        }

        Hash itemHash() {
            return nodes.get(top()).itemHash(idx.get(top()));
        }

        Entry entry() {
            return ((LeafNode) nodes.get(top())).entry(idx.get(top()));
        }

        boolean canLift() {
            return nodes.size() > 1 && nodes.size() > pin && idx.get(top()) == 0;
        }

        void pin() {
            pin = nodes.size();
        }

        /** The hash of the item after the current one in the same node, or null. */
        Hash peekNext() {
            int t = top();
            int i = idx.get(t) + 1;
            return i < nodes.get(t).size() ? nodes.get(t).itemHash(i) : null;
        }

        void lift() {
            nodes.remove(top());
            idx.remove(idx.size() - 1);
        }

        void descend() {
            IndexNode in = (IndexNode) nodes.get(top());
            nodes.add(src.child(in, idx.get(top())));
            idx.add(0);
        }

        void advance() {
            while (true) {
                int t = top();
                int i = idx.get(t) + 1;
                if (i < nodes.get(t).size()) {
                    idx.set(t, i);
                    return;
                }
                nodes.remove(t);
                idx.remove(t);
                if (nodes.size() < pin) {
                    pin = 0;
                }
                if (nodes.isEmpty()) {
                    end = true;
                    return;
                }
            }
        }
    }
}
