package io.glassledger.core.postree;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;

/** A child reference while a level is rebuilt: an old child (with its stored separator) or a new node. */
final class Ref {
    final Hash hash;
    /** Separator stored before this child in its old node; EMPTY if it was first; null for a new node. */
    final Bytes oldSep;
    /** Entries under this child. */
    final long count;
    private Node node;

    private Ref(Hash hash, Bytes oldSep, long count, Node node) {
        this.hash = hash;
        this.oldSep = oldSep;
        this.count = count;
        this.node = node;
    }

    static Ref old(IndexNode parent, int i) {
        return new Ref(parent.child(i), parent.separator(i), parent.childCount(i), null);
    }

    static Ref fresh(Node node) {
        return new Ref(node.hash(), null, node.count(), node);
    }

    /** The referenced node is new and holds inserted entries ({@link Node#fresh()}). */
    boolean holdsInserted() {
        return oldSep == null && node != null && node.fresh();
    }

    Node node(NodeSource src) {
        Node n = node;
        if (n == null) {
            n = src.node(hash);
            node = n;
        }
        return n;
    }
}
