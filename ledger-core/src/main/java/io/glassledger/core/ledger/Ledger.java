package io.glassledger.core.ledger;

import io.glassledger.verify.block.BlockSpec;
import io.glassledger.verify.block.Block;
import io.glassledger.verify.LedgerException;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.format.Format;
import io.glassledger.verify.format.FormatRule;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import io.glassledger.core.postree.DiffVisitor;
import io.glassledger.verify.entry.Entry;
import io.glassledger.core.postree.EntryMaker;
import io.glassledger.core.postree.IndexNode;
import io.glassledger.core.postree.LeafNode;
import io.glassledger.core.postree.MissingNodeException;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.postree.Node;
import io.glassledger.core.postree.NodeSource;
import io.glassledger.core.postree.PosTree;
import io.glassledger.core.postree.SplitWork;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.verify.proof.AppendOnlyProof;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.HistoryProof;
import io.glassledger.verify.proof.KeysProof;
import io.glassledger.verify.proof.LowerProof;
import io.glassledger.verify.proof.Version;
import io.glassledger.core.store.NodeStore;
import io.glassledger.core.store.StoreBatch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * GlassDB's two-level ledger (§3.3.1). The lower POS-tree of each block indexes the whole state, key → entry; each
 * entry points at the leaf that held its previous version. The upper tree, keyed by block number, holds the block
 * hashes. Block 0 is the genesis block: empty state, and the format parameters in its meta.
 *
 * <p>Threading: appends are serialised; reads and proofs run concurrently with them and see the head as of their
 * start. The caller owns the store and closes it.
 */
public final class Ledger {
    public static final long DEFAULT_CACHE_BYTES = 512L << 20;

    private final NodeStore store;
    private final TreeParams params;
    private final NodeCache cache;
    private final NodeSource source;
    private final PosTree tree;
    private final TreeProver prover;
    private final UpperTree upper;
    /**
     * The nodes each of the last appends replaced, oldest first: they leave the cache {@link #DEMOTE_AFTER_APPENDS}
     * appends later, not at once, because the proofs of the promises just made are taken at the blocks that held
     * them, a few blocks behind the head, and each such proof would otherwise read and decode the replaced nodes'
     * delta chains again.
     */
    private final java.util.ArrayDeque<List<Hash>> recentlyReplaced = new java.util.ArrayDeque<>();
    private long recentlyReplacedCount;
    static final int DEMOTE_AFTER_APPENDS = 16;
    /**
     * At most this many replaced nodes wait to be demoted: a large append (a bulk load touching most leaves) has its
     * replaced nodes demoted at once, as before, rather than holding their hashes and cache space for 16 appends.
     */
    static final int DEMOTE_WAITING_MAX = 1 << 16;
    private volatile Head head;

    /** The newest block and the digest naming it. upperRoot covers blocks 0..number-1. */
    public record Head(Block block, Hash blockHash, Hash upperRoot, Digest digest) {
    }

    private Ledger(NodeStore store, TreeParams params, long cacheBytes) {
        this.store = store;
        this.params = params;
        this.cache = new NodeCache(cacheBytes);
        this.source = new NodeSource() {
            @Override
            public Node node(Hash h) {
                return load(h);
            }

            @Override
            public Node child(IndexNode parent, int i) {
                return cache.child(parent, i, this);
            }
        };
        this.tree = new PosTree(source, params);
        this.prover = new TreeProver(source);
        this.upper = new UpperTree(store);
    }

    private Node load(Hash h) {
        return load(h, true);
    }

    /**
     * A node from the cache, or decoded from its record; {@code keep} caches a node so decoded. The bases of a delta
     * chain are decoded with keep false: each is needed once, to rebuild the node asked for, and caching them would
     * evict live nodes in their place (a chain can be dozens of records long).
     */
    private Node load(Hash h, boolean keep) {
        Node n = cache.get(h);
        if (n == null) {
            byte[] b = store.node(h);
            if (b == null) {
                throw new MissingNodeException(h);
            }
            n = Node.decodeRecord(h, b, base -> load(base, false));
            if (keep) {
                cache.put(h, n);
            }
        }
        return n;
    }

