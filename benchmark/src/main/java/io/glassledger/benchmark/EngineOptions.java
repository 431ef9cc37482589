package io.glassledger.benchmark;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Settings of {@code benchmark/run engine}: the sizes and durations shared by every configuration, and the list of
 * configurations to run (the default matrix, or the single one that {@code --zipf}, {@code --persist-ms} and
 * {@code --sig} describe).
 *
 * @param keys        keys preloaded, and the key space of the transactions
 * @param seconds     measured seconds per configuration
 * @param warmup      unmeasured seconds of the same load before the measured window
 * @param clients     closed-loop client threads
 * @param workers     engine worker threads (signature checks and proofs); 0 = the engine's default
 * @param proofBatch  promises whose written keys go into one proof request in the verification
 * @param maxUnpersisted the engine's bound on committed writes not yet persisted; 0 for its default
 * @param dir         working directory; each configuration gets a fresh subdirectory, deleted afterwards
 * @param seed        seed of the keys, the preloaded values and the clients' choices
 * @param quick       smoke mode
 * @param configs     the configurations, in the order they run
 */
record EngineOptions(int keys, double seconds, double warmup, int clients, int workers, int proofBatch,
                     long maxUnpersisted, Path dir,
                     long seed, boolean quick, List<Config> configs) {
    static final int READS = 5;
    static final int WRITES = 5;

    /** How signatures are handled: client signs and engine checks, client signs and engine does not, neither. */
    enum Sig {
        CHECK("sig"), NOCHECK("nosig"), NONE("nosign");

        final String tag;

        Sig(String tag) {
            this.tag = tag;
        }

        static Sig parse(String s) {
            return switch (s) {
                case "check", "sig" -> CHECK;
                case "nocheck", "nosig" -> NOCHECK;
                case "none", "nosign" -> NONE;
                default -> throw new IllegalArgumentException("--sig must be check, nocheck or none, got " + s);
            };
        }
    }

    /**
     * One measured configuration.
     *
     * @param theta     Zipf exponent of the key choice; 0 means uniform
     * @param persistMs the engine's persist interval
     * @param sig       signature handling
     */
    record Config(double theta, int persistMs, Sig sig) {
        String dist() {
            return theta == 0 ? "uniform" : "zipf" + theta;
        }

        String bench() {
            return "engine." + dist() + ".p" + persistMs + "." + sig.tag;
        }
    }

    static final String USAGE = """
            usage: benchmark/run engine [--quick] [--keys N] [--seconds S] [--warmup S] [--clients C] [--workers W]
                                        [--zipf THETA] [--persist-ms MS] [--sig check|nocheck|none]
                                        [--proof-batch P] [--dir PATH] [--seed S]
              --keys N         keys preloaded; the transactions' key space (default 100000; --quick 10000)
              --seconds S      measured seconds per configuration (default 15; --quick 3)
              --warmup S       unmeasured seconds before each measured window (default 5; --quick 1)
              --clients C      closed-loop client threads (default 128)
              --workers W      engine worker threads for signature checks and proofs (default: the engine's,
                               max(2, cpus))
              --zipf THETA     run one configuration, keys chosen by Zipf(THETA); 0 = uniform
              --persist-ms MS  run one configuration with this persist interval (default 100)
              --sig MODE       run one configuration: check (client signs, engine checks; the default),
                               nocheck (client signs, engine does not check), none (neither)
              --proof-batch P  promises per proof request when the promises are checked (default 200)
              --max-unpersisted N  the engine's bound on committed writes not yet in the ledger, beyond
                               which it refuses commits with OVERLOADED (default: the engine's, 20000)
              --dir PATH       working directory (default benchmark/work/engine); a fresh subdirectory per
                               configuration, deleted afterwards
              --seed S         seed of keys, values and the clients' choices (default 42)
              --quick          smoke mode for CI: small key space, short windows, two configurations
            Without --zipf, --persist-ms or --sig it runs the matrix: uniform and Zipf 0.9 at 100 ms with
            signatures checked; uniform at 100 ms with checks off and with no signatures; uniform at 10 ms and
            1,000 ms with signatures checked.
            """;

    /** @throws IllegalArgumentException on a bad flag; its message is meant for the user */
    static EngineOptions parse(String[] args, Path defaultDir) {
        boolean quick = false;
        for (String a : args) {
            quick |= a.equals("--quick");
        }
        int keys = quick ? 10_000 : 100_000;
        double seconds = quick ? 3 : 15;
        double warmup = quick ? 1 : 5;
        int clients = 128;
        int workers = 0;
        int proofBatch = 200;
        long maxUnpersisted = 0;
        long seed = 42;
        Path dir = defaultDir;
        Double theta = null;
        Integer persistMs = null;
        Sig sig = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--quick" -> {
                }
                case "--keys" -> keys = (int) Args.number(a, Args.value(args, ++i), 1000, 50_000_000);
                case "--seconds" -> seconds = Args.decimal(a, Args.value(args, ++i), 0.5, 3600);
                case "--warmup" -> warmup = Args.decimal(a, Args.value(args, ++i), 0, 3600);
                case "--clients" -> clients = (int) Args.number(a, Args.value(args, ++i), 1, 4096);
                case "--workers" -> workers = (int) Args.number(a, Args.value(args, ++i), 1, 256);
                case "--proof-batch" -> proofBatch = (int) Args.number(a, Args.value(args, ++i), 1, 1 << 20);
                case "--max-unpersisted" -> maxUnpersisted = Args.number(a, Args.value(args, ++i), 1, Long.MAX_VALUE);
                case "--zipf" -> theta = Args.decimal(a, Args.value(args, ++i), 0, 5);
                case "--persist-ms" -> persistMs = (int) Args.number(a, Args.value(args, ++i), 1, 60_000);
                case "--sig" -> sig = Sig.parse(Args.value(args, ++i));
                case "--seed" -> seed = Args.number(a, Args.value(args, ++i), Long.MIN_VALUE, Long.MAX_VALUE);
                case "--dir" -> dir = Path.of(Args.value(args, ++i));
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        if (theta != null && theta == 1.0) {
            throw new IllegalArgumentException("--zipf 1 is not supported; use 0.99 or 1.01");
        }
        List<Config> configs = new ArrayList<>();
        if (theta != null || persistMs != null || sig != null) {
            configs.add(new Config(theta == null ? 0 : theta, persistMs == null ? 100 : persistMs,
                    sig == null ? Sig.CHECK : sig));
        } else if (quick) {
            configs.add(new Config(0, 100, Sig.CHECK));
            configs.add(new Config(0.9, 100, Sig.CHECK));
        } else {
            configs.add(new Config(0, 100, Sig.CHECK));
            configs.add(new Config(0.9, 100, Sig.CHECK));
            configs.add(new Config(0, 100, Sig.NOCHECK));
            configs.add(new Config(0, 100, Sig.NONE));
            configs.add(new Config(0, 10, Sig.CHECK));
            configs.add(new Config(0, 1000, Sig.CHECK));
        }
        if (READS + WRITES > keys) {
            throw new IllegalArgumentException("--keys must be at least " + (READS + WRITES));
        }
        return new EngineOptions(keys, seconds, warmup, clients, workers, proofBatch, maxUnpersisted, dir.toAbsolutePath()
                .normalize(), seed, quick, List.copyOf(configs));
    }



}
