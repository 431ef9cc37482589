package io.glassledger.core.postree;

import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Separators;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import java.util.ArrayList;
import java.util.List;

/**
 * Cuts one level's item sequence into nodes. Bulk builds and incremental updates both go through here, which is
 * what makes them produce the same tree: a boundary depends only on the items since the last boundary.
 *
 * <p>Leaves close after a key whose cut hash hits the pattern ({@link TreeParams#endsLeaf}), or once they hold
 * {@link TreeParams#leafMaxKeys()} entries. Index nodes close after a child whose hash has its first 8 bytes
 * (big-endian) &amp; (indexTargetFanout - 1) == 0, or once they hold {@link TreeParams#indexMaxFanout()} children.
 */
final class LevelBuilder {
    private final int level;
    private final TreeParams params;
    private final NodeSource src;
    final List<Node> out = new ArrayList<>();

    private final List<Entry> entries = new ArrayList<>();
    private int bytes;

    private final List<Hash> children = new ArrayList<>();
    private final List<Bytes> seps = new ArrayList<>();
    private long[] counts = new long[16];
    private Ref first;
    private Ref last;
    /** The node being cut holds an inserted entry, or a child that does. */
    private boolean fresh;

    LevelBuilder(int level, TreeParams params, NodeSource src) {
        this.level = level;
        this.params = params;
        this.src = src;
    }

    boolean atBoundary() {
        return level == 0 ? entries.isEmpty() : children.isEmpty();
    }

    /** The next entry added is one the update inserts, not an old one carried over. */
    void markInserted() {
        fresh = true;
    }

    void addEntry(Entry e) {
        entries.add(e);
        bytes += e.encodedLength();
        if (params.endsLeaf(e) || entries.size() >= params.leafMaxKeys()) {
            closeLeaf();
        }
    }

    /**
     * @param followsOldPredecessor the previous item added was this child's neighbour in the old node, so the
     *                              stored separator is still right
     */
    void addRef(Ref r, boolean followsOldPredecessor) {
        if (children.isEmpty()) {
            first = r;
            seps.add(Bytes.EMPTY);
        } else if (followsOldPredecessor && r.oldSep != null && r.oldSep.length() > 0) {
            seps.add(r.oldSep);
        } else {
            seps.add(Separators.shortest(last.node(src).lastKey(src), r.node(src).firstKey(src)));
        }
        if (children.size() == counts.length) {
            counts = java.util.Arrays.copyOf(counts, counts.length * 2);
        }
        counts[children.size()] = r.count;
        children.add(r.hash);
        fresh |= r.holdsInserted();
        last = r;
        if ((r.hash.prefixLong() & params.indexMask()) == 0 || children.size() >= params.indexMaxFanout()) {
            closeIndex();
        }
    }

    void add(Object item, boolean followsOldPredecessor) {
        if (level == 0) {
            addEntry((Entry) item);
        } else {
            addRef((Ref) item, followsOldPredecessor);
        }
    }

    void finish() {
        if (level == 0) {
            if (!entries.isEmpty()) {
                closeLeaf();
            }
        } else if (!children.isEmpty()) {
            closeIndex();
        }
    }

    private void closeLeaf() {
        LeafNode n = LeafNode.of(entries, bytes);
        if (fresh) {
            n.markFresh();
        }
        out.add(n);
        fresh = false;
        entries.clear();
        bytes = 0;
    }

    private void closeIndex() {
        long[] cs = java.util.Arrays.copyOf(counts, children.size());
        IndexNode n = new IndexNode(level, children.toArray(new Hash[0]), seps.toArray(new Bytes[0]), cs);
        // New children are not stored yet, so the keys must come from the refs, not from the source.
        n.knownKeys(first.node(src).firstKey(src), last.node(src).lastKey(src));
        if (fresh) {
            n.markFresh();
        }
        fresh = false;
        out.add(n);
        children.clear();
        seps.clear();
        first = null;
        last = null;
    }
}