    /** The node cache's accounted weight in bytes (for tests of its bound). */
    long cachedWeight() {
        return cache.weight();
    }

    /** Opens the ledger in {@code store}, writing a genesis block with {@code params} if the store is empty. */
    public static Ledger openOrCreate(NodeStore store, TreeParams params, long genesisTimestamp) {
        return openOrCreate(store, params, genesisTimestamp, DEFAULT_CACHE_BYTES);
    }

    /** @param cacheBytes approximate heap for decoded nodes */
    public static Ledger openOrCreate(NodeStore store, TreeParams params, long genesisTimestamp, long cacheBytes) {
        if (store.blockCount() == 0) {
            Ledger l = new Ledger(store, params, cacheBytes);
            l.writeGenesis(genesisTimestamp);
            return l;
        }
        Ledger l = open(store, cacheBytes);
        if (!l.params.equals(params)) {
            throw new LedgerException("ledger was created with " + l.params + ", not " + params);
        }
        return l;
    }

    /** Opens an existing ledger; its parameters come from its genesis block. */
    public static Ledger open(NodeStore store) {
        return open(store, DEFAULT_CACHE_BYTES);
    }

    public static Ledger open(NodeStore store, long cacheBytes) {
        byte[] g = store.block(0);
        if (g == null) {
            throw new LedgerException("store holds no ledger (no genesis block)");
        }
        checkFormat(store);
        TreeParams p;
        try {
            p = genesisParams(Block.decode(0, g));
        } catch (MalformedException e) {
            throw new LedgerException("unsupported ledger: " + e.getMessage());
        }
        Ledger l = new Ledger(store, p, cacheBytes);
        l.head = l.loadHead(store.blockCount() - 1);
        return l;
    }

    /**
     * Refuses a store whose ledger was written in another format (its genesis block's {@code format}, FORMAT.md §6.2,
     * §18); a store without a ledger, or with an undecodable genesis block, passes to {@link #open}, which says so.
     *
     * @throws UnsupportedFormatException naming the format found
     */
    public static void checkFormat(NodeStore store) {
        byte[] g = store.block(0);
        if (g == null) {
            return;
        }
        Bytes format;
        try {
            format = Block.decode(0, g).meta().get("format");
        } catch (MalformedException e) {
            return;
        }
        if (format == null || !format.equals(Bytes.utf8(Format.ID))) {
            throw new UnsupportedFormatException(format == null ? null : format.utf8String());
        }
    }

    /**
     * The tree parameters of a ledger whose genesis block this is (FORMAT.md §6.2).
     *
     * @throws MalformedException the block names another format or hash function, or no valid tree parameters
     */
    public static TreeParams genesisParams(Block genesis) {
        Bytes format = genesis.meta().get("format");
        if ((format == null || !format.equals(Bytes.utf8(Format.ID))) && FormatRule.GENESIS_FORMAT.enforced()) {
            throw new MalformedException("the genesis block's format is " + (format == null ? "missing"
                    : "\"" + format.utf8String() + "\"") + ", not " + Format.ID);
        }
        Bytes hash = genesis.meta().get("hash");
        if ((hash == null || !hash.equals(Bytes.utf8(Hashing.ALGORITHM))) && FormatRule.GENESIS_HASH.enforced()) {
            throw new MalformedException("the genesis block's hash function is not " + Hashing.ALGORITHM);
        }
        Bytes tree = genesis.meta().get("tree");
        if (tree == null && FormatRule.GENESIS_TREE_MISSING.enforced()) {
            throw new MalformedException("the genesis block has no tree parameters");
        }
        return TreeParams.decode(tree.toByteArray());
    }

