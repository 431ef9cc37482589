package io.glassledger.core.txn;

import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.TxnDraft;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * Block formation (FORMAT.md §15.2) against the serial-order property: for every block b of an epoch, the
 * transactions in blocks ≤ b are closed under the log's write-read, write-write and read-write dependencies, and a
 * serial replay in block order (log order within a block) reproduces every transaction's reads.
 */
class BlockSequencerTest {
    private static final SigningKey CLIENT = SigningKey.generate();

    /** One step of a log: a seal, or a committed transaction reading and writing some of a few keys. */
    record Step(boolean seal, Set<Integer> reads, Set<Integer> writes, boolean delete) {
    }

    /** A placed transaction: its place in the log, its block, its reads (key, version) and writes. */
    record Placed(int logIndex, long block, Map<Integer, Long> reads, Set<Integer> writes) {
    }

    private static Bytes key(int k) {
        return Bytes.utf8("k" + k);
    }

    /** The example of the issue: T3's write of K must not land below T2, which read the K that T3 overwrites. */
    @Test
    void laterWriterOfAKeyReadEarlierLandsNoLowerThanTheReader() {
        BlockSequencer s = new BlockSequencer(10);
        long vL0 = s.assign(tx(Map.of(), Set.of(1), false));          // T0 writes L
        assertEquals(10, vL0);
        assertEquals(11, s.assign(tx(Map.of(), Set.of(1), false)));   // T0b writes L
        long vK = s.assign(tx(Map.of(), Set.of(0), false));           // T1 writes K
        assertEquals(10, vK);
        assertEquals(12, s.assign(tx(Map.of(0, vK), Set.of(1), false)));  // T2 reads K@10, writes L
        long t3 = s.assign(tx(Map.of(), Set.of(0), false));           // T3 writes K
        assertTrue(t3 >= 12, "T3 landed in block " + t3 + ", below T2's block 12: block " + t3
                + " would show T3's K without T2");
    }

    @Property(tries = 300, seed = "20261124")
    void everyBlockIsAPrefixOfOneSerialOrder(@ForAll("logs") List<Step> log) {
        Map<Integer, Long> version = new HashMap<>();  // key -> block of its latest version (0: never written)
        List<List<Placed>> epochs = new ArrayList<>();
        List<Placed> epoch = new ArrayList<>();
        BlockSequencer s = new BlockSequencer(1);
        for (int i = 0; i < log.size(); i++) {
            Step st = log.get(i);
            if (st.seal()) {
                if (s.seal(1000L + i) != null) {
                    epochs.add(epoch);
                    epoch = new ArrayList<>();
                }
                continue;
            }
            Map<Integer, Long> reads = new HashMap<>();
            for (int k : st.reads()) {
                reads.put(k, version.getOrDefault(k, 0L));  // OCC admitted it: every read is current in log order
            }
            long b = s.assign(tx(reads, st.writes(), st.delete()));
            for (int k : st.writes()) {
                version.put(k, b);
            }
            epoch.add(new Placed(i, b, reads, st.writes()));
        }
        epochs.add(epoch);
        Map<Integer, Long> replayed = new HashMap<>();
        for (List<Placed> e : epochs) {
            checkClosed(e);
            checkReplay(e, replayed);
        }
    }

    /** For each block b: every predecessor of a transaction in blocks ≤ b is in blocks ≤ b too. */
    private static void checkClosed(List<Placed> epoch) {
        Set<Long> blocks = new TreeSet<>();
        epoch.forEach(p -> blocks.add(p.block()));
        for (long b : blocks) {
            for (int x = 0; x < epoch.size(); x++) {
                Placed later = epoch.get(x);
                if (later.block() > b) {
                    continue;
                }
                for (int y = 0; y < x; y++) {
                    Placed earlier = epoch.get(y);
                    if (dependsOn(later, earlier, epoch, y)) {
                        assertTrue(earlier.block() <= b, "block " + b + " holds log entry " + later.logIndex()
                                + " but not its predecessor " + earlier.logIndex() + " (block " + earlier.block() + ")");
                    }
                }
            }
        }
    }

    /** write-read (later read what earlier wrote), write-write, read-write (later overwrote what earlier read). */
    private static boolean dependsOn(Placed later, Placed earlier, List<Placed> epoch, int earlierIndex) {
        for (int k : later.writes()) {
            if (earlier.writes().contains(k) || earlier.reads().containsKey(k)) {
                return true;
            }
        }
        for (Map.Entry<Integer, Long> r : later.reads().entrySet()) {
            if (earlier.writes().contains(r.getKey()) && r.getValue() == earlier.block()) {
                return true;
            }
        }
        return false;
    }

    /** Replays the epoch block by block, log order within a block: every read sees exactly the version it read. */
    private static void checkReplay(List<Placed> epoch, Map<Integer, Long> version) {
        List<Placed> order = new ArrayList<>(epoch);
        order.sort((a, c) -> a.block() != c.block() ? Long.compare(a.block(), c.block())
                : Integer.compare(a.logIndex(), c.logIndex()));
        for (Placed p : order) {
            for (Map.Entry<Integer, Long> r : p.reads().entrySet()) {
                assertEquals(r.getValue(), version.getOrDefault(r.getKey(), 0L), "log entry " + p.logIndex()
                        + " in block " + p.block() + " read key " + r.getKey() + " at version " + r.getValue()
                        + " but a serial replay in block order shows version " + version.get(r.getKey()));
            }
            for (int k : p.writes()) {
                version.put(k, p.block());
            }
        }
    }

    @Provide
    Arbitrary<List<Step>> logs() {
        Arbitrary<Set<Integer>> keys = Arbitraries.integers().between(0, 5).set().ofMaxSize(3);
        Arbitrary<Step> tx = Combinators.combine(keys, keys.filter(w -> !w.isEmpty()), Arbitraries.of(true, false))
                .as((r, w, d) -> new Step(false, r, w, d));
        Arbitrary<Step> seal = Arbitraries.just(new Step(true, Set.of(), Set.of(), false));
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(12, tx), net.jqwik.api.Tuple.of(1, seal))
                .list().ofMinSize(1).ofMaxSize(60);
    }

    private static SignedTransaction tx(Map<Integer, Long> reads, Set<Integer> writes, boolean delete) {
        TxnDraft d = new TxnDraft(CLIENT, 0, 1_700_000_000_000L);
        reads.forEach((k, v) -> d.read(key(k), v));
        for (int k : writes) {
            if (delete && k % 2 == 0) {
                d.delete(key(k));
            } else {
                d.put(key(k), Bytes.utf8("v"));
            }
        }
        return d.sign();
    }
}
