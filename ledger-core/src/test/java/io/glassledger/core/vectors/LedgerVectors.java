package io.glassledger.core.vectors;

import io.glassledger.core.store.InMemoryNodeStore;
import io.glassledger.verify.format.Format;
import io.glassledger.verify.block.BlockSpec;
import io.glassledger.verify.txn.TxnDraft;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.crypto.SigningKey;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.hash.Hashing;
import io.glassledger.verify.block.Block;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.core.postree.Node;
import io.glassledger.core.postree.PosTree;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** ledger.json: the fixture ledgers' blocks, and block and genesis records that a reader must refuse. */
final class LedgerVectors {
    private final Fixtures f;

    LedgerVectors(Fixtures f) {
        this.f = f;
    }

    String ledger() {
        ObjectNode root = PrimitiveVectors.header("ledger", "block records, body and block hashes, upper-tree roots and "
                + "digests of every block of the vector ledgers");
        ArrayNode v = root.putArray("vectors");
        ledger(v, "A", f.a);
        ledger(v, "A-fork", f.fork);
        ledger(v, "B", f.other);
        ledger(v, "C", f.dflt);
        ledger(v, "D", f.still);
        ledger(v, "E", f.big);
        root.set("transactions", transactionsExample());
        root.set("invalidRecords", invalidRecords(f.a));
        root.set("invalidGenesis", invalidGenesis(f.a));
        return Json.write(root);
    }

    /**
     * Every block's lower root of a fixture ledger (built incrementally) equals the bulk build of its entries, and
     * every node hashes like its storage encoding: vectors are never cut from a tree that breaks the format.
     */
    static void checkCanonical(String name, Ledger l) {
        for (long b = 0; b <= l.digest().blockNo(); b++) {
            Hash root = l.block(b).lowerRoot();
            Map<Hash, Node> nodes = new HashMap<>();
            PosTree.Result r = new PosTree(nodes::get, l.params()).build(PrimitiveVectors.entriesAt(l, b));
            if (!r.root().equals(root)) {
                throw new IllegalStateException("ledger " + name + " block " + b + ": incremental root differs from "
                        + "the bulk build");
            }
            for (List<Node> level : PrimitiveVectors.levels(l.nodes(), root)) {
                for (Node n : level) {
                    if (!Node.decode(n.encode()).hash().equals(n.hash())) {
                        throw new IllegalStateException("ledger " + name + " block " + b + ": a level " + n.level()
                                + " node does not hash like its encoding");
                    }
                }
            }
        }
    }

    /** Block records that a decoder must reject (FORMAT.md §6.1), built from ledger A's genesis. */
    private static ArrayNode invalidRecords(Ledger l) {
        Block g = l.block(0);
        ArrayNode out = Json.array();
        List<String[]> meta = new ArrayList<>();
        g.meta().forEach((k, v) -> meta.add(new String[] {k, v.hex()}));
        badRecord(out, "meta-key-with-space", "a meta key with byte 20 (space)", g, withKey(meta, 0, "for mat"));
        badRecord(out, "meta-key-with-del", "a meta key with byte 7f", g, withKey(meta, 0, "format\u007f"));
        badRecord(out, "meta-key-with-control", "a meta key with byte 0a", g, withKey(meta, 0, "format\n"));
        badRecord(out, "meta-key-non-ascii", "a meta key with bytes c3 a9 (UTF-8 e-acute)", g,
                withKey(meta, 2, "tr\u00e9e"));
        List<String[]> swapped = new ArrayList<>(meta);
        java.util.Collections.swap(swapped, 0, 1);
        badRecord(out, "meta-keys-not-increasing", "meta keys hash, format, tree", g, swapped);
        List<String[]> dup = new ArrayList<>(meta);
        dup.add(1, meta.get(0));
        badRecord(out, "meta-key-duplicate", "meta key format twice", g, dup);
        List<String[]> empty = new ArrayList<>(meta);
        empty.add(0, new String[] {"", "00"});
        badRecord(out, "meta-key-empty", "an empty meta key (value 00) before format", g, empty);
        List<String[]> longKey = new ArrayList<>(meta);
        longKey.add(new String[] {"z".repeat(1025), "00"});
        badRecord(out, "meta-key-1025-bytes", "a meta key of 1025 bytes z, after tree", g, longKey);
        bad(out, "body-version-2", "body version 02", record(g, 2, g.timestamp(), List.of(), meta));
        bad(out, "timestamp-over-2^63", "timestamp 8000000000000000: 2^63", record(g, 1, Long.MIN_VALUE, List.of(),
                meta));
        bad(out, "tx-id-empty", "one transaction id, of no bytes", record(g, 1, g.timestamp(),
                List.of(Bytes.EMPTY), meta));
        bad(out, "tx-id-257-bytes", "one transaction id of 257 bytes", record(g, 1, g.timestamp(),
                List.of(Bytes.wrap(InvalidEncodings.filled(257, 'i'))), meta));
        byte[] rec = g.encode();
        bad(out, "trailing-byte", "ledger A's genesis record followed by 00", Arrays.copyOf(rec, rec.length + 1));
        return out;
    }