    private void writeGenesis(long timestamp) {
        TreeMap<String, Bytes> meta = new TreeMap<>();
        meta.put("format", Bytes.utf8(Format.ID));
        meta.put("hash", Bytes.utf8(Hashing.ALGORITHM));
        meta.put("tree", Bytes.wrap(params.encode()));
        Block genesis = new Block(0, timestamp, Hash.ZERO, List.of(), meta);
        StoreBatch batch = new StoreBatch().putBlock(0, genesis.encode());
        Hash bh = genesis.hash();
        upper.append(0, bh, batch);
        store.write(batch);
        head = new Head(genesis, bh, Hash.ZERO, digestOf(genesis, Hash.ZERO));
    }

    private Head loadHead(long number) {
        Block b = block(number);
        Hash bh = b.hash();
        Hash u = upper.root(number);
        return new Head(b, bh, u, digestOf(b, u));
    }

    public TreeParams params() {
        return params;
    }

    public Head head() {
        return head;
    }

    public Digest digest() {
        return head.digest();
    }

    public NodeSource nodes() {
        return source;
    }

    public PosTree tree() {
        return tree;
    }

    public Block block(long number) {
        byte[] rec = number >= 0 && number <= headNumberOrStore() ? store.block(number) : null;
        if (rec == null) {
            throw new IllegalArgumentException("block " + number + " is not in the ledger (head is "
                    + headNumberOrStore() + ")");
        }
        return Block.decode(number, rec);
    }

    private long headNumberOrStore() {
        Head h = head;
        return h == null ? store.blockCount() - 1 : h.block().number();
    }

    /**
     * The upper tree's root over blocks 0..number−1 that block {@code number}'s digest commits to (FORMAT.md §8):
     * with the block record, what recomputes the block's digest.
     */
    public Hash upperRoot(long number) {
        Head h = head;
        return number == h.block().number() ? h.upperRoot() : upper.root(number);
    }

    public Digest digest(long number) {
        Head h = head;
        if (number == h.block().number()) {
            return h.digest();
        }
        Block b = block(number);
        return digestOf(b, upper.root(number));
    }

    // ---------------------------------------------------------------- writes

