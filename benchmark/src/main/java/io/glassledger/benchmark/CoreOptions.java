package io.glassledger.benchmark;

import io.glassledger.core.postree.TreeParams;
import java.nio.file.Path;

/**
 * Settings of {@code benchmark/run core}. The flags set keys, blocks, dir, repeat and seed; everything else is
 * derived, with smaller sample counts under {@code --quick}.
 *
 * @param keys            keys bulk-loaded as block 1
 * @param headTarget      update blocks are appended until the head block number reaches this
 * @param dir             working directory, wiped at start
 * @param quick           smoke mode
 * @param repeat          timed passes of the verification measure
 * @param seed            seed of all randomness (data and sampling)
 * @param storageUpdates  update blocks before the storage measure (the 100)
 * @param persistTimed    update blocks at the end of the setup whose append times make the persist measure
 * @param nosyncWarmup    blocks appended, untimed, after reopening without sync
 * @param nosyncTimed     blocks timed after reopening without sync
 * @param appendSpan      b2 - b1 of the append-only proofs (the 1,000)
 * @param appendPairs     append-only proofs measured, each with b2 - b1 = appendSpan
 * @param proofSamples    keys whose current-value proof size is measured
 * @param batchCount      batches measured per batch size
 * @param verifyProofs    pre-generated proofs per verification pass
 * @param tree            POS-tree parameters of the benchmark ledger
 * @param coldKeys        keys of the persist_cold ledger (node cache a tenth of their raw bytes); 0 skips it
 * @param coldWarmup      untimed update blocks of persist_cold
 * @param coldTimed       timed update blocks of persist_cold
 */
record CoreOptions(int keys, long headTarget, Path dir, boolean quick, int repeat, long seed, int storageUpdates,
        int persistTimed, int nosyncWarmup, int nosyncTimed, int appendSpan, int appendPairs, int proofSamples,
        int batchCount, int verifyProofs, TreeParams tree, int coldKeys, int coldWarmup, int coldTimed) {
    static final int UPDATE_KEYS = 1000;
    static final int[] BATCH_SIZES = {1, 10, 100, 1000};

    static final String USAGE = """
            usage: benchmark/run core [--quick] [--keys N] [--blocks N] [--dir PATH] [--repeat R] [--seed S]
              --keys N     keys bulk-loaded as block 1 (default 1000000; --quick 20000)
              --blocks N   append 1,000-key update blocks until the ledger has at least N blocks after genesis
                           (default 1000; --quick 30); more are added if the append-only pairs need them
              --dir PATH   working directory, wiped at start (default benchmark/work/core)
              --repeat R   timed passes of the verification measure (default 5; --quick 2)
              --seed S     seed of keys, values, updates and samples (default 42)
              --cold-keys N  keys of the persist_cold ledger, whose node cache is a tenth of their raw bytes
                           (default 10000000; --quick 200000; 0 skips persist_cold and heap)
              --tree L,LM,F,FM  tree parameters: leaf target and max keys, index target and max fanout
                           (default: TreeParams.DEFAULT)
              --quick      smoke mode: small sizes and few iterations, well under a minute
            """;

    /** @throws IllegalArgumentException on a bad flag; its message is meant for the user */
    static CoreOptions parse(String[] args, Path defaultDir) {
        boolean quick = false;
        for (String a : args) {
            quick |= a.equals("--quick");
        }
        int keys = quick ? 20_000 : 1_000_000;
        long blocks = quick ? 30 : 1000;
        int repeat = quick ? 2 : 5;
        long seed = 42;
        Path dir = defaultDir;
        TreeParams tree = TreeParams.DEFAULT;
        int coldKeys = quick ? 200_000 : 10_000_000;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--quick" -> {
                }
                case "--keys" -> keys = (int) Args.number(a, Args.value(args, ++i), 1000, Integer.MAX_VALUE);
                case "--blocks" -> blocks = Args.number(a, Args.value(args, ++i), 2, 1L << 40);
                case "--repeat" -> repeat = (int) Args.number(a, Args.value(args, ++i), 1, 1000);
                case "--seed" -> seed = Args.number(a, Args.value(args, ++i), Long.MIN_VALUE, Long.MAX_VALUE);
                case "--dir" -> dir = Path.of(Args.value(args, ++i));
                case "--tree" -> tree = tree(Args.value(args, ++i));
                case "--cold-keys" -> coldKeys = (int) Args.number(a, Args.value(args, ++i), 0, Integer.MAX_VALUE);
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        int appendPairs = quick ? 5 : 10;
        // Exactly 1,000 blocks apart, as the issue defines it, unless --blocks is too small for that.
        int appendSpan = blocks >= 1000 ? 1000 : (int) Math.max(1, blocks - appendPairs);
        int storageUpdates = (int) Math.min(100, blocks - 1);
        long head = Math.max(blocks, Math.max(appendSpan + appendPairs, 1 + storageUpdates));
        int persistTimed = (int) Math.min(100, Math.max(1, (head - 1) / 2));
        return new CoreOptions(keys, head, dir.toAbsolutePath().normalize(), quick, repeat, seed, storageUpdates,
                persistTimed, quick ? 5 : 100, quick ? 10 : 100, appendSpan, appendPairs, quick ? 200 : 1000,
                quick ? 5 : 20, quick ? 2000 : 10_000, tree, coldKeys > 0 && coldKeys < 1000 ? 1000 : coldKeys,
                quick ? 5 : 20, quick ? 10 : 100);
    }

    private static TreeParams tree(String s) {
        String[] f = s.split(",");
        if (f.length != 4) {
            throw new IllegalArgumentException("--tree needs four comma-separated numbers, got " + s);
        }
        try {
            return new TreeParams((int) Args.number("--tree", f[0], 1, Integer.MAX_VALUE),
                    (int) Args.number("--tree", f[1], 1, Integer.MAX_VALUE), (int) Args.number("--tree", f[2], 1, 1024),
                    (int) Args.number("--tree", f[3], 1, 1024));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--tree " + s + ": " + e.getMessage());
        }
    }


}
