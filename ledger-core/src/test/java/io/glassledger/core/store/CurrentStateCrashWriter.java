package io.glassledger.core.store;

import io.glassledger.core.postree.TreeParams;
import io.glassledger.core.state.CurrentState;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.verify.hash.Bytes;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

/**
 * The child process of {@link CurrentStateCrashTest}: opens a {@link CurrentState} with sync on at whatever block its
 * directory holds, then applies blocks (each block's mutations a function of the seed and the block,
 * {@link #mutations}), reports each once {@code apply} returns, and collects the leaf log after every block, so that
 * a kill lands in a block's value appends, its leaf writes, between the leaf log's sync and the flat store's commit,
 * after the commit and before the report, or in a collection. Stops after 60 seconds.
 *
 * <p>Protocol on stdout: {@code open <block>}, then {@code committed <block>} after each block.
 *
 * <p>Usage: {@code CurrentStateCrashWriter <dir> <seed>}
 */
public final class CurrentStateCrashWriter {
    static final TreeParams PARAMS = new TreeParams(2, 8, 2, 8);

    private CurrentStateCrashWriter() {
    }

    /** Block {@code block}'s mutations, in key order: puts and deletes over 400 keys. */
    static List<Mutation> mutations(long seed, long block) {
        Random r = new Random(seed * 0x9E3779B97F4A7C15L + block);
        TreeMap<Bytes, Mutation> ms = new TreeMap<>();
        int n = 1 + r.nextInt(40);
        for (int i = 0; i < n; i++) {
            Bytes k = Bytes.utf8(String.format("k%03d", r.nextInt(400)));
            ms.put(k, r.nextInt(8) == 0 ? Mutation.delete(k) : Mutation.put(k, Bytes.utf8(block + "/" + r.nextInt())));
        }
        return new ArrayList<>(ms.values());
    }

    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        long seed = Long.parseLong(args[1]);
        PrintStream out = System.out;
        long deadline = System.nanoTime() + 60_000_000_000L;
        try (CurrentState s = CurrentState.open(dir, PARAMS, 8L << 20, true)) {
            if (s.block() < 0) {
                s.apply(0, List.of());
            }
            out.println("open " + s.block());
            out.flush();
            while (System.nanoTime() < deadline) {
                long b = s.block() + 1;
                s.apply(b, mutations(seed, b));
                out.println("committed " + b);
                out.flush();
                s.collect(0.5, 4);
            }
        }
    }
}