    /**
     * Appends blocks in one atomic store write. Each spec's writes (at most one per key) become the next block;
     * a put records the leaf that held the key's previous version, a delete leaves a tombstone so history goes on.
     *
     * @throws IllegalArgumentException for a bad spec (duplicate key, oversized key or value, timestamp going
     *                                  back); nothing is written then
     */
    public synchronized List<Block> append(List<BlockSpec> specs) {
        Map<Hash, Node> overlay = new HashMap<>();
        List<Hash> replaced = new ArrayList<>();
        NodeSource src = new NodeSource() {
            @Override
            public Node node(Hash h) {
                Node n = overlay.get(h);
                return n != null ? n : source.node(h);
            }

            @Override
            public Node child(IndexNode parent, int i) {
                // The overlay holds the blocks of this call before the first; it is empty while the first applies.
                Node n = overlay.isEmpty() ? null : overlay.get(parent.child(i));
                return n != null ? n : source.child(parent, i);
            }
        };
        PosTree t = new PosTree(src, params);
        StoreBatch batch = new StoreBatch();
        Head h = head;
        List<Block> blocks = new ArrayList<>(specs.size());
        for (BlockSpec spec : specs) {
            long number = h.block().number() + 1;
            if (spec.timestamp() < h.block().timestamp()) {
                throw new IllegalArgumentException("block timestamp " + spec.timestamp()
                        + " is before the previous block's " + h.block().timestamp());
            }
            List<Mutation> writes = new ArrayList<>(spec.writes());
            writes.sort((a, b) -> a.key().compareTo(b.key()));
            for (int i = 1; i < writes.size(); i++) {
                if (writes.get(i - 1).key().equals(writes.get(i).key())) {
                    throw new IllegalArgumentException("block writes key " + writes.get(i).key() + " twice");
                }
            }
            PosTree.Result r = t.apply(h.block().lowerRoot(), writes, maker(number));
            // A node holding an entry of this block (or a child that does) has never been stored: only such fresh
            // nodes may become deltas. Any other created node (old entries re-cut by a boundary shift) may equal a
            // historical node whose record is some delta's base, so it is written in full, which can close no cycle.
            List<Node> created = r.created();
            boolean[] write = new boolean[created.size()];
            for (int i = 0; i < write.length; i++) {
                Node n = created.get(i);
                overlay.put(n.hash(), n);
                if (n.replaced() != null) {
                    replaced.add(n.replaced().hash());
                }
                write[i] = !batch.hasNode(n.hash());
            }
            // Each record depends on its node and the node it replaced alone, so the encodings run on two cores.
            byte[][] records = new byte[write.length][];
            SplitWork.forEachIndex(created, i -> {
                if (write[i]) {
                    records[i] = created.get(i).record(created.get(i).fresh());
                }
            });
            for (int i = 0; i < write.length; i++) {
                if (write[i]) {
                    batch.putNode(created.get(i).hash(), records[i]);
                }
            }
            TreeMap<String, Bytes> meta = new TreeMap<>();
            if (spec.transactions() != null) {
                meta.put(Format.TXS_META, Bytes.wrap(spec.transactionsHash().toByteArray()));
                batch.putBlockTransactions(number, spec.transactions().unsafeArray());
            }
            Block b = new Block(number, spec.timestamp(), r.root(), spec.txIds(), meta);
            batch.putBlock(number, b.encode());
            Hash bh = b.hash();
            Hash u = upper.root(0, number, batch);
            upper.append(number, bh, batch);
            h = new Head(b, bh, u, digestOf(b, u));
            blocks.add(b);
        }
        if (blocks.isEmpty()) {
            return blocks;
        }
        store.write(batch);
        replaced.removeIf(overlay::containsKey);
        recentlyReplaced.addLast(replaced);
        recentlyReplacedCount += replaced.size();
        while (recentlyReplaced.size() > DEMOTE_AFTER_APPENDS || recentlyReplacedCount > DEMOTE_WAITING_MAX) {
            List<Hash> oldest = recentlyReplaced.removeFirst();
            recentlyReplacedCount -= oldest.size();
            for (Hash old : oldest) {
                cache.demote(old);
            }
        }
        overlay.forEach(cache::put);
        head = h;
        return blocks;
    }

    /** The digest of block {@code b}, given the root of the upper tree over the blocks before it (FORMAT.md §8). */
    private static Digest digestOf(Block b, Hash upperRoot) {
        return new Digest(b.number(), Hashing.digest(b.number(), b.lowerRoot(), upperRoot, b.bodyHash()));
    }

    private static EntryMaker maker(long number) {
        return (m, old) -> {
            if (m.isDelete()) {
                return old == null || old.isTombstone() ? old : Entry.tombstone(m.key(), number);
            }
            return Entry.of(m.key(), m.value(), number);
        };
    }

    // ---------------------------------------------------------------- reads

    /** The entry of {@code key} in the state at {@code blockNo} (possibly a tombstone), or null. */
    public Entry entry(Bytes key, long blockNo) {
        return tree.get(block(blockNo).lowerRoot(), key);
    }

    /** The entry of {@code key} in the head state (possibly a tombstone), or null. */
    public Entry latestEntry(Bytes key) {
        return tree.get(head.block().lowerRoot(), key);
    }

    /**
     * The record of the signed transactions of block {@code number} (FORMAT.md §14.3), or null if the block has
     * none.
     */
    public Bytes blockTransactions(long number) {
        byte[] r = store.blockTransactions(number);
        return r == null ? null : Bytes.wrap(r);
    }

    /** The latest value of {@code key}. */
    public Optional<Bytes> get(Bytes key) {
        Entry e = tree.get(head.block().lowerRoot(), key);
        return e == null || e.isTombstone() ? Optional.empty() : Optional.of(e.value());
    }

