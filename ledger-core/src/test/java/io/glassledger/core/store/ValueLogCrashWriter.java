package io.glassledger.core.store;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Random;

/**
 * The child process of {@link ValueLogCrashTest}: opens a {@link ValueLog} with tiny segments (so that it rolls
 * every value or two, and a kill lands in a roll often) and appends values until it is killed, or for at most
 * 60 seconds and 1,000,000 values. Value {@code i} is a function of the seed and {@code i} ({@link #value}).
 *
 * <p>Protocol on stdout: {@code open <its ValueLog.Recovery>} once the log is open, then, after
 * each sync returns, one line {@code <i> <segment> <offset> <length>} per value that sync made durable.
 *
 * <p>Usage: {@code ValueLogCrashWriter <dir> <seed> <first i> <segment bytes>}
 */
public final class ValueLogCrashWriter {
    private ValueLogCrashWriter() {
    }

    /** Value {@code i} of a run with {@code seed}: 0 to 3,000 bytes. */
    static byte[] value(long seed, long i) {
        Random r = new Random(seed * 0x9E3779B97F4A7C15L + i);
        byte[] v = new byte[r.nextInt(3001)];
        r.nextBytes(v);
        return v;
    }

    /** Values in the sync that starts at value {@code first}: 1 to 4. */
    static int batchSize(long first) {
        return 1 + (int) (first % 4);
    }

    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        long seed = Long.parseLong(args[1]);
        long next = Long.parseLong(args[2]);
        long segmentBytes = Long.parseLong(args[3]);
        PrintStream out = System.out;
        long deadline = System.nanoTime() + 60_000_000_000L;
        try (ValueLog log = ValueLog.open(dir, segmentBytes)) {
            ValueLog.Recovery r = log.recovery();
            out.println("open " + r);
            out.flush();
            for (long end = next + 1_000_000; next < end && System.nanoTime() < deadline; ) {
                int n = batchSize(next);
                ValueLocator[] at = new ValueLocator[n];
                for (int k = 0; k < n; k++) {
                    at[k] = log.append(value(seed, next + k));
                }
                log.sync();
                StringBuilder lines = new StringBuilder();
                for (int k = 0; k < n; k++) {
                    lines.append(next + k).append(' ').append(at[k].segment()).append(' ').append(at[k].offset())
                            .append(' ').append(at[k].length()).append('\n');
                }
                out.print(lines);
                out.flush();
                next += n;
            }
        }
    }
}
