package io.glassledger.core.vectors;

import io.glassledger.verify.entry.Separators;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.entry.Entry;
import io.glassledger.core.postree.IndexNode;
import io.glassledger.core.postree.LeafNode;
import io.glassledger.core.postree.Node;
import io.glassledger.core.postree.NodeSource;
import io.glassledger.core.postree.PosTree;
import io.glassledger.core.postree.TreeParams;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;

/** entry-hash.json, primitives.json and tree-build.json: everything below the proofs and blocks. */
final class PrimitiveVectors {
    private final Fixtures f;

    PrimitiveVectors(Fixtures f) {
        this.f = f;
    }

    // ---------------------------------------------------------------- entries

    String entryHash() {
        ObjectNode root = header("entry-hash", "canonical (storage) entry encoding; the value hash H(03 || value) "
                + "(null for a tombstone); the hashed form lp(key) || valueRef || varint version, valueRef "
                + "being 00 for a tombstone or 01 || valueHash; and the entry hash H(00 || hashed form)");
        ArrayNode v = root.putArray("vectors");
        Random rnd = new Random(0xE7);
        entry(v, "simple", Entry.of(Bytes.utf8("a"), Bytes.utf8("b"), 0));
        entry(v, "tombstone", Entry.tombstone(Bytes.utf8("acct/007"), 5));
        entry(v, "empty-value", Entry.of(Bytes.utf8("p"), Bytes.EMPTY, 1));
        entry(v, "two-byte-varints", Entry.of(Fixtures.LONG_KEY, Bytes.utf8("L".repeat(200)), 300));
        entry(v, "max-version", Entry.of(Bytes.utf8("v"), Bytes.utf8("max"), Long.MAX_VALUE));
        entry(v, "binary", Entry.of(Bytes.wrap(new byte[] {(byte) 0xff, 0x00}), randomBytes(rnd, 1000), 127));
        entry(v, "max-key", Entry.of(randomBytes(rnd, Entry.MAX_KEY_BYTES), Bytes.utf8("k"), 128));
        return Json.write(root);
    }

    private static void entry(ArrayNode a, String name, Entry e) {
        ObjectNode o = a.addObject();
        o.put("name", name);
        putEntry(o, e);
        o.put("encoding", Json.hex(e.encoded()));
        Hash vh = e.valueHash();
        if (vh == null) {
            o.putNull("valueHash");
        } else {
            o.put("valueHash", vh.hex());
        }
        o.put("hashedForm", Json.hex(hashedForm(e)));
        o.put("hash", e.hash().hex());
    }

    /** FORMAT §3's hashed form, written here from the text rather than by the reference's hashing code. */
    static byte[] hashedForm(Entry e) {
        ByteWriter w = new ByteWriter().lengthPrefixed(e.key());
        if (e.isTombstone()) {
            w.u8(0);
        } else {
            byte[] v = e.value().unsafeArray();
            byte[] pre = new byte[v.length + 1];
            pre[0] = 3;
            System.arraycopy(v, 0, pre, 1, v.length);
            w.u8(1).hash(Hashing.raw(pre));
        }
        return w.varint(e.version()).toByteArray();
    }

    static void putEntry(ObjectNode o, Entry e) {
        o.put("key", e.key().hex());
        Json.putBytes(o, "value", e.value());
        o.put("version", e.version());
    }

    // ---------------------------------------------------------------- primitives