    /**
     * A block of two signed transactions (FORMAT.md §14): their records, each one's signed form (the encoding with
     * the put's value replaced by its hash), and the block's {@code txs} meta value over the hashed records. The block
     * is appended to a fresh ledger of SMALL parameters, so its record carries that value.
     */
    private static ObjectNode transactionsExample() {
        SigningKey key = SigningKey.fromSeed(SignatureVectors.seed("glassledger vectors: block transactions"));
        List<SignedTransaction> txs = new ArrayList<>();
        txs.add(new TxnDraft(key, 0, List.of(0), Bytes.fromHex("0000018bcfe5680011223344556677a1"))
                .put(Bytes.utf8("acct/001"), Bytes.utf8("one hundred")).sign());
        txs.add(new TxnDraft(key, 0, List.of(0), Bytes.fromHex("0000018bcfe5680111223344556677a2"))
                .read(Bytes.utf8("acct/001"), 1).put(Bytes.utf8("acct/002"), Bytes.EMPTY)
                .delete(Bytes.utf8("acct/003")).sign());
        Ledger l = Ledger.openOrCreate(new InMemoryNodeStore(), Fixtures.SMALL, Fixtures.GENESIS_TS);
        l.append(List.of(BlockSpec.of(Fixtures.GENESIS_TS + 1, txs)));
        Block b = l.block(1);
        ObjectNode o = Json.object();
        ArrayNode recs = o.putArray("records");
        ArrayNode forms = o.putArray("signedForms");
        for (SignedTransaction t : txs) {
            recs.add(Json.hex(t.record()));
            forms.add(Json.hex(t.signedForm()));
        }
        o.put("txs", b.meta().get(Format.TXS_META).hex());
        o.put("blockRecord", Json.hex(b.encode()));
        return o;
    }

    /**
     * Genesis records that decode as blocks but that a reader MUST refuse (FORMAT.md §6.2), built from ledger A's
     * genesis: another format (the previous revision's string among them), another hash function, no or invalid tree
     * parameters.
     */
    private static ArrayNode invalidGenesis(Ledger l) {
        Block g = l.block(0);
        ArrayNode out = Json.array();
        badGenesis(out, "format-glassledger-3", "format glassledger/3: the previous revision, whose entries, leaves and "
                + "hashes differ", g, "format", Bytes.utf8("glassledger/3"));
        badGenesis(out, "format-missing", "no format", g, "format", null);
        badGenesis(out, "hash-sha-512", "hash SHA-512", g, "hash", Bytes.utf8("SHA-512"));
        badGenesis(out, "tree-missing", "no tree parameters", g, "tree", null);
        badGenesis(out, "tree-index-target-1", "tree parameters (2, 16, 1, 8): indexTargetFanout 1, under which a "
                + "tree build never reduces to one root", g, "tree",
                Bytes.wrap(new ByteWriter().varint(2).varint(16).varint(1).varint(8).toByteArray()));
        return out;
    }