    public Optional<Bytes> get(Bytes key, long blockNo) {
        Block headBlock = head.block();
        Entry e = blockNo == headBlock.number() ? tree.get(headBlock.lowerRoot(), key) : entry(key, blockNo);
        return e == null || e.isTombstone() ? Optional.empty() : Optional.of(e.value());
    }

    /**
     * Up to {@code limit} versions of {@code key} at {@code blockNo}, newest first, deletions included: each older
     * version is the key's entry in the tree of the block before its successor was written (FORMAT §12).
     */
    public List<Version> history(Bytes key, int limit, long blockNo) {
        List<Version> out = new ArrayList<>();
        Entry e = entry(key, blockNo);
        while (e != null && out.size() < limit) {
            out.add(new Version(e.value(), e.version()));
            e = e.version() == 0 ? null : entry(key, e.version() - 1);
        }
        return out;
    }

    /** Live entries with from &lt;= key &lt; to (null bounds open) at {@code blockNo}, at most {@code limit}. */
    public List<Entry> scan(Bytes from, Bytes to, long blockNo, int limit) {
        return scan(from, to, blockNo, limit, Long.MAX_VALUE).entries();
    }

    /** Entries of a scan, and whether the range holds more live entries after the last. */
    public record ScanPage(List<Entry> entries, boolean more) {
        public ScanPage {
            entries = List.copyOf(entries);
        }
    }

    /**
     * Live entries with from &lt;= key &lt; to at {@code blockNo}: at most {@code limit}, and only as many as fit in
     * {@code maxBytes} of encoded entries (keys and values), counted before any value is copied. The page ends at the
     * first entry that would not fit; {@code more} says whether any entry is left.
     */
    public ScanPage scan(Bytes from, Bytes to, long blockNo, int limit, long maxBytes) {
        List<Entry> out = new ArrayList<>();
        boolean[] more = {false};
        long[] bytes = {0};
        if (limit <= 0) {
            return new ScanPage(out, false);
        }
        tree.scan(block(blockNo).lowerRoot(), from, to, e -> {
            if (e.isTombstone()) {
                return true;
            }
            if (out.size() == limit || bytes[0] + e.encodedLength() > maxBytes) {
                more[0] = true;
                return false;
            }
            bytes[0] += e.encodedLength();
            out.add(e);
            return true;
        });
        return new ScanPage(out, more[0]);
    }

    /** Keys whose entries differ between two blocks' states. */
    public void diff(long fromBlock, long toBlock, DiffVisitor visitor) {
        tree.diff(block(fromBlock).lowerRoot(), block(toBlock).lowerRoot(), visitor);
    }

    // ---------------------------------------------------------------- proofs

    /**
     * One proof for the given keys (any order; duplicates are ignored) in the state at {@code atBlock}, against
     * the digest at {@code digestBlock} &gt;= atBlock. With atBlock == digestBlock it is a current-value proof.
     */
    public KeysProof proveKeys(List<Bytes> keys, long atBlock, long digestBlock) {
        return proveKeys(keys, atBlock, digestBlock, Long.MAX_VALUE);
    }

    /**
     * As {@link #proveKeys(List, long, long)}, stopping with {@link ProofTooLargeException} as soon as the proof
     * holds more than {@code maxBytes} of keys, values and hashes (the neighbours shown whole to prove absence are
     * what makes a proof large).
     */
    public KeysProof proveKeys(List<Bytes> keys, long atBlock, long digestBlock, long maxBytes) {
        return proveKeys(keys, atBlock, digestBlock, new ByteBudget(maxBytes, "a proof of " + keys.size()
                + " keys in block " + atBlock));
    }

    /** As {@link #proveKeys(List, long, long, long)}, charging the proof's parts to {@code budget}. */
    public KeysProof proveKeys(List<Bytes> keys, long atBlock, long digestBlock, ByteBudget budget) {
        return keysProver(atBlock, digestBlock).prove(keys, budget);
    }

