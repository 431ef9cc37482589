package io.glassledger.core.postree;

import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.verify.entry.Separators;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Operations on immutable POS-trees read through a {@link NodeSource}. A tree is named by its root hash;
 * {@link Hash#ZERO} is the empty tree. Nothing here writes: updates return the nodes they created, and the
 * caller stores them.
 *
 * <p>Thread-safe: it holds no mutable state.
 */
public final class PosTree {
    private final NodeSource src;
    private final TreeParams params;

    /** The new root and the nodes created for it (none of which is a node of the old tree), children first. */
    public record Result(Hash root, List<Node> created) {
    }

    public PosTree(NodeSource src, TreeParams params) {
        this.src = src;
        this.params = params;
    }

    public TreeParams params() {
        return params;
    }

    public Entry get(Hash root, Bytes key) {
        if (root.isZero()) {
            return null;
        }
        Node n = src.node(root);
        while (n instanceof IndexNode in) {
            n = src.child(in, in.route(key));
        }
        LeafNode leaf = (LeafNode) n;
        int i = leaf.find(key);
        return i >= 0 ? leaf.entry(i) : null;
    }

    /** Builds the tree of {@code entries}, which must be in strictly increasing key order. */
    public Result build(List<Entry> entries) {
        for (int i = 1; i < entries.size(); i++) {
            if (Entry.compareKeys(entries.get(i - 1), entries.get(i)) >= 0) {
                throw new IllegalArgumentException("entries out of order at " + entries.get(i).key());
            }
        }
        Map<Hash, Node> created = new LinkedHashMap<>();
        LevelBuilder b = new LevelBuilder(0, params, src);
        for (Entry e : entries) {
            b.markInserted();
            b.addEntry(e);
        }
        b.finish();
        for (Node n : b.out) {
            created.put(n.hash(), n);
        }
        return finishTop(b.out, 0, created);
    }

    /**
     * Applies mutations in strictly increasing key order, copy-on-write. The result is exactly the tree that
     * {@link #build} gives for the resulting entries.
     */
    public Result apply(Hash root, List<Mutation> mutations, EntryMaker maker) {
        for (int i = 1; i < mutations.size(); i++) {
            if (mutations.get(i - 1).key().compareTo(mutations.get(i).key()) >= 0) {
                throw new IllegalArgumentException("mutations must be in strictly increasing key order");
            }
        }
        if (root.isZero()) {
            List<Entry> entries = new ArrayList<>();
            for (Mutation m : mutations) {
                Entry e = maker.make(m, null);
                if (e != null) {
                    entries.add(checkKey(e, m));
                }
            }
            return build(entries);
        }
        Node rootNode = src.node(root);
        List<Region> regions = new ArrayList<>();
        Cursor near = null;
        for (Mutation m : mutations) {
            Cursor c = Cursor.seekLeaf(src, rootNode, m.key(), near);
            near = c;
            LeafNode leaf = (LeafNode) c.top();
            Entry old = c.found ? leaf.entry(c.topIdx()) : null;
            Entry neu = maker.make(m, old);
            if (neu == old || (neu != null && neu.equals(old))) {
                continue;
            }
            regions.add(new Region(c, old == null ? 0 : 1, neu == null ? List.of() : List.of(checkKey(neu, m))));
        }
        if (regions.isEmpty()) {
            return new Result(root, List.of());
        }
        Map<Hash, Node> created = new LinkedHashMap<>();
        int height = rootNode.level();
        for (int level = 0; level < height; level++) {
            List<Region> up = new ArrayList<>();
            for (Span s : rebuildLevel(level, regions, created)) {
                List<Object> refs = new ArrayList<>(s.nodes.size());
                for (Node n : s.nodes) {
                    refs.add(Ref.fresh(n));
                }
                up.add(new Region(s.start.parent(), s.covered, refs));
            }
            regions = up;
        }
        List<Span> top = rebuildLevel(height, regions, created);
        if (top.size() != 1) {
            throw new IllegalStateException("root level rebuilt as " + top.size() + " spans");
        }
        return finishTop(top.get(0).nodes, height, created);
    }

    private static Entry checkKey(Entry e, Mutation m) {
        if (e.compareKeyTo(m.key()) != 0) {
            throw new IllegalArgumentException("entry maker changed the key");
        }
        return e;
    }

    private record Region(Cursor pos, int remove, List<?> insert) {
    }

    private record Span(Cursor start, int covered, List<Node> nodes) {
    }

    /**
     * A node a level's rebuild made, to be hashed with the others of its level before it counts as created, unless it
     * turns out to equal one of {@code old} (the node it patched, or the nodes a re-cut span covered).
     */
    private record Made(Node node, List<Node> old) {
    }

    /**
     * Re-cuts the items of one level around each region. A span starts at the first item of the node holding a
     * region and ends once a new boundary falls on an old one with no region pending, or at the level's end.
     */
    private List<Span> rebuildLevel(int level, List<Region> regions, Map<Hash, Node> created) {
        List<Span> spans = new ArrayList<>();
        List<Made> made = new ArrayList<>();
        int r = 0;
        while (r < regions.size()) {
            Cursor s = regions.get(r).pos.copy();
            s.setTopIdx(0);
            Cursor start = s.copy();
            int end = level > 0 ? replaceInPlace(regions, r, s, spans, made)
                    : replaceEntriesInPlace(regions, r, s, spans, made);
            if (end > r) {
                r = end;
                continue;
            }
            long crossings0 = s.crossings;
            LevelBuilder b = new LevelBuilder(level, params, src);
            List<Node> visited = new ArrayList<>();
            visited.add(s.top());
            boolean contiguous = false;
            while (true) {
                while (r < regions.size() && regions.get(r).pos.samePosition(s)) {
                    Region g = regions.get(r++);
                    for (Object item : g.insert) {
                        if (level == 0) {
                            b.markInserted();
                        }
                        b.add(item, false);
                    }
                    for (int k = 0; k < g.remove; k++) {
                        normalize(s, visited);
                        if (s.atEnd) {
                            throw new IllegalStateException("region removes past the end of level " + level);
                        }
                        s.next();
                    }
                    contiguous = false;
                }
                if (s.pastNode()) {
                    normalize(s, visited);
                    if (s.atEnd) {
                        b.finish();
                        break;
                    }
                    if (b.atBoundary()) {
                        break;
                    }
                    continue;
                }
                b.add(s.item(), contiguous);
                contiguous = true;
                s.next();
            }
            int covered = (int) (s.crossings - crossings0);
            // Each new node replaces an old one for storage (a delta against it); when nodes split or merge, the
            // old node at the same position or the last one is close enough for a small delta.
            for (int k = 0; k < b.out.size() && covered > 0; k++) {
                b.out.get(k).deriveFrom(visited.get(Math.min(k, covered - 1)));
            }
            for (Node n : b.out) {
                made.add(new Made(n, visited.subList(0, covered)));
            }
            spans.add(new Span(start, covered, b.out));
        }
        // A level's new nodes hash independently of each other (each from its items and, for a patch, its base's
        // Merkle tree), so on two cores; the next level needs their hashes, and the order of created stays the
        // level's order.
        SplitWork.forEachIndex(made, i -> made.get(i).node().hash());
        for (Made m : made) {
            if (!reemitted(m.node(), m.old())) {
                created.put(m.node().hash(), m.node());
            }
        }
        return spans;
    }

    /**
     * The common case at index levels, without re-cutting: the regions in the index node at {@code s} splice new
     * children in place of old ones (one for one, or a different number when a child split or merged), all within
     * the node. An index node's only boundary is after its last child, so re-cutting gives the spliced node exactly
     * when no child but the last has a boundary hash, the last child has one iff the old last child did, and the
     * node stays under the maximum fanout (so that no count-based cut falls anywhere). Separators are recomputed
     * next to new children and kept elsewhere. Returns the index past the regions handled, or {@code r} if it did
     * not apply.
     */
    private int replaceInPlace(List<Region> regions, int r, Cursor s, List<Span> spans, List<Made> made) {
        IndexNode old = (IndexNode) s.top();
        int n = old.size();
        int max = params.indexMaxFanout();
        long mask = params.indexMask();
        if (n >= max) {
            return r;
        }
        List<Ref> out = new ArrayList<>(n + 4);
        /**
         * Per output child: the old child index it keeps; -1 for a new child; -(o + 2) for a new child that replaces
         * old child o one for one (whose separators may then stand, see {@link #sameBoundary}).
         */
        int[] from = new int[n + 16];
        int k = r;
        int j = 0;
        while (k < regions.size() && sameNode(regions.get(k).pos, s)) {
            Region g = regions.get(k);
            int i = g.pos.topIdx();
            if (i < j || i + g.remove > n) {
                return r;
            }
            for (; j < i; j++) {
                from = keep(out, from, j, null);
            }
            boolean swap = g.remove == 1 && g.insert.size() == 1;
            for (Object item : g.insert) {
                Ref nr = (Ref) item;
                if (nr.oldSep != null) {
                    return r;
                }
                from = keep(out, from, swap ? -(i + 2) : -1, nr);
            }
            j = i + g.remove;
            k++;
        }
        if (k == r) {
            return r;
        }
        for (; j < n; j++) {
            from = keep(out, from, j, null);
        }
        int m = out.size();
        if (m == 0 || m >= max) {
            return r;
        }
        Hash[] children = new Hash[m];
        long[] counts = new long[m];
        Bytes[] seps = new Bytes[m];
        boolean fresh = false;
        for (int c = 0; c < m; c++) {
            int o = from[c];
            if (o >= 0) {
                children[c] = old.child(o);
                counts[c] = old.childCount(o);
            } else {
                Ref nr = out.get(c);
                children[c] = nr.hash;
                counts[c] = nr.count;
                fresh |= nr.holdsInserted();
            }
        }
        // Old children other than the last have no boundary hash (the node would have ended there), so only new
        // children, and whichever child ends up last, need looking at.
        boolean oldLastHit = (old.child(n - 1).prefixLong() & mask) == 0;
        for (int c = 0; c < m; c++) {
            boolean hit = from[c] == n - 1 ? oldLastHit : from[c] < 0 && (children[c].prefixLong() & mask) == 0;
            if (c < m - 1 ? hit : hit != oldLastHit) {
                return r;
            }
        }
        seps[0] = Bytes.EMPTY;
        boolean[] keptSep = new boolean[n];
        long sepWeight = old.separatorsWeight();
        for (int c = 1; c < m; c++) {
            int o = oldPosition(from[c]);
            if (o > 0 && oldPosition(from[c - 1]) == o - 1
                    && (from[c] >= 0 || sameBoundary(out.get(c), old, o, true))
                    && (from[c - 1] >= 0 || sameBoundary(out.get(c - 1), old, o - 1, false))) {
                // Both neighbours are the old ones, or replace them with the same boundary keys: the separator,
                // a function of those two keys, stands.
                seps[c] = old.separator(o);
                keptSep[o] = true;
            } else {
                seps[c] = Separators.shortest(childNode(out, from, old, c - 1).lastKey(src),
                        childNode(out, from, old, c).firstKey(src));
                sepWeight += IndexNode.separatorWeight(seps[c]);
            }
        }
        for (int o = 1; o < n; o++) {
            if (!keptSep[o]) {
                sepWeight -= IndexNode.separatorWeight(old.separator(o));
            }
        }
        IndexNode node = new IndexNode(old.level(), children, seps, counts);
        // Kept children keep the cache's links, so that the next seek through this node needs no lookup by hash.
        for (int c = 0; c < m; c++) {
            Object link = from[c] >= 0 ? old.link(from[c]) : null;
            if (link != null) {
                node.link(c, link);
            }
        }
        // The weight from the old node's separators and the changed ones, without walking every separator again.
        node.knownSeparatorsWeight(sepWeight);
        if (fresh) {
            node.markFresh();
        }
        node.knownKeys(from[0] == 0 ? old.firstKey(src) : childNode(out, from, old, 0).firstKey(src),
                from[m - 1] == n - 1 ? old.lastKey(src) : childNode(out, from, old, m - 1).lastKey(src));
        node.deriveFrom(old);
        made.add(new Made(node, List.of(old)));
        spans.add(new Span(s.copy(), 1, List.of(node)));
        return k;
    }

    /** The old child index an output child keeps or replaces one for one (see {@code from}), or -1. */
    private static int oldPosition(int from) {
        return from >= 0 ? from : from <= -2 ? -from - 2 : -1;
    }

    /**
     * The new child {@code ref}, which replaces old child {@code o} of {@code old}, has that child's first key
     * ({@code first}) or last key (otherwise): known without reading the old child, since the new node was derived
     * from it.
     */
    private boolean sameBoundary(Ref ref, IndexNode old, int o, boolean first) {
        Node neu = ref.node(src);
        Node was = neu.replaced();
        if (was == null || !was.hash().equals(old.child(o))) {
            return false;
        }
        return first ? neu.firstKey(src).equals(was.firstKey(src)) : neu.lastKey(src).equals(was.lastKey(src));
    }

    /** Appends an output child: old child {@code o}, or the new {@code ref} when o is negative (see {@code from}). */
    private static int[] keep(List<Ref> out, int[] from, int o, Ref ref) {
        if (out.size() == from.length) {
            from = java.util.Arrays.copyOf(from, from.length * 2);
        }
        from[out.size()] = o;
        out.add(ref);
        return from;
    }

    private Node childNode(List<Ref> out, int[] from, IndexNode old, int c) {
        return from[c] >= 0 ? src.child(old, from[c]) : out.get(c).node(src);
    }

    /**
     * The common case at the leaf level, without re-cutting: every region in the leaf at {@code s} replaces an entry
     * by one of the same key. Leaf boundaries depend on the keys alone (FORMAT §5.2), and the leaf keeps its keys
     * and its count, so re-cutting would give this leaf with the entries swapped: no other entry is read. Returns
     * the index past the regions handled, or {@code r}.
     */
    private int replaceEntriesInPlace(List<Region> regions, int r, Cursor s, List<Span> spans, List<Made> made) {
        LeafNode old = (LeafNode) s.top();
        int n = old.size();
        int k = r;
        while (k < regions.size() && sameNode(regions.get(k).pos, s)) {
            Region g = regions.get(k);
            if (g.remove != 1 || g.insert.size() != 1 || g.pos.topIdx() >= n) {
                return r;
            }
            k++;
        }
        if (k == r) {
            return r;
        }
        int[] idx = new int[k - r];
        Entry[] es = new Entry[k - r];
        for (int j = r; j < k; j++) {
            Region g = regions.get(j);
            idx[j - r] = g.pos.topIdx();
            es[j - r] = (Entry) g.insert.get(0);
            if (!old.entry(idx[j - r]).keyEquals(es[j - r])) {
                return r;
            }
        }
        LeafNode leaf = old.withReplaced(idx, es, idx.length);
        leaf.markFresh();
        leaf.knownKeys(old.firstKey(src), old.lastKey(src));
        leaf.deriveFrom(old);
        made.add(new Made(leaf, List.of()));
        spans.add(new Span(s.copy(), 1, List.of(leaf)));
        return k;
    }

    private static boolean sameNode(Cursor a, Cursor b) {
        int d = a.idx.length - 1;
        return d == b.idx.length - 1 && java.util.Arrays.equals(a.idx, 0, d, b.idx, 0, d);
    }

    /** A span may cut an old node out again unchanged; that node is already stored and is not new. */
    private static boolean reemitted(Node n, List<Node> old) {
        for (int k = 0; k < old.size(); k++) {
            if (old.get(k).hash().equals(n.hash())) {
                return true;
            }
        }
        return false;
    }

    private static void normalize(Cursor s, List<Node> visited) {
        long before = s.crossings;
        s.normalize();
        if (s.crossings != before && !s.atEnd) {
            visited.add(s.top());
        }
    }

    /**
     * Builds levels above {@code nodes} (already in {@code created} if new) until one node remains, then drops
     * single-child roots.
     */
    private Result finishTop(List<Node> nodes, int level, Map<Hash, Node> created) {
        while (nodes.size() > 1) {
            LevelBuilder b = new LevelBuilder(++level, params, src);
            for (Node n : nodes) {
                b.addRef(Ref.fresh(n), false);
            }
            b.finish();
            nodes = b.out;
            for (Node n : nodes) {
                created.put(n.hash(), n);
            }
        }
        if (nodes.isEmpty()) {
            return new Result(Hash.ZERO, List.of());
        }
        Node root = nodes.get(0);
        while (root instanceof IndexNode in && in.size() == 1) {
            created.remove(in.hash());
            Node child = created.get(in.child(0));
            root = child != null ? child : src.node(in.child(0));
        }
        return new Result(root.hash(), List.copyOf(created.values()));
    }

    /**
     * Visits entries with from &lt;= key &lt; to in key order (null bounds are open) until the visitor returns
     * false.
     */
    public void scan(Hash root, Bytes from, Bytes to, Predicate<Entry> visitor) {
        if (!root.isZero()) {
            scan(src.node(root), from, to, visitor);
        }
    }

    private boolean scan(Node n, Bytes from, Bytes to, Predicate<Entry> visitor) {
        if (n instanceof LeafNode leaf) {
            int i = 0;
            if (from != null) {
                int f = leaf.find(from);
                i = f >= 0 ? f : -f - 1;
            }
            for (; i < leaf.size(); i++) {
                Entry e = leaf.entry(i);
                if (to != null && e.compareKeyTo(to) >= 0) {
                    return false;
                }
                if (!visitor.test(e)) {
                    return false;
                }
            }
            return true;
        }
        IndexNode in = (IndexNode) n;
        for (int i = from == null ? 0 : in.route(from); i < in.size(); i++) {
            if (to != null && i > 0 && in.separator(i).compareTo(to) >= 0) {
                return false;
            }
            if (!scan(src.child(in, i), from, to, visitor)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Reports every key whose entry differs between the trees {@code a} and {@code b}, in key order. Subtrees with
     * equal hashes at the same position are skipped without being read.
     */
    public void diff(Hash a, Hash b, DiffVisitor visitor) {
        new TreeDiff(src, a, b, visitor).run();
    }
}
