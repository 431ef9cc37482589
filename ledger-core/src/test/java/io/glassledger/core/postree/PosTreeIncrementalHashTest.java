package io.glassledger.core.postree;

import io.glassledger.verify.entry.Mutation;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An incremental update may derive a new node's hash from the old node it replaces (reusing the Merkle subtrees of
 * unchanged item ranges). Whatever it reuses, every created node must hash exactly as its own encoding does, and
 * the root must equal the bulk build's. Single-key updates to a tree of a few thousand keys change one child's
 * entry count in every ancestor, which is what shifts an index node's split points.
 */
class PosTreeIncrementalHashTest {

    @ParameterizedTest
    @CsvSource({"8, 32, 4, 16", "4, 16, 2, 8", "16, 128, 8, 64", "2, 16, 4, 8"})
    void apply_singleKeyUpdates_createNodesThatHashLikeTheirEncoding(int lt, int lm, int it, int im) {
        TreeParams p = new TreeParams(lt, lm, it, im);
        MemNodes mem = new MemNodes();
        PosTree t = new PosTree(mem, p);
        Random r = new Random(1);
        TreeMap<Bytes, Bytes> model = new TreeMap<>();
        for (int i = 0; i < 3000; i++) {
            byte[] k = new byte[8];
            r.nextBytes(k);
            model.put(Bytes.wrap(k), Bytes.utf8("v" + i));
        }
        Hash root = mem.store(t.build(TreeGen.entries(model)));
        List<String> wrong = new ArrayList<>();
        for (int round = 0; round < 60; round++) {
            Mutation m;
            if (round % 3 == 0) {
                byte[] k = new byte[8];
                r.nextBytes(k);
                m = Mutation.put(Bytes.wrap(k), Bytes.utf8("new" + round));
            } else if (round % 3 == 1) {
                m = Mutation.delete(new ArrayList<>(model.keySet()).get(r.nextInt(model.size())));
            } else {
                m = Mutation.put(model.firstKey(), Bytes.utf8("first" + round));
            }
            PosTree.Result res = t.apply(root, List.of(m), EntryMaker.PLAIN);
            for (Node n : res.created()) {
                Hash fromEncoding = Node.decode(n.encode()).hash();
                if (!fromEncoding.equals(n.hash())) {
                    wrong.add("round " + round + ": level " + n.level() + " node of " + n.size() + " items");
                }
            }
            root = mem.store(res);
            TreeGen.applyToModel(model, List.of(m));
            assertEquals(List.of(), wrong, "created nodes whose hash is not the hash of their encoding");
            assertEquals(mem.store(t.build(TreeGen.entries(model))), root, "root after round " + round);
        }
    }
}
