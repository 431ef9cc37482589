package io.glassledger.core.postree;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The index levels of a POS-tree (level 1 up) held in memory in a compact encoding, over leaves that live elsewhere
 * (the planned storage keeps each leaf's current version in a {@code core.store.LeafLog}, found by its number): the
 * structure that routes a key to its leaf without reading the store and hashes a block's changed leaves up to the
 * root. Its nodes are FORMAT.md §4's index nodes, cut by §5.4 and hashed by §4.3, so its root is the POS-tree's root
 * over the same leaves; {@code IndexLevelsTest} checks that against {@link PosTree} over random operation sequences.
 *
 * <p><b>Shape.</b> Level L is an array of {@link PackedIndexNode}s in key order; the children of node j of level L are
 * nodes {@code starts[j] .. starts[j] + size - 1} of level L − 1 (at level 1, leaves by their position in key order).
 * A tree of one leaf is one level-1 node with one child (FORMAT.md §5.5: its root is the leaf); the top level has one
 * node and every level below it more than one, as a bulk build leaves it.
 *
 * <p><b>Updates</b> ({@link #apply}) take the changed leaves as runs of positions replaced by new leaves and return
 * the updated levels. Per level, a node whose children are replaced one for one with the same counts and separators
 * (a value update) and whose boundary stays is patched <em>in place</em>: its hashes and Merkle paths rewritten, no
 * allocation; a node whose boundaries stay but whose shape changes is rebuilt; otherwise the level is re-cut from the
 * start of that node until a new boundary falls on an old one, as {@link PosTree#apply} does, so an incremental
 * result is the bulk build's (structural invariance). Copying every patched node instead (so that the old levels
 * stayed valid) was built first and measured against this: at 10M keys 116k against 147k value updates a second and
 * 14.7 against 11.2 µs of process CPU each, the copies being long-lived like the nodes they replace
 * (benchmark/RESULTS.md). So an {@code apply} consumes this object: afterwards only the levels it returned may be
 * used (any method of this one throws {@link IllegalStateException}).
 *
 * <p><b>Threads.</b> One writer. Reads ({@link #route}, {@link #leaf}, {@link #root}) may run concurrently with each
 * other, not with {@code apply}: the owner orders them (a read-write lock, or reads on the writer's thread).
 *
 * <p><b>Separators.</b> A leaf brings its <em>lead separator</em>, the separator between the last key of the leaf
 * before it and its own first key (empty for the first leaf). Index separators are lead separators of the first
 * leaves below them, so no key is kept here. A caller that replaces a whole re-cut region may pass null as the first
 * new leaf's lead separator: the region starts at the first leaf touched, every key put there routes to it, so its
 * separator is unchanged (a key in {@code [sep, first key)} starts with {@code sep}, and keys are never removed from
 * a tree: a delete writes a tombstone).
 *
 * <p><b>Memory</b>: {@link #heapBytes()}, about 90 bytes a leaf at level 1 (hash 32, Merkle tree 32, count 8, leaf
 * number 4, separator and its end ≈ 10) and a fiftieth of that above. Level arrays are copied per update (a reference
 * per node), which is cheap next to the hashing up to about 10^6 nodes a level.
 */
public final class IndexLevels {
    private static final int H = Hash.LENGTH;

    /**
     * A leaf as the level above sees it.
     *
     * @param hash          its node hash
     * @param count         its entries (≥ 1)
     * @param leadSeparator the separator before it (empty for the first leaf); null only as a run's first leaf, to
     *                      keep the separator of the position it starts at
     * @param number        the number its owner stores it under
     */
    public record Leaf(Hash hash, long count, Bytes leadSeparator, int number) {
    }

    /** Leaves at positions {@code [from, to)} replaced by {@code leaves}, in key order. */
    public record LeafRun(int from, int to, List<Leaf> leaves) {
    }

    /**
     * What an {@link #apply} did: nodes patched in place (of which {@code sameShape} kept their shape and rehashed
     * only the paths above changed children), nodes made by re-cutting, levels built whole.
     */
    public record Work(int patched, int sameShape, int recut, int built) {
    }

    private record Run(int from, int to, List<?> items) {
    }

    static final class Level {
        final PackedIndexNode[] nodes;
        final int[] starts;
        final int children;

        /** A level of new nodes: their child offsets are computed from their sizes. */
        Level(PackedIndexNode[] nodes) {
            this.nodes = nodes;
            this.starts = new int[nodes.length];
            int c = 0;
            for (int i = 0; i < nodes.length; i++) {
                starts[i] = c;
                c += nodes[i].size;
            }
            this.children = c;
        }

        Level(PackedIndexNode[] nodes, int[] starts, int children) {
            this.nodes = nodes;
            this.starts = starts;
            this.children = children;
        }

        /** The node holding child {@code pos}; for {@code pos == children}, the last node. */
        int nodeAt(int pos) {
            int i = Arrays.binarySearch(starts, pos);
            return i >= 0 ? Math.min(i, nodes.length - 1) : -i - 2;
        }

        /** Children of nodes [from, to). */
        int childrenOf(int from, int to) {
            return (to < nodes.length ? starts[to] : children) - starts[from];
        }
    }

    /**
     * A level being made from an old one: old nodes are copied by range, with their child offsets shifted rather
     * than recomputed, so that an update touches only the nodes it changes (reading every node's size to recompute
     * the offsets was a cache miss per node, and at 50M keys the largest cost of an update).
     */
    private static final class LevelOut {
        PackedIndexNode[] nodes;
        int[] starts;
        int n;
        int children;

        LevelOut(int capacity) {
            nodes = new PackedIndexNode[Math.max(16, capacity)];
            starts = new int[nodes.length];
        }

        private void room(int more) {
            if (n + more > nodes.length) {
                int cap = Math.max(n + more, nodes.length + (nodes.length >> 1));
                nodes = Arrays.copyOf(nodes, cap);
                starts = Arrays.copyOf(starts, cap);
            }
        }

        void copy(Level old, int from, int to) {
            if (from >= to) {
                return;
            }
            room(to - from);
            System.arraycopy(old.nodes, from, nodes, n, to - from);
            int delta = children - old.starts[from];
            for (int i = from; i < to; i++) {
                starts[n++] = old.starts[i] + delta;
            }
            children += old.childrenOf(from, to);
        }

        void add(PackedIndexNode node) {
            room(1);
            nodes[n] = node;
            starts[n++] = children;
            children += node.size;
        }

        Level level() {
            return new Level(Arrays.copyOf(nodes, n), Arrays.copyOf(starts, n), children);
        }
    }

    private final TreeParams params;
    private final Level[] levels;
    private final Work work;
    /** Set by {@link #apply}: its nodes may have been patched in place for the levels it returned. */
    private boolean consumed;

    private IndexLevels(TreeParams params, Level[] levels, Work work) {
        this.params = params;
        this.levels = levels;
        this.work = work;
    }

    /** The index levels of the empty tree. */
    public static IndexLevels empty(TreeParams params) {
        return new IndexLevels(params, new Level[]{new Level(new PackedIndexNode[0])}, new Work(0, 0, 0, 0));
    }

    /** The index levels over {@code leaves}, in key order (the first's lead separator empty). */
    public static IndexLevels build(TreeParams params, List<Leaf> leaves) {
        return empty(params).apply(List.of(new LeafRun(0, 0, leaves)));
    }

    public TreeParams params() {
        return params;
    }

    private void ensureCurrent() {
        if (consumed) {
            throw new IllegalStateException("these index levels were updated in place: use the ones apply returned");
        }
    }

    public Work work() {
        return work;
    }

    /** The number of leaves. */
    public int leafCount() {
        ensureCurrent();
        return levels[0].children;
    }

    /** Index levels above the leaves (0 for the empty tree or one leaf). */
    public int height() {
        return leafCount() <= 1 ? 0 : levels.length;
    }

    /** The tree's root: {@link Hash#ZERO} when empty, the leaf's hash when it has one leaf. */
    public Hash root() {
        ensureCurrent();
        Level top = levels[levels.length - 1];
        if (top.nodes.length == 0) {
            return Hash.ZERO;
        }
        PackedIndexNode n = top.nodes[0];
        return levels.length == 1 && n.size == 1 ? Hash.of(n.hashes, 0) : Hash.of(n.hash, 0);
    }

    /** The position of the leaf whose key range holds {@code key} (FORMAT.md §4.2); -1 for the empty tree. */
    public int route(byte[] key) {
        ensureCurrent();
        if (leafCount() == 0) {
            return -1;
        }
        int j = 0;
        for (int l = levels.length - 1; ; l--) {
            Level lv = levels[l];
            int child = lv.starts[j] + lv.nodes[j].route(key);
            if (l == 0) {
                return child;
            }
            j = child;
        }
    }

    /** The leaf at {@code position}: its hash, entry count, lead separator and number. */
    public Leaf leaf(int position) {
        ensureCurrent();
        Level lv = levels[0];
        if (position < 0 || position >= lv.children) {
            throw new IndexOutOfBoundsException("leaf " + position + " of " + lv.children);
        }
        int j = lv.nodeAt(position);
        PackedIndexNode n = lv.nodes[j];
        int s = position - lv.starts[j];
        return new Leaf(Hash.of(n.hashes, s * H), n.count(s), Bytes.of(n.seps, n.sepStart(s), n.sepEnd[s]),
                n.leaves[s]);
    }

    /** The hashes of level {@code level}'s nodes, in key order (for tests). */
    List<Hash> nodeHashes(int level) {
        ensureCurrent();
        List<Hash> out = new ArrayList<>();
        for (PackedIndexNode n : levels[level - 1].nodes) {
            out.add(Hash.of(n.hash, 0));
        }
        return out;
    }

    /** Bytes of heap these levels retain, shared nodes included (see {@link PackedIndexNode#heapBytes()}). */
    public long heapBytes() {
        ensureCurrent();
        long b = 0;
        for (Level lv : levels) {
            b += 16 + 4L * lv.nodes.length + 16 + 4L * lv.starts.length + 24;
            for (PackedIndexNode n : lv.nodes) {
                b += n.heapBytes();
            }
        }
        return b;
    }

    /**
     * The index levels after replacing leaves: each run's positions refer to the leaves before the update, runs in
     * increasing order and disjoint. A run may be empty on either side ({@code from == to}: leaves inserted before
     * position {@code from}); a new leaf's lead separator is required except as a run's first (see the class
     * Javadoc). Refused runs leave this object as it was; otherwise it is consumed (see the class Javadoc).
     *
     * @throws IllegalArgumentException runs out of order, overlapping or out of range; a count below 1; a missing
     *                                  separator
     */
    public IndexLevels apply(List<LeafRun> leafRuns) {
        ensureCurrent();
        List<Run> runs = normalize(leafRuns);
        if (runs.isEmpty()) {
            return this;
        }
        // From here nodes are patched in place: whatever happens, these levels are no longer the tree's.
        consumed = true;
        int[] tally = new int[4];
        List<Level> next = new ArrayList<>();
        Level below = null;
        for (int level = 1; ; level++) {
            if (level > 254) {
                throw new IllegalStateException("more than 254 index levels: the leaves are not a tree's");
            }
            Level old = level - 1 < levels.length ? levels[level - 1] : null;
            List<Run> up = new ArrayList<>();
            Level now;
            if (level == 1 && old.children == 0) {
                now = bulk(level, runs.get(0).items(), tally);
            } else if (old == null) {
                now = bulk(level, Arrays.asList(below.nodes), tally);
            } else if (runs.isEmpty()) {
                next.addAll(Arrays.asList(levels).subList(level - 1, levels.length));
                break;
            } else {
                now = update(level, old, runs, up, tally);
            }
            next.add(now);
            if (now.nodes.length <= 1) {
                break;
            }
            below = now;
            runs = up;
        }
        return new IndexLevels(params, next.toArray(new Level[0]), new Work(tally[0], tally[3], tally[1], tally[2]));
    }

    private List<Run> normalize(List<LeafRun> leafRuns) {
        int n = leafCount();
        List<Run> out = new ArrayList<>(leafRuns.size());
        int prevTo = 0;
        for (LeafRun lr : leafRuns) {
            if (lr.from() < prevTo || lr.to() < lr.from() || lr.to() > n) {
                throw new IllegalArgumentException("runs must be in order, disjoint and within the " + n
                        + " leaves: [" + lr.from() + ", " + lr.to() + ")");
            }
            prevTo = lr.to();
            if (lr.from() == lr.to() && lr.leaves().isEmpty()) {
                continue;
            }
            List<Leaf> items = new ArrayList<>(lr.leaves().size());
            for (int i = 0; i < lr.leaves().size(); i++) {
                Leaf leaf = lr.leaves().get(i);
                if (leaf.count() < 1) {
                    throw new IllegalArgumentException("a leaf holds at least one entry: " + leaf);
                }
                Bytes sep = leaf.leadSeparator();
                if (sep == null) {
                    if (i > 0 || lr.from() == lr.to()) {
                        throw new IllegalArgumentException("only a replacing run's first leaf may omit its"
                                + " separator: " + lr);
                    }
                    sep = leaf(lr.from()).leadSeparator();
                    leaf = new Leaf(leaf.hash(), leaf.count(), sep, leaf.number());
                }
                items.add(leaf);
            }
            out.add(new Run(lr.from(), lr.to(), items));
        }
        if (n == 0 && out.size() > 1) {
            throw new IllegalArgumentException("an empty tree takes one run of leaves");
        }
        return out;
    }

    private Level bulk(int level, List<?> items, int[] tally) {
        IndexCutter cut = new IndexCutter(level, params);
        for (Object item : items) {
            cut.add(item);
        }
        cut.finish();
        tally[2]++;
        return new Level(cut.out.toArray(new PackedIndexNode[0]));
    }

    /** Level {@code level} after the runs of changed children below; adds this level's runs to {@code up}. */
    private Level update(int level, Level old, List<Run> runs, List<Run> up, int[] tally) {
        IndexCutter cut = new IndexCutter(level, params);
        LevelOut out = new LevelOut(old.nodes.length + 4);
        int k = 0;
        int r = 0;
        while (r < runs.size()) {
            int j = old.nodeAt(runs.get(r).from());
            if (j < k) {
                throw new IllegalStateException("level " + level + ": a run at child " + runs.get(r).from()
                        + " falls in node " + j + ", already made; runs " + runs);
            }
            out.copy(old, k, j);
            k = j;
            int end = old.starts[j] + old.nodes[j].size;
            // Every run that starts in node j (or, at the level's end, right after it) is applied to it at once;
            // if one reaches past it, the node is re-cut.
            int rEnd = r;
            boolean within = true;
            while (rEnd < runs.size() && (runs.get(rEnd).from() < end || end == old.children)) {
                within &= runs.get(rEnd).to() <= end;
                rEnd++;
            }
            PackedIndexNode patched = within ? patch(old, j, runs.subList(r, rEnd), cut, tally) : null;
            if (patched != null) {
                out.add(patched);
                up.add(new Run(j, j + 1, List.of(patched)));
                tally[0]++;
                k = j + 1;
                r = rEnd;
                continue;
            }
            int pos = old.starts[j];
            int stop;
            while (true) {
                if (r < runs.size() && runs.get(r).from() == pos) {
                    Run run = runs.get(r++);
                    for (Object item : run.items()) {
                        cut.add(item);
                    }
                    pos = run.to();
                } else if (pos == old.children) {
                    stop = old.nodes.length;
                    break;
                } else {
                    cut.addOld(old, pos++);
                }
                // A new boundary on an old one, with no run before it left to feed: the rest is as it was. (At the
                // level's end, a run that inserts there is still to come.)
                if (cut.n == 0 && (r == runs.size() || runs.get(r).from() >= pos)) {
                    if (pos == old.children) {
                        if (r < runs.size()) {
                            continue;
                        }
                        stop = old.nodes.length;
                        break;
                    }
                    int q = old.nodeAt(pos);
                    if (old.starts[q] == pos) {
                        stop = q;
                        break;
                    }
                }
            }
            cut.finish();
            List<PackedIndexNode> made = new ArrayList<>(cut.out);
            cut.out.clear();
            tally[1] += made.size();
            made.forEach(out::add);
            up.add(new Run(j, stop, made));
            k = stop;
        }
        out.copy(old, k, old.nodes.length);
        return out.level();
    }

    /**
     * Node j of {@code old} with the runs inside it applied, if its boundaries stay where they were: no new child
     * but the last ends a node (by pattern or fanout), and the last still does unless the node is its level's last.
     * Null otherwise (the caller re-cuts).
     */
    private PackedIndexNode patch(Level old, int j, List<Run> inside, IndexCutter cut, int[] tally) {
        PackedIndexNode same = replaceSameShape(old, j, inside);
        if (same != null) {
            tally[3]++;
            return same;
        }
        PackedIndexNode o = old.nodes[j];
        int base = old.starts[j];
        int slot = 0;
        for (Run run : inside) {
            for (; base + slot < run.from(); slot++) {
                cut.appendOld(o, slot);
            }
            for (Object item : run.items()) {
                cut.append(item);
            }
            slot = run.to() - base;
        }
        for (; slot < o.size; slot++) {
            cut.appendOld(o, slot);
        }
        int n = cut.n;
        boolean ok = n > 0 && n <= params.indexMaxFanout();
        for (int i = 0; ok && i < n - 1; i++) {
            ok = !cut.hitsAt(i) && i + 1 < params.indexMaxFanout();
        }
        if (ok && j < old.nodes.length - 1) {
            ok = cut.hitsAt(n - 1) || n == params.indexMaxFanout();
        }
        if (!ok) {
            cut.reset();
            return null;
        }
        return cut.make();
    }

    /**
     * Node j patched in place, if every run in it replaces children one for one by children of the same entry counts
     * and lead separators (a value update) whose hashes leave its boundary where it was; null otherwise.
     */
    private PackedIndexNode replaceSameShape(Level old, int j, List<Run> inside) {
        PackedIndexNode o = old.nodes[j];
        int n = 0;
        for (Run run : inside) {
            if (run.to() - run.from() != run.items().size()) {
                return null;
            }
            n += run.items().size();
        }
        int[] slots = new int[n];
        byte[] newHashes = new byte[n * H];
        int[] newLeaves = o.leaves == null ? null : new int[n];
        boolean lastOfLevel = j == old.nodes.length - 1;
        long mask = params.indexMask();
        int x = 0;
        for (Run run : inside) {
            for (int i = 0; i < run.items().size(); i++) {
                int slot = run.from() - old.starts[j] + i;
                Object item = run.items().get(i);
                byte[] h;
                long count;
                boolean sameSep;
                int leaf = -1;
                if (item instanceof Leaf l) {
                    h = l.hash().unsafeArray();
                    count = l.count();
                    byte[] sep = l.leadSeparator().unsafeArray();
                    sameSep = o.sepEquals(slot, sep, 0, sep.length);
                    leaf = l.number();
                } else {
                    PackedIndexNode c = (PackedIndexNode) item;
                    h = c.hash;
                    count = c.total;
                    sameSep = o.sepEquals(slot, c.seps, 0, c.sepEnd[0]);
                }
                boolean hit = hits(h, 0, mask);
                boolean boundaryKept = slot < o.size - 1 ? !hit
                        : lastOfLevel || hit || o.size == params.indexMaxFanout();
                if (count != o.count(slot) || !sameSep || !boundaryKept) {
                    return null;
                }
                slots[x] = slot;
                System.arraycopy(h, 0, newHashes, x * H, H);
                if (newLeaves != null) {
                    newLeaves[x] = leaf;
                }
                x++;
            }
        }
        return o.replace(slots, newHashes, newLeaves);
    }

    static boolean hits(byte[] hashes, int off, long mask) {
        long p = 0;
        for (int i = 0; i < 8; i++) {
            p = (p << 8) | (hashes[off + i] & 0xff);
        }
        return (p & mask) == 0;
    }
}
