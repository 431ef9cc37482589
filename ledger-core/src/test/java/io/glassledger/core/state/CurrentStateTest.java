package io.glassledger.core.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.glassledger.core.ledger.Ledger;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.core.store.InMemoryNodeStore;
import io.glassledger.verify.block.BlockSpec;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.verify.hash.Bytes;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The planned storage's write path against the ledger as it runs: the same blocks of random puts, deletes and
 * inserts, small tree parameters (many leaves, many re-cuts, leaves closed by their maximum), and after every block
 * the same root as the ledger's POS-tree (FORMAT.md §4, §5) and the same latest values as a map. The state is closed
 * and reopened part way, rebuilding its index levels from the leaf log, and goes on agreeing.
 */
class CurrentStateTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "params {0},{1},{2},{3} seed {4}")
    @CsvSource({"2, 4, 2, 8, 1", "2, 16, 2, 8, 2", "4, 8, 4, 16, 3", "8, 64, 64, 512, 4", "2, 2, 2, 4, 5"})
    void everyBlock_givesTheLedgersRoot_andItsValues(int lt, int lm, int it, int im, long seed) {
        TreeParams params = new TreeParams(lt, lm, it, im);
        System.out.println("CurrentStateTest seed " + seed + " params " + params);
        Random r = new Random(seed);
        Ledger ledger = Ledger.openOrCreate(new InMemoryNodeStore(), params, 0);
        TreeMap<Bytes, Bytes> model = new TreeMap<>();
        List<Bytes> keys = new ArrayList<>();
        CurrentState state = CurrentState.open(dir, params, 8L << 20, false);
        try {
            state.apply(0, List.of());
            for (long b = 1; b <= 80; b++) {
                TreeMap<Bytes, Mutation> block = new TreeMap<>();
                int n = r.nextInt(b % 10 == 0 ? 200 : 30);
                for (int i = 0; i < n; i++) {
                    Bytes k = keys.isEmpty() || r.nextInt(3) == 0 ? newKey(r, keys) : keys.get(r.nextInt(keys.size()));
                    block.put(k, r.nextInt(6) == 0 ? Mutation.delete(k)
                            : Mutation.put(k, Bytes.utf8("v" + b + "/" + r.nextInt(1000))));
                }
                List<Mutation> ms = new ArrayList<>(block.values());
                ledger.append(List.of(new BlockSpec(b, List.of(), ms)));
                for (Mutation m : ms) {
                    if (m.isDelete()) {
                        model.remove(m.key());
                    } else {
                        model.put(m.key(), m.value());
                    }
                }
                assertEquals(ledger.block(b).lowerRoot(), state.apply(b, ms), "root of block " + b + ", seed " + seed);
                if (b % 25 == 0) {
                    state.close();
                    state = CurrentState.open(dir, params, 8L << 20, false);
                    assertEquals(b, state.block());
                    assertEquals(ledger.block(b).lowerRoot(), state.root(), "root after reopening at block " + b);
                }
                if (b % 10 == 0) {
                    for (Bytes k : keys) {
                        assertEquals(Optional.ofNullable(model.get(k)), state.get(k), "value of " + k + " at " + b);
                    }
                }
            }
        } finally {
            state.close();
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @CsvSource({"11"})
    void aBlockOutOfTurn_orUnsorted_isRefused(long seed) {
        try (CurrentState s = CurrentState.open(dir, new TreeParams(2, 8, 2, 8), 8L << 20, false)) {
            assertThrows(IllegalArgumentException.class, () -> s.apply(1, List.of()));
            s.apply(0, List.of(Mutation.put(Bytes.utf8("a"), Bytes.utf8("1"))));
            assertThrows(IllegalArgumentException.class, () -> s.apply(1, List.of(Mutation.put(Bytes.utf8("b"),
                    Bytes.utf8("1")), Mutation.put(Bytes.utf8("a"), Bytes.utf8("2")))));
            assertEquals(0, s.block());
        }
    }

    private static Bytes newKey(Random r, List<Bytes> keys) {
        byte[] k = new byte[1 + r.nextInt(6)];
        for (int i = 0; i < k.length; i++) {
            k[i] = (byte) ('a' + r.nextInt(4));
        }
        Bytes b = Bytes.wrap(k);
        if (!keys.contains(b)) {
            keys.add(b);
        }
        return b;
    }
}