    String primitives() {
        ObjectNode root = header("primitives", "domain tags, integer encodings, byte order, separators, the key cut hashes"
                + " (leaf boundaries), tree parameters and one example of every hash");
        ObjectNode tags = root.putObject("tags");
        tags.put("entry", "00");
        tags.put("inner", "01");
        tags.put("node", "02");
        tags.put("value", "03");
        tags.put("keyCut", "04");
        tags.put("block", "10");
        tags.put("body", "11");
        tags.put("digest", "20");
        tags.put("digestTail", "21");
        tags.put("upperInner", "31");
        ArrayNode varints = root.putArray("varint");
        for (long x : new long[] {0, 1, 127, 128, 255, 300, 16383, 16384, 1L << 32, Long.MAX_VALUE}) {
            ObjectNode o = varints.addObject();
            o.put("value", x);
            o.put("encoding", Json.hex(new ByteWriter().varint(x).toByteArray()));
        }
        ArrayNode bad = root.putArray("varintInvalid");
        badVarint(bad, "80", "truncated: continuation bit on the last byte");
        badVarint(bad, "8000", "non-minimal: a final 00 group after a continuation");
        badVarint(bad, "ff00", "non-minimal");
        badVarint(bad, "808080808080808000", "non-minimal, 9 bytes");
        badVarint(bad, "ffffffffffffffff80", "too long: continuation bit on the 9th byte");
        badVarint(bad, "ffffffffffffffffff01", "too long: 10 bytes");
        ArrayNode u64 = root.putArray("u64");
        for (long x : new long[] {0, 1, 1_700_000_000_000L, Long.MAX_VALUE}) {
            ObjectNode o = u64.addObject();
            o.put("value", x);
            o.put("encoding", Json.hex(new ByteWriter().u64(x).toByteArray()));
        }
        ArrayNode order = root.putArray("ordering");
        String[][] pairs = {{"", "00"}, {"61", "6162"}, {"6162", "62"}, {"7f", "80"}, {"80", "ff"}, {"ff", "ff00"},
            {"00ff", "0100"}, {"6163", "6163"}};
        for (String[] p : pairs) {
            ObjectNode o = order.addObject();
            o.put("a", p[0]);
            o.put("b", p[1]);
            o.put("cmp", Integer.signum(Bytes.fromHex(p[0]).compareTo(Bytes.fromHex(p[1]))));
        }
        ArrayNode seps = root.putArray("separators");
        String[][] sp = {{"a", "b"}, {"abc", "abd"}, {"ab", "abc"}, {"a", "ab"}, {"acct/007", "acct/010"},
            {"fruit/apple", "fruit/banana"}, {"p", "pa"}, {"a", "zzz"}};
        for (String[] p : sp) {
            sep(seps, Bytes.utf8(p[0]), Bytes.utf8(p[1]));
        }
        sep(seps, Bytes.fromHex("7f"), Bytes.fromHex("80"));
        sep(seps, Bytes.fromHex("8000"), Bytes.fromHex("ff"));
        sep(seps, Bytes.fromHex("00"), Bytes.fromHex("0000"));
        sep(seps, Bytes.fromHex("01ff"), Bytes.fromHex("0200"));
        ArrayNode cuts = root.putArray("keyCuts");
        for (String k : new String[] {"61", "62", "6163", "616363742f303037", "00", "ff", "0000", "ffff00"}) {
            ObjectNode o = cuts.addObject();
            o.put("key", k);
            o.put("cut", String.format("%016x", keyCut(Bytes.fromHex(k))));
        }
        Random cr = new Random(0xC07);
        for (int i = 0; i < 8; i++) {
            Bytes k = randomBytes(cr, 1 + cr.nextInt(40));
            ObjectNode o = cuts.addObject();
            o.put("key", k.hex());
            o.put("cut", String.format("%016x", keyCut(k)));
        }
        ArrayNode params = root.putArray("treeParams");
        treeParams(params, "DEFAULT", TreeParams.DEFAULT);
        treeParams(params, "SMALL", Fixtures.SMALL);
        treeParams(params, "MINIMA", new TreeParams(2, 2, 2, 2));
        treeParams(params, "MAXIMA", new TreeParams(TreeParams.MAX_LEAF_KEYS, TreeParams.MAX_LEAF_KEYS,
                TreeParams.MAX_FANOUT, TreeParams.MAX_FANOUT));
        root.set("treeParamsInvalid", InvalidEncodings.treeParams());
        root.set("countSplits", countSplits());
        root.set("indexSplits", indexSplits());
        root.set("lowerProofLimits", LimitVectors.lowerProofLimits());
        root.set("hashes", hashExamples());
        return Json.write(root);
    }

