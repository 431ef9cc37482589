package io.glassledger.benchmark;

/** Command-line values of the benchmarks' options; every refusal is an IllegalArgumentException naming the flag. */
final class Args {
    private Args() {
    }

    static String value(String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException(args[i - 1] + " needs a value");
        }
        return args[i];
    }

    static long number(String flag, String s, long min, long max) {
        long v;
        try {
            v = Long.parseLong(s.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + " needs a number, got " + s);
        }
        if (v < min || v > max) {
            throw new IllegalArgumentException(flag + " must be in [" + min + ", " + max + "], got " + v);
        }
        return v;
    }

    static double decimal(String flag, String s, double min, double max) {
        double v;
        try {
            v = Double.parseDouble(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + " needs a number, got " + s);
        }
        if (!(v >= min && v <= max)) {
            throw new IllegalArgumentException(flag + " must be in [" + min + ", " + max + "], got " + s);
        }
        return v;
    }
}
