package io.glassledger.core.ledger;

import io.glassledger.verify.block.Block;
import io.glassledger.verify.block.BlockSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.Version;
import io.glassledger.core.store.InMemoryNodeStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The ledger's reads (get, history, scan, diff) at every block agree with {@link LedgerModel}. */
class LedgerPropertyTest {

    @Provide
    Arbitrary<TreeParams> params() {
        return Combinators.combine(Arbitraries.of(64, 128, 256), Arbitraries.integers().between(512, 1024),
                Arbitraries.of(2, 4), Arbitraries.integers().between(8, 16)).as(TreeParams::new);
    }

    @Property(tries = 80)
    void reads_atEveryBlock_agreeWithModel(@ForAll("params") TreeParams p, @ForAll Random r) {
        LedgerModel m = LedgerModel.random(new InMemoryNodeStore(), p, r, 1 + r.nextInt(12), 3 + r.nextInt(100),
                1 + r.nextInt(50));
        Ledger l = m.ledger();
        for (long b = 0; b <= m.head(); b++) {
            TreeMap<Bytes, Bytes> state = m.state(b);
            for (Bytes k : m.pool()) {
                assertEquals(state.get(k), l.get(k, b).orElse(null), "get " + k + " at " + b);
                int limit = 1 + r.nextInt(4);
                assertEquals(m.history(k, b, limit), l.history(k, limit, b), "history of " + k + " at " + b);
            }
            List<Entry> live = l.scan(null, null, b, Integer.MAX_VALUE);
            TreeMap<Bytes, Bytes> scanned = new TreeMap<>();
            for (Entry e : live) {
                scanned.put(e.key(), e.value());
            }
            assertEquals(state, scanned, "scan at " + b);
            int limit = 1 + r.nextInt(5);
            assertEquals(live.subList(0, Math.min(limit, live.size())), l.scan(null, null, b, limit),
                    "scan with limit " + limit);
            if (b > 0) {
                // The keys block b changed are those with a version written at b.
                TreeSet<Bytes> expected = new TreeSet<>();
                for (Bytes k : m.pool()) {
                    List<Version> h = m.history(k, b, 1);
                    if (!h.isEmpty() && h.get(0).blockNo() == b) {
                        expected.add(k);
                    }
                }
                List<Bytes> changed = new ArrayList<>();
                long from = b - 1;
                l.diff(from, b, (k, before, after) -> changed.add(k));
                assertEquals(new ArrayList<>(expected), changed, "diff " + from + "→" + b);
            }
        }
    }

    @Property(tries = 50)
    void append_manyBlocksAtOnce_equalsOneByOne(@ForAll("params") TreeParams p, @ForAll Random r) {
        List<Bytes> pool = new ArrayList<>();
        while (pool.size() < 60) {
            pool.add(LedgerModel.randomKey(r));
        }
        pool = new ArrayList<>(new TreeSet<>(pool));
        Ledger oneByOne = Ledger.openOrCreate(new InMemoryNodeStore(), p, LedgerModel.GENESIS_TS);
        Ledger batched = Ledger.openOrCreate(new InMemoryNodeStore(), p, LedgerModel.GENESIS_TS);
        List<BlockSpec> pending = new ArrayList<>();
        for (long n = 1; n <= 12; n++) {
            // Some blocks are empty: a block may carry transactions that wrote nothing.
            BlockSpec spec = r.nextInt(4) == 0
                    ? new BlockSpec(LedgerModel.GENESIS_TS + n, List.of(), List.of())
                    : LedgerModel.randomSpec(r, pool, n, 30);
            oneByOne.append(List.of(spec));
            pending.add(spec);
            if (r.nextInt(3) == 0) {
                List<Block> blocks = batched.append(pending);
                assertEquals(pending.size(), blocks.size());
                pending.clear();
            }
        }
        batched.append(pending);
        assertEquals(oneByOne.digest(), batched.digest());
        for (long b = 0; b <= 12; b++) {
            assertEquals(oneByOne.digest(b), batched.digest(b));
        }
        assertEquals(List.of(), batched.append(List.of()));
        assertEquals(oneByOne.digest(), batched.digest());
    }

    @Property(tries = 30)
    void append_withABadBlock_writesNothing(@ForAll("params") TreeParams p, @ForAll Random r) {
        InMemoryNodeStore store = new InMemoryNodeStore();
        LedgerModel m = LedgerModel.random(store, p, r, 3, 40, 20);
        Ledger l = m.ledger();
        Digest before = l.digest();
        long count = store.blockCount();
        long n = m.head() + 1;
        BlockSpec good = LedgerModel.randomSpec(r, m.pool(), n, 20);
        Bytes k = m.pool().get(0);
        Map<String, BlockSpec> bad = Map.of(
                "duplicate key", new BlockSpec(LedgerModel.GENESIS_TS + n + 1, List.of(),
                        List.of(Mutation.put(k, Bytes.utf8("a")), Mutation.delete(k))),
                "timestamp going back", new BlockSpec(0, List.of(), List.of(Mutation.put(k, Bytes.utf8("a")))),
                "empty key", new BlockSpec(LedgerModel.GENESIS_TS + n + 1, List.of(),
                        List.of(Mutation.put(Bytes.EMPTY, Bytes.utf8("a")))),
                "oversized key", new BlockSpec(LedgerModel.GENESIS_TS + n + 1, List.of(),
                        List.of(Mutation.put(Bytes.wrap(new byte[Entry.MAX_KEY_BYTES + 1]), Bytes.utf8("a")))),
                "oversized transaction id", new BlockSpec(LedgerModel.GENESIS_TS + n + 1,
                        List.of(Bytes.wrap(new byte[Block.MAX_TX_ID_BYTES + 1])), List.of()));
        for (Map.Entry<String, BlockSpec> e : bad.entrySet()) {
            assertThrows(IllegalArgumentException.class, () -> l.append(List.of(good, e.getValue())), e.getKey());
            assertEquals(before, l.digest(), "digest changed after a rejected " + e.getKey());
            assertEquals(count, store.blockCount(), "store changed after a rejected " + e.getKey());
            for (Bytes key : m.pool()) {
                assertEquals(m.value(key, m.head()), l.get(key).orElse(null));
            }
        }
        // The good block still goes in afterwards, as the next block.
        m.append(good);
        assertEquals(n, l.digest().blockNo());
    }
}