    /**
     * A prover of any number of key sets in block {@code atBlock} against the digest at {@code digestBlock}, which
     * reads each node once for all of them (batched proofs: one traversal, one sub-proof per request).
     */
    public BlockKeysProver keysProver(long atBlock, long digestBlock) {
        if (atBlock > digestBlock) {
            throw new IllegalArgumentException("block " + atBlock + " is after digest block " + digestBlock);
        }
        Block b = block(atBlock);
        KeysProof.Anchor anchor;
        if (atBlock == digestBlock) {
            anchor = new KeysProof.AtDigest(Hashing.digestTail(upper.root(atBlock), b.bodyHash()));
        } else {
            Block d = block(digestBlock);
            anchor = new KeysProof.Older(b.bodyHash(), upper.inclusionPath(atBlock, digestBlock), d.lowerRoot(),
                    d.bodyHash());
        }
        return new BlockKeysProver(atBlock, anchor, b.lowerRoot(), source);
    }

    /** Proof that the ledger at block {@code b1} is a prefix of the ledger at {@code b2}, b1 &lt; b2. */
    public AppendOnlyProof proveAppendOnly(long b1, long b2) {
        if (b1 < 0 || b1 >= b2) {
            throw new IllegalArgumentException("append-only proof needs 0 <= b1 < b2, got " + b1 + ", " + b2);
        }
        Block x = block(b1);
        Block y = block(b2);
        return new AppendOnlyProof(b1, b2, upper.root(b1), x.lowerRoot(), x.bodyHash(), y.lowerRoot(), y.bodyHash(),
                b1 == 0 ? List.of() : upper.consistency(b1, b2), upper.inclusionPath(b1, b2));
    }

    /** The last {@code limit} versions of {@code key} at {@code digestBlock}, and their proof. */
    public record History(List<Version> versions, HistoryProof proof) {
    }

    public History proveHistory(Bytes key, int limit, long digestBlock) {
        return proveHistory(key, limit, digestBlock, Long.MAX_VALUE);
    }

    /**
     * As {@link #proveHistory(Bytes, int, long)}, stopping with {@link ProofTooLargeException} as soon as the
     * versions and their proofs hold more than {@code maxBytes} (charged before each version's value is copied); its
     * message says how many versions fitted, so the caller can ask for fewer.
     */
    public History proveHistory(Bytes key, int limit, long digestBlock, long maxBytes) {
        if (limit < 1) {
            throw new IllegalArgumentException("history limit must be positive");
        }
        ByteBudget budget = new ByteBudget(maxBytes, "the history of a key");
        List<Version> versions = new ArrayList<>();
        try {
            KeysProof head = proveKeys(List.of(key), digestBlock, digestBlock, budget);
            List<KeysProof> older = new ArrayList<>();
            Entry e = entry(key, digestBlock);
            while (e != null) {
                budget.charge(e.encodedLength());
                versions.add(new Version(e.value(), e.version()));
                if (versions.size() == limit) {
                    break;
                }
                if (e.version() == 0) {
                    throw new LedgerException("entry of " + key + " has version 0, before any block could write it");
                }
                // The key's entry just before this version was written: the previous version, or none (then this
                // proof of absence is the last, showing the history complete).
                long before = e.version() - 1;
                older.add(proveKeys(List.of(key), before, digestBlock, budget));
                e = entry(key, before);
            }
            return new History(versions, new HistoryProof(head, older));
        } catch (ProofTooLargeException x) {
            // The versions taken so far fitted with their proofs, so a limit of that many is answerable.
            throw new ProofTooLargeException("the history of the key holds more than " + maxBytes + " bytes of values"
                    + " and hashes; " + (versions.isEmpty() ? "not even its latest version fits"
                    : "its latest " + versions.size() + " versions fit"), maxBytes);
        }
    }
}
