package io.glassledger.core.vectors;

import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.entry.Separators;
import io.glassledger.verify.format.Format;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.glassledger.verify.codec.ByteReader;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import io.glassledger.verify.block.Block;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.entry.Entry;
import io.glassledger.core.postree.Node;
import io.glassledger.core.postree.NodeSource;
import io.glassledger.core.postree.PosTree;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.verify.proof.KeyClaim;
import io.glassledger.verify.proof.LowerProof;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The committed vectors hold: valid proofs verify, every mutation is rejected, hashes and trees recompute, and the
 * generator still produces the committed files byte for byte.
 */
class VectorTest {
    private static final Path DIR = Path.of(VectorGenerator.DIR);
    private static final Pattern FLIP = Pattern.compile("modified-proof\\[(\\d+)\\]-bit-@(\\d)");

    private static JsonNode load(String name) throws IOException {
        return Json.parse(Files.readString(DIR.resolve(name), StandardCharsets.UTF_8));
    }

    @Test
    void committedVectors_matchTheGenerator() throws Exception {
        SortedMap<String, String> fresh = VectorVerifier.onLargeStack(VectorGenerator::generate);
        TreeSet<String> onDisk = new TreeSet<>();
        try (Stream<Path> s = Files.list(DIR)) {
            s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".json")).forEach(onDisk::add);
        }
        String howTo = "\nThe test vectors no longer match what the code produces. If you did not mean to change the "
                + "format (docs/FORMAT.md), this is a regression. If you did, update docs/FORMAT.md and tools/pyverify, "
                + "regenerate the vectors from the repository root, and commit them together:\n"
                + VectorGenerator.REGENERATE + "\n";
        assertEquals(fresh.keySet(), onDisk, "vector files differ from the generated set" + howTo);
        for (Map.Entry<String, String> e : fresh.entrySet()) {
            String disk = Files.readString(DIR.resolve(e.getKey()), StandardCharsets.UTF_8);
            if (!disk.equals(e.getValue())) {
                fail(e.getKey() + " is out of date (first difference at line " + firstDifferentLine(disk, e.getValue())
                        + ")" + howTo);
            }
        }
    }

    private static int firstDifferentLine(String a, String b) {
        String[] x = a.split("\n", -1);
        String[] y = b.split("\n", -1);
        for (int i = 0; i < Math.min(x.length, y.length); i++) {
            if (!x[i].equals(y[i])) {
                return i + 1;
            }
        }
        return Math.min(x.length, y.length) + 1;
    }

    @ParameterizedTest
    @ValueSource(strings = {"current-value.json", "non-existence.json", "inclusion.json", "batch.json",
        "history.json", "append-only.json",
        "signed-head.json", "signed-transaction.json"})
    void proofVectors_validVerify_mutationsAreRejected(String file) throws Exception {
        JsonNode root = load(file);
        String verifier = root.get("verifier").asText();
        int checked = VectorVerifier.onLargeStack(() -> {
            int n = 0;
            for (JsonNode v : root.get("vectors")) {
                String name = file + " " + v.get("name").asText();
                ObjectNode input = (ObjectNode) v.get("input");
                VectorVerifier.verify(verifier, input);
                TreeSet<String> seen = new TreeSet<>();
                for (JsonNode m : v.get("invalid")) {
                    String mutation = m.get("name").asText();
                    assertTrue(seen.add(mutation), name + ": duplicate mutation " + mutation);
                    ObjectNode merged = Json.merge(input, m.get("input"));
                    checkFlipName(name, mutation, input, merged);
                    assertTrue(VectorVerifier.rejects(verifier, merged), name + " / " + mutation + " was accepted");
                    n++;
                }
            }
            return n;
        });
        assertTrue(checked > 0);
    }

    /** A flip mutation's proof differs from the valid one in exactly the named bit. */
    private static void checkFlipName(String name, String mutation, JsonNode valid, JsonNode mutated) {
        Matcher m = FLIP.matcher(mutation);
        if (!m.matches()) {
            return;
        }
        byte[] a = Json.unhex(valid.get("proof").asText());
        byte[] b = Json.unhex(mutated.get("proof").asText());
        a[Integer.parseInt(m.group(1))] ^= (byte) (1 << Integer.parseInt(m.group(2)));
        assertArrayEquals(a, b, name + " / " + mutation + " does not flip the bit it names");
    }

    /** The signed bytes of each file: the proof, or a signed head's key and signature, or a whole transaction record. */
    @ParameterizedTest
    @CsvSource({"current-value.json, proof", "non-existence.json, proof", "inclusion.json, proof",
        "batch.json, proof", "history.json, proof", "append-only.json, proof", "signed-head.json, signature",
        "signed-head.json, serverKey", "signed-transaction.json, record"})
    void everyBitOfEveryValidProof_flipped_isRejected(String file, String field) throws Exception {
        JsonNode root = load(file);
        String verifier = root.get("verifier").asText();
        VectorVerifier.onLargeStack(() -> {
            for (JsonNode v : root.get("vectors")) {
                ObjectNode input = (ObjectNode) v.get("input");
                byte[] proof = Json.unhex(input.get(field).asText());
                for (int i = 0; i < proof.length; i++) {
                    for (int bit = 0; bit < 8; bit++) {
                        ObjectNode o = input.deepCopy();
                        o.put(field, Json.hex(Tamper.flip(proof, i, bit)));
                        assertTrue(VectorVerifier.rejects(verifier, o),
                                file + " " + v.get("name").asText() + ": flipping bit " + bit + " of byte " + i
                                        + " is accepted");
                    }
                }
            }
            return null;
        });
    }

    @Test
    void entryVectors_encodeAndHash() throws IOException {
        for (JsonNode v : load("entry-hash.json").get("vectors")) {
            Entry e = entry(v);
            assertEquals(v.get("encoding").asText(), Json.hex(e.encoded()), v.get("name").asText());
            assertEquals(v.get("hash").asText(), e.hash().hex(), v.get("name").asText());
            assertEquals(v.get("valueHash").isNull() ? null : v.get("valueHash").asText(),
                    e.valueHash() == null ? null : e.valueHash().hex(), v.get("name").asText());
            assertEquals(v.get("hashedForm").asText(), Json.hex(PrimitiveVectors.hashedForm(e)),
                    v.get("name").asText());
            byte[] form = Json.unhex(v.get("hashedForm").asText());
            byte[] pre = new byte[form.length + 1];
            System.arraycopy(form, 0, pre, 1, form.length);
            assertEquals(v.get("hash").asText(), Hashing.raw(pre).hex(), v.get("name").asText() + ": H(00 || form)");
            ByteReader r = new ByteReader(Json.unhex(v.get("encoding").asText()));
            assertEquals(e, Entry.read(r));
            r.expectEnd();
        }
    }

    @Test
    void treeVectors_rebuildToTheSameNodes() throws IOException {
        Map<String, Hash> lowerRoots = new HashMap<>();
        for (JsonNode l : load("ledger.json").get("vectors")) {
            for (JsonNode b : l.get("blocks")) {
                lowerRoots.put(l.get("name").asText() + "/" + b.get("number").asLong(), Json.hash(b.get("lowerRoot")));
            }
        }
        for (JsonNode v : load("tree-build.json").get("vectors")) {
            String name = v.get("name").asText();
            TreeParams p = params(v.get("params"));
            List<Entry> entries = new ArrayList<>();
            v.get("entries").forEach(e -> entries.add(entry(e)));
            Map<Hash, Node> nodes = new HashMap<>();
            NodeSource src = nodes::get;
            PosTree.Result r = new PosTree(src, p).build(entries);
            r.created().forEach(n -> nodes.put(n.hash(), n));
            assertEquals(v.get("root").asText(), r.root().hex(), name);
            List<Integer> perLevel = new ArrayList<>();
            List<Node> flat = new ArrayList<>();
            for (List<Node> level : PrimitiveVectors.levels(src, r.root())) {
                perLevel.add(level.size());
                flat.addAll(level);
            }
            List<Integer> expected = new ArrayList<>();
            v.get("nodesPerLevel").forEach(x -> expected.add(x.asInt()));
            assertEquals(expected, perLevel, name);
            if (v.has("nodes")) {
                assertEquals(v.get("nodes").size(), flat.size(), name);
                for (int i = 0; i < flat.size(); i++) {
                    JsonNode n = v.get("nodes").get(i);
                    assertEquals(n.get("encoding").asText(), Json.hex(flat.get(i).encode()), name + " node " + i);
                    assertEquals(n.get("hash").asText(), flat.get(i).hash().hex(), name + " node " + i);
                    assertEquals(n.get("hash").asText(), Node.decode(Json.unhex(n.get("encoding").asText())).hash().hex());
                }
            }
            if (v.has("lowerRootOf")) {
                JsonNode o = v.get("lowerRootOf");
                assertEquals(lowerRoots.get(o.get("ledger").asText() + "/" + o.get("blockNo").asLong()), r.root(),
                        name + ": a bulk build of the ledger's state must equal its incrementally built root");
            }
        }
    }

    @Test
    void ledgerVectors_blocksHashAndChain() throws IOException {
        for (JsonNode l : load("ledger.json").get("vectors")) {
            String name = l.get("name").asText();
            List<Hash> blockHashes = new ArrayList<>();
            for (JsonNode b : l.get("blocks")) {
                long n = b.get("number").asLong();
                byte[] record = Json.unhex(b.get("record").asText());
                Block block = Block.decode(n, record);
                assertArrayEquals(record, block.encode(), name + " block " + n);
                assertEquals(b.get("timestamp").asLong(), block.timestamp());
                assertEquals(b.get("lowerRoot").asText(), block.lowerRoot().hex());
                assertEquals(b.get("bodyHash").asText(), block.bodyHash().hex());
                assertEquals(b.get("blockHash").asText(), block.hash().hex());
                Hash upper = blockHashes.isEmpty() ? Hash.ZERO : HistoryAppendVectors.mth(blockHashes);
                assertEquals(b.get("upperRoot").asText(), upper.hex(), name + " block " + n);
                assertEquals(b.get("digest").asText(), Hashing.digest(n, block.lowerRoot(), upper, block.bodyHash()).hex());
                if (n == 0) {
                    assertEquals(Format.ID, block.meta().get("format").utf8String());
                    assertEquals("SHA-256", block.meta().get("hash").utf8String());
                    assertEquals(params(l.get("params")), Ledger.genesisParams(block));
                }
                blockHashes.add(block.hash());
            }
        }
    }

    @Test
    void primitiveVectors_recompute() throws IOException {
        JsonNode p = load("primitives.json");
        for (JsonNode v : p.get("varint")) {
            assertEquals(v.get("encoding").asText(), Json.hex(new ByteWriter().varint(v.get("value").asLong()).toByteArray()));
            ByteReader r = new ByteReader(Json.unhex(v.get("encoding").asText()));
            assertEquals(v.get("value").asLong(), r.varint());
            r.expectEnd();
        }
        for (JsonNode v : p.get("varintInvalid")) {
            assertThrows(MalformedException.class, () -> new ByteReader(Json.unhex(v.get("encoding").asText())).varint(),
                    v.get("encoding").asText());
        }
        for (JsonNode v : p.get("u64")) {
            assertEquals(v.get("encoding").asText(), Json.hex(new ByteWriter().u64(v.get("value").asLong()).toByteArray()));
        }
        for (JsonNode v : p.get("ordering")) {
            assertEquals(v.get("cmp").asInt(), Integer.signum(Json.bytes(v.get("a")).compareTo(Json.bytes(v.get("b")))));
        }
        for (JsonNode v : p.get("separators")) {
            assertEquals(v.get("separator").asText(),
                    Separators.shortest(Json.bytes(v.get("left")), Json.bytes(v.get("right"))).hex());
        }
        for (JsonNode v : p.get("keyCuts")) {
            byte[] k = Json.unhex(v.get("key").asText());
            assertEquals(v.get("cut").asText(), String.format("%016x", Hashing.keyCut(k, 0, k.length)));
        }
        for (JsonNode v : p.get("treeParams")) {
            TreeParams tp = params(v);
            assertEquals(v.get("encoding").asText(), Json.hex(tp.encode()));
            assertEquals(tp, TreeParams.decode(Json.unhex(v.get("encoding").asText())));
        }
        for (JsonNode v : p.get("treeParamsInvalid")) {
            assertThrows(MalformedException.class, () -> TreeParams.decode(Json.unhex(v.get("encoding").asText())),
                    v.get("name").asText());
        }
        JsonNode h = p.get("hashes");
        JsonNode in = h.get("inner");
        assertEquals(in.get("hash").asText(), Hashing.inner(Json.unhex(in.get("sep").asText()), Json.hash(in.get("left")),
                Json.hash(in.get("right"))).hex());
        JsonNode nd = h.get("node");
        assertEquals(nd.get("hash").asText(), Hashing.node(nd.get("level").asInt(), Json.hash(nd.get("itemsRoot"))).hex());
        JsonNode bl = h.get("block");
        assertEquals(bl.get("hash").asText(), Hashing.block(bl.get("blockNo").asLong(), Json.hash(bl.get("lowerRoot")),
                Json.hash(bl.get("bodyHash"))).hex());
        JsonNode bo = h.get("body");
        assertEquals(bo.get("hash").asText(), Hashing.body(Json.unhex(bo.get("body").asText())).hex());
        JsonNode dg = h.get("digest");
        assertEquals(dg.get("hash").asText(), Hashing.digest(dg.get("blockNo").asLong(), Json.hash(dg.get("lowerRoot")),
                Json.hash(dg.get("tail"))).hex());
        JsonNode dt = h.get("digestTail");
        assertEquals(dt.get("hash").asText(), Hashing.digestTail(Json.hash(dt.get("upperRoot")),
                Json.hash(dt.get("bodyHash"))).hex());
        JsonNode up = h.get("upperInner");
        assertEquals(up.get("hash").asText(), Hashing.upperInner(Json.hash(up.get("left")), Json.hash(up.get("right"))).hex());
    }

    /**
     * A proof nested far deeper than any real tree is rejected while decoding, not allowed to overflow a small
     * thread stack. (It is built and encoded on a large stack: the encoder recurses.)
     */
    @Test
    void deeplyNestedProof_onSmallStack_isRejectedNotOverflowed() throws Exception {
        byte[] enc = VectorVerifier.onLargeStack(() -> {
            LowerProof.Part p = LowerProof.Leaf.claimed(0, 1);
            for (int i = 0; i < 4095; i++) {
                p = new LowerProof.Inner(Bytes.utf8("a"), p, new LowerProof.Pruned(Hash.ZERO));
            }
            return new LowerProof(0, new LowerProof.Boundary(p)).encode();
        });
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = new Thread(null, () -> {
            try {
                LowerProof.decode(enc).computeRoot(List.of(KeyClaim.present(Bytes.utf8("0"), Bytes.utf8("v"))), null);
            } catch (Throwable e) {
                thrown.set(e);
            }
        }, "small-stack", 512L << 10);
        t.start();
        t.join();
        assertTrue(thrown.get() instanceof MalformedException && thrown.get().getMessage().contains("too deep"),
                "got " + thrown.get());
    }

    @Test
    void invalidNodes_areRejected() throws IOException {
        JsonNode invalid = load("tree-build.json").get("invalidNodes");
        assertTrue(invalid.size() > 0);
        for (JsonNode v : invalid) {
            assertThrows(MalformedException.class, () -> Node.decode(Json.unhex(v.get("encoding").asText())),
                    v.get("name").asText());
        }
    }

    @Test
    void invalidBlockRecords_areRejected() throws IOException {
        JsonNode invalid = load("ledger.json").get("invalidRecords");
        assertTrue(invalid.size() > 0);
        for (JsonNode v : invalid) {
            assertThrows(MalformedException.class, () -> Block.decode(0, Json.unhex(v.get("record").asText())),
                    v.get("name").asText());
        }
    }

    @Test
    void transactionsExample_signaturesAndTxsHash() throws IOException {
        JsonNode t = load("ledger.json").get("transactions");
        List<SignedTransaction> txs = new java.util.ArrayList<>();
        for (int i = 0; i < t.get("records").size(); i++) {
            SignedTransaction s = SignedTransaction.decode(Json.unhex(t.get("records").get(i).asText()));
            assertTrue(s.signatureValid(), "transaction " + i + "'s signature");
            assertEquals(t.get("signedForms").get(i).asText(), Json.hex(s.signedForm()));
            txs.add(s);
        }
        assertEquals(t.get("txs").asText(), SignedTransaction.transactionsHash(txs).hex());
        Block b = Block.decode(1, Json.unhex(t.get("blockRecord").asText()));
        assertEquals(t.get("txs").asText(), b.meta().get(Format.TXS_META).hex());
    }

    @Test
    void invalidGenesisRecords_decode_butAreRefused() throws IOException {
        JsonNode invalid = load("ledger.json").get("invalidGenesis");
        assertTrue(invalid.size() > 0);
        for (JsonNode v : invalid) {
            Block g = Block.decode(0, Json.unhex(v.get("record").asText()));
            assertThrows(MalformedException.class, () -> Ledger.genesisParams(g), v.get("name").asText());
        }
    }

    @Test
    void splitVectors_matchTheReference() throws IOException {
        JsonNode p = load("primitives.json");
        for (JsonNode v : p.get("countSplits")) {
            List<String> want = new ArrayList<>();
            v.get("splits").forEach(x -> want.add(x.toString()));
            List<String> got = new ArrayList<>();
            countSplits(0, v.get("items").asInt(), got);
            assertEquals(want, got, "count splits of " + v.get("items"));
        }
        for (JsonNode v : p.get("indexSplits")) {
            long[] counts = new long[v.get("counts").size()];
            for (int i = 0; i < counts.length; i++) {
                counts[i] = v.get("counts").get(i).asLong();
            }
            Node n = PrimitiveVectors.indexNodeWithCounts(counts);
            List<String> want = new ArrayList<>();
            v.get("splits").forEach(x -> want.add(x.toString()));
            List<String> got = new ArrayList<>();
            indexSplits(n, 0, counts.length, got);
            assertEquals(want, got, v.get("name").asText());
        }
    }

    @Test
    void lowerProofLimitVectors_atTheLimitVerify_overItAreRejected() throws Exception {
        JsonNode limits = load("primitives.json").get("lowerProofLimits");
        assertTrue(limits.size() > 0);
        VectorVerifier.onLargeStack(() -> {
            for (JsonNode v : limits) {
                String name = v.get("name").asText();
                var e = VectorVerifier.rejection(v.get("verifier").asText(), v.get("input"));
                if (v.get("valid").asBoolean()) {
                    assertTrue(e == null, name + " is rejected: " + e);
                } else {
                    assertTrue(e != null, name + " is accepted");
                }
            }
            return null;
        });
    }

    private static void countSplits(int lo, int hi, List<String> out) {
        if (hi - lo >= 2) {
            int m = Node.countSplit(lo, hi);
            out.add("[" + lo + "," + hi + "," + m + "]");
            countSplits(lo, m, out);
            countSplits(m, hi, out);
        }
    }

    private static void indexSplits(Node n, int lo, int hi, List<String> out) {
        if (hi - lo >= 2) {
            int m = n.split(lo, hi);
            out.add("[" + lo + "," + hi + "," + m + "]");
            indexSplits(n, lo, m, out);
            indexSplits(n, m, hi, out);
        }
    }

    private static Entry entry(JsonNode v) {
        return Entry.of(Json.bytes(v.get("key")), Json.bytes(v.get("value")), v.get("version").asLong());
    }

    private static TreeParams params(JsonNode v) {
        return new TreeParams(v.get("leafTargetKeys").asInt(), v.get("leafMaxKeys").asInt(),
                v.get("indexTargetFanout").asInt(), v.get("indexMaxFanout").asInt());
    }
}
