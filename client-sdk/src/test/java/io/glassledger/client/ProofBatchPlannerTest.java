package io.glassledger.client;

import static io.glassledger.client.TestLedger.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.verify.txn.PromiseVerifier;
import io.glassledger.verify.txn.SignedTransaction;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ProofBatchPlannerTest {
    TestLedger l;

    @BeforeEach
    void ledger() {
        l = new TestLedger();
        for (int i = 1; i <= 6; i++) {
            int n = i;
            l.append(l.tx(d -> d.put(b("seed" + n), b("v"))));
        }
    }

    private static PromiseVerifier.Read read(String k, long version) {
        return new PromiseVerifier.Read(b(k), b("r"), version);
    }

    private static List<String> keys(ProofBatchPlanner.Item i) {
        return i.keys().stream().map(Bytes::utf8String).toList();
    }

    @Test
    void plan_withAByteBound_closesAnItemBeforeItsAnswerWouldPassIt() {
        // Three promises of one block, each writing a 100 KB value: two fit in 250 KB of answer, the third does not.
        List<CommitPromise> ps = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int n = i;
            ps.add(l.promise(l.tx(d -> d.put(b("big" + n), Bytes.of(new byte[100_000]))), 7, 5, List.of()));
        }
        List<ProofBatchPlanner.Item> items = ProofBatchPlanner.plan(ps, 10_000, 2 * 140_000);
        assertEquals(List.of(List.of("big0", "big1"), List.of("big2")), items.stream().map(i -> keys(i)).toList());
        for (ProofBatchPlanner.Item i : items) {
            assertTrue(i.answerBytes() <= 2 * 140_000, i.answerBytes() + " bytes");
            assertTrue(i.answerBytes() >= i.keys().size() * 133_334L, "the values in base64 are counted");
        }
        assertEquals(1, ProofBatchPlanner.plan(ps, 10_000).size(), "no byte bound: one item");
    }

    @Test
    void writesGoToTheirBlock_readsToReadsByBlock_sharedPerBlock() {
        List<PromiseVerifier.Read> r1 = List.of(read("x", 0));
        List<PromiseVerifier.Read> r2 = List.of(read("x", 6));
        List<PromiseVerifier.Read> r3 = List.of(read("y", 2), read("z", 6));
        SignedTransaction t1 = l.tx(d -> d.read(b("x"), 0).put(b("a"), b("1")).put(b("b"), b("2")));
        SignedTransaction t2 = l.tx(d -> d.read(b("x"), 6).put(b("c"), b("3")));
        SignedTransaction t3 = l.tx(d -> d.read(b("y"), 2).read(b("z"), 6));
        CommitPromise p1 = l.promise(t1, 7, 5, r1);
        CommitPromise p2 = l.promise(t2, 7, 5, r2);
        CommitPromise p3 = l.promise(t3, 0, 5, r3);

        List<ProofBatchPlanner.Item> items = ProofBatchPlanner.plan(List.of(p1, p2, p3), 10_000);

        assertEquals(List.of(5L, 6L, 7L), items.stream().map(ProofBatchPlanner.Item::block).toList());
        // block 5 = max(version, served 5): x@0 of p1 and y@2 of the read-only p3
        assertEquals(List.of("x", "y"), keys(items.get(0)));
        assertEquals(Set.of(p1, p3), owners(items.get(0).reads()));
        // block 6: reads of versions newer than the served digest, checked where they were written
        assertEquals(List.of("x", "z"), keys(items.get(1)));
        assertEquals(Set.of(p2, p3), owners(items.get(1).reads()));
        // block 7: both promises' writes, one item, the read-only promise has none
        assertEquals(List.of("a", "b", "c"), keys(items.get(2)));
        assertEquals(List.of(p1, p2), items.get(2).writes().stream().map(ProofBatchPlanner.WriteCheck::promise)
                .toList());
        assertTrue(items.get(2).reads().isEmpty());
        for (ProofBatchPlanner.Item i : items) {
            for (ProofBatchPlanner.ReadCheck rc : i.reads()) {
                assertEquals(PromiseVerifier.readsByBlock(rc.promise().promise(), rc.promise().reads())
                        .get(i.block()), rc.reads());
            }
        }
    }

    @Test
    void manyPromisesOfOneBlock_fillItemsUpToTheLimit() {
        List<CommitPromise> ps = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            int n = i;
            ps.add(l.promise(l.tx(d -> d.put(b("k" + n), b("v"))), 7, 6, List.of()));
        }
        List<ProofBatchPlanner.Item> items = ProofBatchPlanner.plan(ps, 10);
        assertEquals(List.of(10, 10, 5), items.stream().map(i -> i.keys().size()).toList());
        assertEquals(25, items.stream().mapToInt(i -> i.writes().size()).sum());
    }

    @Test
    void aPromiseBiggerThanAnItem_isSplitIntoPartsOfItsOwnTransaction() {
        SignedTransaction big = l.tx(d -> {
            for (int i = 0; i < 25; i++) {
                d.put(b(String.format("big%02d", i)), b("v"));
            }
        });
        CommitPromise p = l.promise(big, 7, 6, List.of());
        List<ProofBatchPlanner.Item> items = ProofBatchPlanner.plan(List.of(p), 10);

        assertEquals(3, items.size());
        Set<Bytes> covered = new TreeSet<>();
        for (ProofBatchPlanner.Item i : items) {
            assertTrue(i.keys().size() <= 10);
            assertEquals(1, i.writes().size());
            ProofBatchPlanner.WriteCheck w = i.writes().get(0);
            assertEquals(big.txId(), w.part().txId());
            assertEquals(big.tx().clientKey(), w.part().clientKey());
            assertEquals(i.keys(), w.part().writes().stream().map(Mutation::key).toList());
            covered.addAll(i.keys());
        }
        assertEquals(new TreeSet<>(big.tx().writes().stream().map(Mutation::key).toList()), covered);
    }

    @Test
    void aBigReadSet_isSplitToo() {
        List<PromiseVerifier.Read> reads = new ArrayList<>();
        for (int i = 0; i < 23; i++) {
            reads.add(read(String.format("r%02d", i), 1));
        }
        CommitPromise p = l.promise(l.tx(d -> reads.forEach(r -> d.read(r.key(), r.version()))), 0, 6, reads);
        List<ProofBatchPlanner.Item> items = ProofBatchPlanner.plan(List.of(p), 10);
        assertEquals(List.of(10, 10, 3), items.stream().map(i -> i.keys().size()).toList());
        assertTrue(items.stream().allMatch(i -> i.block() == 6));
    }

    @Test
    void conflictingPuts_findsPromisesOfOneBlockWritingOneKey() {
        CommitPromise a = l.promise(l.tx(d -> d.put(b("k"), b("1"))), 7, 6, List.of());
        CommitPromise bb = l.promise(l.tx(d -> d.put(b("k"), b("2")).put(b("m"), b("3"))), 7, 6, List.of());
        CommitPromise otherBlock = l.promise(l.tx(d -> d.put(b("k"), b("4"))), 8, 6, List.of());
        CommitPromise delete = l.promise(l.tx(d -> d.delete(b("m"))), 7, 6, List.of());

        List<Set<CommitPromise>> groups = ProofBatchPlanner.conflictingPuts(List.of(a, bb, otherBlock, delete));
        assertEquals(1, groups.size());
        assertEquals(Set.of(a, bb), new HashSet<>(groups.get(0)));
    }

    @Test
    void nothingCommitted_plansNothing() {
        assertTrue(ProofBatchPlanner.plan(List.of(CommitPromise.nothing(b("0123456789abcdef"))), 10).isEmpty());
    }

    private static Set<CommitPromise> owners(List<ProofBatchPlanner.ReadCheck> checks) {
        Set<CommitPromise> s = new HashSet<>();
        checks.forEach(c -> s.add(c.promise()));
        return s;
    }
}
