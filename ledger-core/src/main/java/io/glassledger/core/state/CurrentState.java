package io.glassledger.core.state;

import io.glassledger.core.postree.IndexLevels;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.core.store.FlatRows;
import io.glassledger.core.store.FlatStore;
import io.glassledger.core.store.LeafLog;
import io.glassledger.core.store.ValueLog;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.verify.entry.Separators;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The planned storage's write path (ARCHITECTURE.md, "Storage that grows for years", design items 1–5), composed
 * from the parts built for it and not yet the ledger's: a block's values go to the flat store's value log and its
 * versions to its rows (one row a put), the current version of each leaf it changes to the leaf log (one record a
 * leaf), and the index levels above the leaves are patched in memory. The root after each block is the POS-tree's
 * over the same entries (FORMAT.md §4, §5; {@code CurrentStateTest} checks it against {@code PosTree}).
 *
 * <p><b>A block</b> ({@link #apply}): the puts' values are appended to the value log; the mutations are routed to
 * their leaves through the index levels; each touched leaf is read from the leaf log (one positional read), changed,
 * and re-cut by FORMAT.md §5.3 where a key was inserted, carrying an open last piece into the next leaf until a new
 * boundary falls on an old one (a value update never re-cuts: leaves are cut by their keys); the new leaves are
 * written to the leaf log under the numbers of those they replace (new numbers for more, removals for fewer) and
 * synced; then the flat store commits the block (its rows and head in one RocksDB batch), which is the commit. A
 * crash before it leaves the leaf log one block ahead, and {@link #open} cuts it back ({@link LeafLog}'s block rule).
 *
 * <p><b>Not yet</b>: proofs (the index nodes of past blocks are not kept), collection run by the state itself (its
 * owner calls {@link #collect} between blocks), rebuilding
 * the index levels at open from a checkpoint rather than from every leaf record, and reads at past blocks through
 * the tree. One writer; reads of the head's values go to the flat store.
 */
public final class CurrentState implements AutoCloseable {
    private final TreeParams params;
    private final FlatStore flat;
    private final LeafLog leaves;
    private IndexLevels index;
    private long block;
    private int nextNumber;
    private final ArrayDeque<Integer> freeNumbers = new ArrayDeque<>();

    private CurrentState(TreeParams params, FlatStore flat, LeafLog leaves, IndexLevels index, int nextNumber) {
        this.params = params;
        this.flat = flat;
        this.leaves = leaves;
        this.index = index;
        this.block = flat.head();
        this.nextNumber = nextNumber;
    }

    /**
     * Opens (or creates) the state in {@code dir}: the flat store's head is the committed block, the leaf log is cut
     * back to it, and the index levels are built from every current leaf record (read whole: a checkpoint carrying
     * each leaf's hash, count and separator is the plan for large states).
     */
    public static CurrentState open(Path dir, TreeParams params, long cacheBytes, boolean sync) {
        FlatStore flat = FlatStore.open(dir.resolve("flat"), cacheBytes, sync);
        LeafLog log;
        try {
            log = LeafLog.open(dir.resolve("leaves"), ValueLog.DEFAULT_SEGMENT_BYTES, flat.head());
        } catch (RuntimeException e) {
            flat.close();
            throw e;
        }
        record Found(int number, List<StateEntry> entries) {
        }
        List<Found> found = new ArrayList<>();
        int next = 0;
        for (int n : log.numbers()) {
            found.add(new Found(n, StateLeaf.decode(log.get(n))));
            next = Math.max(next, n + 1);
        }
        found.sort(Comparator.comparing(f -> f.entries().get(0).key()));
        List<IndexLevels.Leaf> ls = new ArrayList<>(found.size());
        Bytes prevLast = null;
        for (Found f : found) {
            Bytes first = f.entries().get(0).key();
            ls.add(new IndexLevels.Leaf(StateLeaf.hash(f.entries()), f.entries().size(),
                    prevLast == null ? Bytes.EMPTY : Separators.shortest(prevLast, first), f.number()));
            prevLast = f.entries().get(f.entries().size() - 1).key();
        }
        CurrentState s = new CurrentState(params, flat, log, IndexLevels.build(params, ls), next);
        boolean[] used = new boolean[next];
        for (Found f : found) {
            used[f.number()] = true;
        }
        for (int i = 0; i < next; i++) {
            if (!used[i]) {
                s.freeNumbers.add(i);
            }
        }
        return s;
    }

    /**
     * Wall-clock nanoseconds {@link #apply} has spent in each of its steps since this state was opened: appending
     * the values (and hashing them), the leaves (routing, reading, merging, cutting, hashing and writing them), the
     * index levels, the leaf log's sync, and the flat store's commit (the value log's sync and the rows' batch).
     */
    public record Spent(long values, long leaves, long index, long leafSync, long commit) {
    }

    private Spent spent = new Spent(0, 0, 0, 0, 0);

    /** Where {@link #apply}'s time went so far (for the benchmark). */
    public Spent spent() {
        return spent;
    }

    /** The committed block; -1 before the first. */
    public long block() {
        return block;
    }

    /** The tree's root at {@link #block()}: {@link Hash#ZERO} when it holds no entry. */
    public Hash root() {
        return index.root();
    }

    /** The latest value of {@code key}, if it has one (a deleted key has none): one flat-store seek and one read. */
    public Optional<Bytes> get(Bytes key) {
        return flat.latest(key).filter(v -> !v.isDelete()).map(flat::value);
    }

    /** Leaves in the tree. */
    public int leafCount() {
        return index.leafCount();
    }

    /** The index levels' heap, estimated ({@link IndexLevels#heapBytes()}). */
    public long indexHeapBytes() {
        return index.heapBytes();
    }

    /** The leaf log's bytes on disk. */
    public long leafLogBytes() {
        return leaves.sizeBytes();
    }

    /** The flat store's rows and values on disk. */
    public FlatStore.Size flatSize() {
        return flat.size();
    }

    /**
     * Applies block {@code number}'s mutations (strictly increasing keys, at most one per key) with FORMAT.md §3's
     * entry rule (a put writes version {@code number}; a delete writes a tombstone over a live entry and nothing
     * otherwise), and commits it. Returns the new root.
     *
     * @throws IllegalArgumentException the block is not the next, or the keys are not strictly increasing
     */
    public Hash apply(long number, List<Mutation> mutations) {
        if (number != block + 1) {
            throw new IllegalArgumentException("block " + number + " after block " + block);
        }
        for (int i = 1; i < mutations.size(); i++) {
            if (mutations.get(i - 1).key().compareTo(mutations.get(i).key()) >= 0) {
                throw new IllegalArgumentException("mutations must be in strictly increasing key order");
            }
        }
        long t0 = System.nanoTime();
        List<FlatRows.Version> versions = flat.appendValues(mutations);
        long t1 = System.nanoTime();
        List<IndexLevels.LeafRun> runs = new Regions(number, mutations, versions).runs();
        long t2 = System.nanoTime();
        if (!runs.isEmpty()) {
            index = index.apply(runs);
        }
        long t3 = System.nanoTime();
        leaves.sync();
        long t4 = System.nanoTime();
        flat.commit(number, mutations, versions);
        long t5 = System.nanoTime();
        block = number;
        spent = new Spent(spent.values + t1 - t0, spent.leaves + t2 - t1, spent.index + t3 - t2,
                spent.leafSync + t4 - t3, spent.commit + t5 - t4);
        return index.root();
    }

    /**
     * Collects the leaf log's dead versions while live bytes are under {@code liveShare} of it, at most
     * {@code maxSegments} segments ({@link LeafLog#collect}); between blocks, by the one writer.
     */
    public LeafLog.Collected collect(double liveShare, int maxSegments) {
        return leaves.collect(liveShare, maxSegments);
    }

    /** The entry {@code m} leaves of {@code old} (null: the key has none), or {@code old} itself for no change. */
    private static StateEntry applied(StateEntry old, Mutation m, FlatRows.Version v, long number) {
        if (m.isDelete()) {
            return old == null || old.isTombstone() ? old : new StateEntry(m.key(), null, null, number);
        }
        return new StateEntry(m.key(), v.valueHash(), v.at(), number);
    }

    /** One block's changes to the leaf level, region by region, as the runs the index levels take. */
    private final class Regions {
        private final long number;
        private final List<Mutation> ms;
        private final List<FlatRows.Version> vs;
        private final List<IndexLevels.LeafRun> runs = new ArrayList<>();
        private final int count = index.leafCount();
        /** The region being cut: its first old position, the next old position to absorb, its leaves so far. */
        private int from = -1;
        private int pos;
        private List<List<StateEntry>> out;
        private List<StateEntry> carry;
        private boolean changed;
        /** The last {@link #merge} added a key. */
        private boolean inserted;

        Regions(long number, List<Mutation> ms, List<FlatRows.Version> vs) {
            this.number = number;
            this.ms = ms;
            this.vs = vs;
        }

        List<IndexLevels.LeafRun> runs() {
            if (count == 0) {
                List<StateEntry> all = new ArrayList<>();
                for (int i = 0; i < ms.size(); i++) {
                    StateEntry e = applied(null, ms.get(i), vs.get(i), number);
                    if (e != null) {
                        all.add(e);
                    }
                }
                if (!all.isEmpty()) {
                    from = 0;
                    pos = 0;
                    out = new ArrayList<>(StateLeaf.cut(params, all));
                    changed = true;
                    emit(Bytes.EMPTY);
                }
                return runs;
            }
            int i = 0;
            while (i < ms.size()) {
                int p = index.route(ms.get(i).key().unsafeArray());
                int j = i + 1;
                while (j < ms.size() && index.route(ms.get(j).key().unsafeArray()) == p) {
                    j++;
                }
                while (from >= 0 && pos < p) {
                    absorb(read(pos));
                }
                if (from < 0) {
                    from = p;
                    pos = p;
                    out = new ArrayList<>();
                    carry = List.of();
                    changed = false;
                }
                List<StateEntry> merged = merge(read(p), i, j);
                if (carry.isEmpty() && !inserted) {
                    // The leaf keeps its keys, so its boundary (FORMAT.md §5.3, keys only): one piece, no cut hashed.
                    out.add(merged);
                    pos++;
                    emit(null);
                } else {
                    absorb(merged);
                }
                i = j;
            }
            while (from >= 0 && pos < count) {
                absorb(read(pos));
            }
            if (from >= 0) {
                out.add(carry);
                emit(null);
            }
            return runs;
        }

        private List<StateEntry> read(int position) {
            return StateLeaf.decode(leaves.get(index.leaf(position).number()));
        }

        /** The old leaf at {@code pos} (already merged with its mutations, or not), appended to the region. */
        private void absorb(List<StateEntry> leaf) {
            List<StateEntry> all;
            if (carry.isEmpty()) {
                all = leaf;
            } else {
                all = new ArrayList<>(carry.size() + leaf.size());
                all.addAll(carry);
                all.addAll(leaf);
            }
            pos++;
            List<List<StateEntry>> pieces = StateLeaf.cut(params, all);
            List<StateEntry> last = pieces.get(pieces.size() - 1);
            if (StateLeaf.closed(params, last)) {
                out.addAll(pieces);
                carry = List.of();
                emit(null);
            } else {
                out.addAll(pieces.subList(0, pieces.size() - 1));
                carry = last;
            }
        }

        /** Mutations {@code [i, j)} applied to a leaf's entries (both in key order). */
        private List<StateEntry> merge(List<StateEntry> old, int i, int j) {
            List<StateEntry> out = new ArrayList<>(old.size() + (j - i));
            inserted = false;
            int k = 0;
            for (int m = i; m < j; m++) {
                Bytes key = ms.get(m).key();
                while (k < old.size() && old.get(k).key().compareTo(key) < 0) {
                    out.add(old.get(k++));
                }
                StateEntry prev = k < old.size() && old.get(k).key().equals(key) ? old.get(k++) : null;
                StateEntry now = applied(prev, ms.get(m), vs.get(m), number);
                if (now != prev) {
                    changed = true;
                    inserted |= prev == null;
                }
                if (now != null) {
                    out.add(now);
                }
            }
            while (k < old.size()) {
                out.add(old.get(k++));
            }
            return out;
        }

        /**
         * Closes the region [from, pos): writes its leaves under the old positions' numbers (new ones for more,
         * removals for fewer) and adds its run. A region whose mutations changed nothing is dropped.
         */
        private void emit(Bytes firstSeparator) {
            if (changed) {
                List<IndexLevels.Leaf> made = new ArrayList<>(out.size());
                for (int k = 0; k < out.size(); k++) {
                    List<StateEntry> leaf = out.get(k);
                    int n = from + k < pos ? index.leaf(from + k).number() : newNumber();
                    leaves.put(n, number, StateLeaf.encode(leaf));
                    Bytes sep = k == 0 ? firstSeparator
                            : Separators.shortest(out.get(k - 1).get(out.get(k - 1).size() - 1).key(), leaf.get(0).key());
                    made.add(new IndexLevels.Leaf(StateLeaf.hash(leaf), leaf.size(), sep, n));
                }
                for (int q = from + out.size(); q < pos; q++) {
                    int n = index.leaf(q).number();
                    leaves.remove(n, number);
                    freeNumbers.add(n);
                }
                runs.add(new IndexLevels.LeafRun(from, pos, made));
            }
            from = -1;
        }
    }

    private int newNumber() {
        Integer n = freeNumbers.poll();
        return n != null ? n : nextNumber++;
    }

    @Override
    public void close() {
        try {
            leaves.close();
        } finally {
            flat.close();
        }
    }
}