    /** Leaf routing trees: split points by item count, for 2..9 items. */
    private static ArrayNode countSplits() {
        ArrayNode out = Json.array();
        for (int n = 2; n <= 9; n++) {
            ObjectNode o = out.addObject();
            o.put("items", n);
            ArrayNode splits = o.putArray("splits");
            countSplits(0, n, splits);
        }
        return out;
    }

    private static void countSplits(int lo, int hi, ArrayNode out) {
        if (hi - lo < 2) {
            return;
        }
        int m = Node.countSplit(lo, hi);
        out.addArray().add(lo).add(hi).add(m);
        countSplits(lo, m, out);
        countSplits(m, hi, out);
    }

    /** Index-node routing trees: weight-balanced split points for given child entry counts. */
    private static ArrayNode indexSplits() {
        ArrayNode out = Json.array();
        indexSplit(out, "two-children", new long[] {7, 1});
        indexSplit(out, "equal-odd", new long[] {1, 1, 1});
        indexSplit(out, "equal-even", new long[] {3, 3, 3, 3});
        indexSplit(out, "tie-takes-smaller-m", new long[] {1, 2, 1});
        indexSplit(out, "heavy-first-clamped", new long[] {100, 1, 1, 1, 1, 1, 1, 1});
        indexSplit(out, "heavy-last-clamped", new long[] {1, 1, 1, 1, 1, 1, 1, 100});
        indexSplit(out, "heavy-middle", new long[] {1, 1, 50, 1, 1, 1});
        indexSplit(out, "large-counts", new long[] {1L << 40, 3, 1L << 41, 5, (1L << 40) + 7});
        Random rnd = new Random(0x5E1);
        long[] counts = new long[40];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = 1 + rnd.nextInt(rnd.nextInt(4) == 0 ? 1000 : 20);
        }
        indexSplit(out, "random-40", counts);
        return out;
    }

    private static void indexSplit(ArrayNode out, String name, long[] counts) {
        IndexNode n = indexNodeWithCounts(counts);
        ObjectNode o = out.addObject();
        o.put("name", name);
        ArrayNode c = o.putArray("counts");
        for (long x : counts) {
            c.add(x);
        }
        ArrayNode splits = o.putArray("splits");
        indexSplits(n, 0, counts.length, splits);
    }

    private static void indexSplits(IndexNode n, int lo, int hi, ArrayNode out) {
        if (hi - lo < 2) {
            return;
        }
        int m = n.split(lo, hi);
        out.addArray().add(lo).add(hi).add(m);
        indexSplits(n, lo, m, out);
        indexSplits(n, m, hi, out);
    }

    /** A decoded level-1 index node with the given child entry counts (zero child hashes, separators 0001, 0002 ...). */
    static IndexNode indexNodeWithCounts(long[] counts) {
        ByteWriter w = new ByteWriter();
        w.u8(1).varint(counts.length);
        for (int i = 0; i < counts.length; i++) {
            if (i > 0) {
                w.lengthPrefixed(Bytes.wrap(new byte[] {(byte) (i >> 8), (byte) i}));
            }
            w.varint(counts[i]);
            w.hash(Hash.ZERO);
        }
        return (IndexNode) Node.decode(w.toByteArray());
    }

    /** True if somewhere in the node's routing tree the weight-balanced split differs from the count split. */
    static boolean weightedDiffers(Node n, int lo, int hi) {
        if (hi - lo < 2) {
            return false;
        }
        int m = n.split(lo, hi);
        return m != Node.countSplit(lo, hi) || weightedDiffers(n, lo, m) || weightedDiffers(n, m, hi);
    }

    private static void badVarint(ArrayNode a, String hex, String why) {
        try {
            new io.glassledger.verify.codec.ByteReader(Json.unhex(hex)).varint();
            throw new IllegalStateException("varint " + hex + " decodes");
        } catch (io.glassledger.verify.codec.MalformedException expected) {
            ObjectNode o = a.addObject();
            o.put("encoding", hex);
            o.put("why", why);
        }
    }

    private static void sep(ArrayNode a, Bytes left, Bytes right) {
        ObjectNode o = a.addObject();
        o.put("left", left.hex());
        o.put("right", right.hex());
        o.put("separator", Separators.shortest(left, right).hex());
    }

    static ObjectNode treeParams(TreeParams p) {
        ObjectNode o = Json.object();
        o.put("leafTargetKeys", p.leafTargetKeys());
        o.put("leafMaxKeys", p.leafMaxKeys());
        o.put("indexTargetFanout", p.indexTargetFanout());
        o.put("indexMaxFanout", p.indexMaxFanout());
        o.put("encoding", Json.hex(p.encode()));
        return o;
    }

    private static void treeParams(ArrayNode a, String name, TreeParams p) {
        ObjectNode o = treeParams(p);
        o.put("name", name);
        a.add(o);
    }

    private static ObjectNode hashExamples() {
        Random rnd = new Random(0x4A54);
        Hash l = randomHash(rnd);
        Hash r = randomHash(rnd);
        ObjectNode h = Json.object();
        ObjectNode inner = h.putObject("inner");
        inner.put("sep", Bytes.utf8("acct/01").hex());
        inner.put("left", l.hex());
        inner.put("right", r.hex());
        inner.put("hash", Hashing.inner(Bytes.utf8("acct/01").unsafeArray(), l, r).hex());
        ObjectNode value = h.putObject("value");
        value.put("value", Bytes.utf8("hi").hex());
        value.put("hash", Hashing.value(Bytes.utf8("hi").unsafeArray(), 0, 2).hex());
        ObjectNode node = h.putObject("node");
        node.put("level", 3);
        node.put("itemsRoot", l.hex());
        node.put("hash", Hashing.node(3, l).hex());
        ObjectNode block = h.putObject("block");
        block.put("blockNo", 7);
        block.put("lowerRoot", l.hex());
        block.put("bodyHash", r.hex());
        block.put("hash", Hashing.block(7, l, r).hex());
        ObjectNode body = h.putObject("body");
        body.put("body", "01");
        body.put("hash", Hashing.body(new byte[] {1}).hex());
        ObjectNode digest = h.putObject("digest");
        digest.put("blockNo", 7);
        digest.put("lowerRoot", l.hex());
        digest.put("tail", r.hex());
        digest.put("hash", Hashing.digest(7, l, r).hex());
        ObjectNode tail = h.putObject("digestTail");
        tail.put("upperRoot", l.hex());
        tail.put("bodyHash", r.hex());
        tail.put("hash", Hashing.digestTail(l, r).hex());
        ObjectNode up = h.putObject("upperInner");
        up.put("left", l.hex());
        up.put("right", r.hex());
        up.put("hash", Hashing.upperInner(l, r).hex());
        return h;
    }

    // ---------------------------------------------------------------- trees

    String treeBuild() {
        ObjectNode root = header("tree-build", "the POS-tree that a sorted entry list builds under given parameters");
        ArrayNode v = root.putArray("vectors");
        Random rnd = new Random(0x7EE);
        tree(v, "empty", Fixtures.SMALL, List.of(), true, null);
        tree(v, "single-entry", Fixtures.SMALL, randomEntries(rnd, 1, 8, 16), true, null);
        tree(v, "tiny", Fixtures.SMALL, randomEntries(rnd, 14, 6, 24), true, null);
        tree(v, "small-params-200", Fixtures.SMALL, randomEntries(rnd, 200, 12, 40), false, null);
        tree(v, "leaf-max-keys", new TreeParams(16, 16, 2, 8), randomEntries(rnd, 60, 8, 120), true, null);
        tree(v, "leaf-max-keys-2", new TreeParams(2, 2, 2, 8), randomEntries(rnd, 30, 4, 25), true, null);
        tree(v, "index-max-fanout", new TreeParams(2, 16, 8, 8), randomEntries(rnd, 150, 8, 30), false, null);
        tree(v, "default-params", TreeParams.DEFAULT, randomEntries(rnd, 600, 16, 48), false, null);
        tree(v, "large-values", new TreeParams(2, 16, 2, 8), largeValueEntries(rnd, 40), false, null);
        tree(v, "weighted-index-splits", new TreeParams(8, 64, 4, 16), randomEntries(rnd, 160, 4, 8), true, null);
        tree(v, "ledger-A-head", Fixtures.SMALL, entriesAt(f.a, 12), false, "A");
        tree(v, "ledger-C-head", TreeParams.DEFAULT, entriesAt(f.dflt, 2), false, "C");
        root.set("invalidNodes", InvalidEncodings.nodes(v));
        return Json.write(root);
    }

    private void tree(ArrayNode a, String name, TreeParams p, List<Entry> entries, boolean listNodes, String ledger) {
        Map<Hash, Node> nodes = new HashMap<>();
        NodeSource src = h -> {
            Node n = nodes.get(h);
            if (n == null) {
                throw new io.glassledger.core.postree.MissingNodeException(h);
            }
            return n;
        };
        PosTree.Result r = new PosTree(src, p).build(entries);
        r.created().forEach(n -> nodes.put(n.hash(), n));
        ObjectNode o = a.addObject();
        o.put("name", name);
        o.set("params", treeParams(p));
        ArrayNode es = o.putArray("entries");
        for (Entry e : entries) {
            putEntry(es.addObject(), e);
        }
        o.put("root", r.root().hex());
        if (ledger != null) {
            long head = (ledger.equals("A") ? f.a : f.dflt).digest().blockNo();
            if (!r.root().equals((ledger.equals("A") ? f.a : f.dflt).block(head).lowerRoot())) {
                throw new IllegalStateException("ledger " + ledger + ": incremental root differs from bulk build");
            }
            ObjectNode m = o.putObject("lowerRootOf");
            m.put("ledger", ledger);
            m.put("blockNo", head);
        }
        List<List<Node>> levels = levels(src, r.root());
        if (name.equals("weighted-index-splits") && levels.stream().flatMap(List::stream)
                .noneMatch(n -> n instanceof IndexNode && weightedDiffers(n, 0, n.size()))) {
            throw new IllegalStateException(name + ": no index node splits differently from a leaf");
        }
        for (List<Node> level : levels) {
            for (Node n : level) {
                if (!Node.decode(n.encode()).hash().equals(n.hash())) {
                    throw new IllegalStateException(name + ": a node does not hash like its encoding");
                }
            }
        }
        ArrayNode counts = o.putArray("nodesPerLevel");
        levels.forEach(l -> counts.add(l.size()));
        TreeSet<String> exercised = new TreeSet<>();
        for (List<Node> level : levels) {
            for (int i = 0; i + 1 < level.size(); i++) {
                exercised.add(closedBy(level.get(i), p));
            }
        }
        ArrayNode ex = o.putArray("boundaryRules");
        exercised.forEach(ex::add);
        if (listNodes) {
            ArrayNode ns = o.putArray("nodes");
            for (List<Node> level : levels) {
                for (Node n : level) {
                    ObjectNode no = ns.addObject();
                    no.put("level", n.level());
                    no.put("hash", n.hash().hex());
                    no.put("encoding", Json.hex(n.encode()));
                }
            }
        }
    }

    /** Nodes by level, lowest level first, each level left to right. */
    static List<List<Node>> levels(NodeSource src, Hash root) {
        List<List<Node>> out = new ArrayList<>();
        if (root.isZero()) {
            return out;
        }
        List<Node> level = List.of(src.node(root));
        while (true) {
            out.add(0, level);
            if (level.get(0) instanceof LeafNode) {
                return out;
            }
            List<Node> below = new ArrayList<>();
            for (Node n : level) {
                IndexNode in = (IndexNode) n;
                for (int i = 0; i < in.size(); i++) {
                    below.add(src.node(in.child(i)));
                }
            }
            level = below;
        }
    }

    /** Which rule closed a node that is not the last of its level; throws if none would have. */
    private static String closedBy(Node n, TreeParams p) {
        if (n instanceof LeafNode leaf) {
            for (int i = 0; i < leaf.size(); i++) {
                boolean hit = (keyCut(leaf.entry(i).key()) & (p.leafTargetKeys() - 1)) == 0;
                boolean last = i == leaf.size() - 1;
                if ((hit || i + 1 >= p.leafMaxKeys()) != last) {
                    throw new IllegalStateException("leaf boundary rule broken at entry " + i + " of " + leaf);
                }
                if (last) {
                    return hit ? "leaf-pattern" : "leaf-max-keys";
                }
            }
        }
        IndexNode in = (IndexNode) n;
        for (int i = 0; i < in.size(); i++) {
            boolean hit = (in.child(i).prefixLong() & p.indexMask()) == 0;
            boolean last = i == in.size() - 1;
            if ((hit || i + 1 >= p.indexMaxFanout()) != last) {
                throw new IllegalStateException("index boundary rule broken at child " + i + " of " + in);
            }
            if (last) {
                return hit ? "index-pattern" : "index-max-fanout";
            }
        }
        throw new IllegalStateException("unreachable");
    }

    /** Every entry (tombstones included) of the state at block b, in key order. */
    static List<Entry> entriesAt(Ledger l, long b) {
        List<Entry> out = new ArrayList<>();
        List<List<Node>> levels = levels(l.nodes(), l.block(b).lowerRoot());
        if (!levels.isEmpty()) {
            for (Node n : levels.get(0)) {
                out.addAll(((LeafNode) n).entries());
            }
        }
        return out;
    }

    /** Entries with values of 1 to 4 KiB: leaves are cut by keys alone, so values this large change no boundary. */
    private static List<Entry> largeValueEntries(Random rnd, int n) {
        TreeSet<Bytes> keys = new TreeSet<>();
        while (keys.size() < n) {
            keys.add(randomBytes(rnd, 2 + rnd.nextInt(3)));
        }
        List<Entry> out = new ArrayList<>();
        for (Bytes k : keys) {
            out.add(Entry.of(k, randomBytes(rnd, 1024 + rnd.nextInt(3072)), rnd.nextInt(100)));
        }
        return out;
    }

    private static List<Entry> randomEntries(Random rnd, int n, int maxKey, int maxValue) {
        TreeSet<Bytes> keys = new TreeSet<>();
        while (keys.size() < n) {
            keys.add(randomBytes(rnd, 1 + rnd.nextInt(maxKey)));
        }
        List<Entry> out = new ArrayList<>();
        for (Bytes k : keys) {
            int kind = rnd.nextInt(8);
            Bytes value = kind == 0 ? null : randomBytes(rnd, rnd.nextInt(maxValue + 1));
            out.add(Entry.of(k, value, rnd.nextInt(1000)));
        }
        return out;
    }

    // ---------------------------------------------------------------- helpers

    static ObjectNode header(String file, String description) {
        ObjectNode root = Json.object();
        root.put("file", file);
        root.put("description", description);
        return root;
    }

    static Hash randomHash(Random rnd) {
        byte[] b = new byte[32];
        rnd.nextBytes(b);
        return Hash.of(b);
    }

    static Bytes randomBytes(Random rnd, int n) {
        byte[] b = new byte[n];
        rnd.nextBytes(b);
        return Bytes.wrap(b);
    }

    /**
     * FORMAT §5.2's key cut, written from docs/FORMAT.md rather than by the reference's code: the first 8 bytes,
     * big-endian, of SHA-256(04 || lp(key)).
     */
    static long keyCut(Bytes key) {
        byte[] pre = new ByteWriter().u8(4).lengthPrefixed(key).toByteArray();
        return java.nio.ByteBuffer.wrap(Hashing.raw(pre).unsafeArray()).getLong();
    }
}
