package io.glassledger.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.core.ledger.Ledger;
import io.glassledger.core.state.CurrentState;
import io.glassledger.verify.block.BlockSpec;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.verify.hash.Bytes;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a real child JVM ({@link CurrentStateCrashWriter}) with SIGKILL while it applies synced blocks to the
 * planned storage's write path ({@link CurrentState}), then reopens the state and requires that it holds every block
 * the child reported (and at most the one after it, committed but not yet reported), with the ledger's root at that
 * block and the same latest values: nothing acknowledged is lost, nothing half written is seen. Four kills a
 * repetition, each child going on from where the reopen stood; the kill comes after a number of reported blocks
 * drawn from the seed.
 *
 * <p>{@code -Dstate.crash.seed=N} repeats a run's choices (not its timing); the seed is printed.
 */
class CurrentStateCrashTest {
    private static final int CYCLES = 4;

    @TempDir
    Path tmp;

    @RepeatedTest(2)
    void killedWriter_reopensWithEveryReportedBlock_andTheLedgersRoot(RepetitionInfo rep) throws Exception {
        long seed = Long.getLong("state.crash.seed", new Random().nextLong()) + rep.getCurrentRepetition();
        System.out.println("CurrentStateCrashTest seed " + seed);
        Random r = new Random(seed);
        Path dir = tmp.resolve("state");
        long reported = 0;
        for (int cycle = 0; cycle < CYCLES; cycle++) {
            List<String> lines = KilledChild.runAndKill(tmp, "state-" + cycle, CurrentStateCrashWriter.class,
                    List.of(dir.toString(), Long.toString(seed)), 10 + r.nextInt(150));
            assertTrue(lines.get(0).startsWith("open "), "first line " + lines.get(0));
            for (String line : lines.subList(1, lines.size())) {
                reported = Long.parseLong(line.trim().substring("committed ".length()));
            }
            String ctx = "seed " + seed + ", cycle " + cycle + ", reported block " + reported;
            try (CurrentState s = CurrentState.open(dir, CurrentStateCrashWriter.PARAMS, 8L << 20, true)) {
                long b = s.block();
                assertTrue(b == reported || b == reported + 1, ctx + ": reopened at block " + b);
                Ledger ledger = Ledger.openOrCreate(new InMemoryNodeStore(), CurrentStateCrashWriter.PARAMS, 0);
                TreeMap<Bytes, Bytes> model = new TreeMap<>();
                for (long k = 1; k <= b; k++) {
                    List<Mutation> ms = CurrentStateCrashWriter.mutations(seed, k);
                    ledger.append(List.of(new BlockSpec(k, List.of(), ms)));
                    for (Mutation m : ms) {
                        if (m.isDelete()) {
                            model.remove(m.key());
                        } else {
                            model.put(m.key(), m.value());
                        }
                    }
                }
                assertEquals(ledger.block(b).lowerRoot(), s.root(), ctx + ": root at block " + b);
                for (int k = 0; k < 400; k += 7) {
                    Bytes key = Bytes.utf8(String.format("k%03d", k));
                    assertEquals(Optional.ofNullable(model.get(key)), s.get(key), ctx + ": " + key);
                }
                System.out.println("CurrentStateCrashTest " + ctx + ": reopened at block " + b + ", "
                        + s.leafCount() + " leaves");
                reported = b;
            }
        }
        assertTrue(reported >= CYCLES * 10L, "the child committed " + reported + " blocks");
    }
}