    private static void badGenesis(ArrayNode a, String name, String why, Block g, String key, Bytes value) {
        TreeMap<String, Bytes> meta = new TreeMap<>(g.meta());
        if (value == null) {
            meta.remove(key);
        } else {
            meta.put(key, value);
        }
        byte[] rec = new Block(0, g.timestamp(), g.lowerRoot(), List.of(), meta).encode();
        try {
            Ledger.genesisParams(Block.decode(0, rec));
            throw new IllegalStateException("invalid genesis " + name + " is accepted");
        } catch (MalformedException expected) {
            ObjectNode o = a.addObject();
            o.put("name", name);
            o.put("record", Json.hex(rec));
            o.put("why", why);
        }
    }

    private static List<String[]> withKey(List<String[]> meta, int i, String key) {
        List<String[]> m = new ArrayList<>(meta);
        m.set(i, new String[] {key, meta.get(i)[1]});
        return m;
    }

    /** A block record written field by field (FORMAT.md §6.1), whatever the fields hold. */
    private static byte[] record(Block g, int version, long timestamp, List<Bytes> txIds, List<String[]> meta) {
        ByteWriter w = new ByteWriter().hash(g.lowerRoot()).u8(version).u64(timestamp).varint(txIds.size());
        txIds.forEach(w::lengthPrefixed);
        w.varint(meta.size());
        for (String[] kv : meta) {
            w.lengthPrefixed(Bytes.wrap(kv[0].getBytes(StandardCharsets.UTF_8))).lengthPrefixed(Bytes.fromHex(kv[1]));
        }
        return w.toByteArray();
    }

    private static void badRecord(ArrayNode a, String name, String why, Block g, List<String[]> meta) {
        bad(a, name, why, record(g, 1, g.timestamp(), List.of(), meta));
    }

    private static void bad(ArrayNode a, String name, String why, byte[] record) {
        try {
            Block.decode(0, record);
            throw new IllegalStateException("invalid record " + name + " decodes");
        } catch (MalformedException expected) {
            ObjectNode o = a.addObject();
            o.put("name", name);
            o.put("record", Json.hex(record));
            o.put("why", why);
        }
    }

    private static void ledger(ArrayNode a, String name, Ledger l) {
        checkCanonical(name, l);
        ObjectNode o = a.addObject();
        o.put("name", name);
        o.set("params", PrimitiveVectors.treeParams(l.params()));
        ArrayNode blocks = o.putArray("blocks");
        List<Hash> hashes = new ArrayList<>();
        for (long b = 0; b <= l.digest().blockNo(); b++) {
            Block blk = l.block(b);
            ObjectNode bo = blocks.addObject();
            bo.put("number", b);
            bo.put("timestamp", blk.timestamp());
            ArrayNode tx = bo.putArray("txIds");
            blk.txIds().forEach(t -> tx.add(t.hex()));
            ArrayNode meta = bo.putArray("meta");
            blk.meta().forEach((k, val) -> {
                ObjectNode m = meta.addObject();
                m.put("key", k);
                m.put("value", val.hex());
            });
            bo.put("lowerRoot", blk.lowerRoot().hex());
            bo.put("record", Json.hex(blk.encode()));
            bo.put("bodyHash", blk.bodyHash().hex());
            bo.put("blockHash", blk.hash().hex());
            Hash upper = hashes.isEmpty() ? Hash.ZERO : HistoryAppendVectors.mth(hashes);
            bo.put("upperRoot", upper.hex());
            bo.put("digest", l.digest(b).root().hex());
            if (!l.digest(b).root().equals(Hashing.digest(b, blk.lowerRoot(), upper, blk.bodyHash()))) {
                throw new IllegalStateException("digest of block " + b + " does not match the reference upper tree");
            }
            hashes.add(blk.hash());
        }
    }

}
