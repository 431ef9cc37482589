package io.glassledger.core.store;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;

/**
 * The child process of {@link LeafLogCrashTest}: opens a {@link LeafLog} with 4 KiB segments at its owner's
 * persisted block, then writes blocks (each block's puts and removals a function of the seed and the block, {@link
 * #apply}), syncs each, reports it committed, writes a checkpoint after every seventh, and collects after every block down to half
 * live, so that a kill lands
 * in a block's writes, between its sync and its report, in a checkpoint or in a collection. Stops after 60 seconds or 100,000 blocks.
 *
 * <p>Protocol on stdout: {@code open <its LeafLog.Recovery>}, then {@code committed <block>} after each block's sync.
 *
 * <p>Usage: {@code LeafLogCrashWriter <dir> <seed> <persisted block>}
 */
public final class LeafLogCrashWriter {
    static final long SEGMENT = 4096;
    static final int LEAVES = 64;

    private LeafLogCrashWriter() {
    }

    /** Applies block {@code block}'s operations to {@code leaves} and, if {@code log} is not null, writes them. */
    static void apply(long seed, long block, Map<Integer, byte[]> leaves, LeafLog log) {
        Random r = new Random(seed * 0x9E3779B97F4A7C15L + block);
        int ops = 1 + r.nextInt(5);
        for (int i = 0; i < ops; i++) {
            int leaf = r.nextInt(LEAVES);
            if (r.nextInt(6) == 0) {
                leaves.remove(leaf);
                if (log != null) {
                    log.remove(leaf, block);
                }
            } else {
                byte[] b = new byte[r.nextInt(301)];
                r.nextBytes(b);
                leaves.put(leaf, b);
                if (log != null) {
                    log.put(leaf, block, b);
                }
            }
        }
    }

    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        long seed = Long.parseLong(args[1]);
        long persisted = Long.parseLong(args[2]);
        PrintStream out = System.out;
        long deadline = System.nanoTime() + 60_000_000_000L;
        try (LeafLog log = LeafLog.open(dir, SEGMENT, persisted)) {
            out.println("open " + log.recovery());
            out.flush();
            Map<Integer, byte[]> scratch = new java.util.HashMap<>();
            for (long block = persisted + 1; block <= persisted + 100_000 && System.nanoTime() < deadline; block++) {
                apply(seed, block, scratch, log);
                log.sync();
                out.println("committed " + block);
                out.flush();
                if (block % 7 == 0) {
                    log.checkpoint(block);
                }
                log.collect(0.5, 4);
            }
        }
    }
}
