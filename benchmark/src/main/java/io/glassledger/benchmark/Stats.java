package io.glassledger.benchmark;

import java.util.Arrays;

/** Order statistics over a sample. Quantiles interpolate linearly between the closest ranks. */
final class Stats {
    private final double[] sorted;

    Stats(double[] sample) {
        if (sample.length == 0) {
            throw new IllegalArgumentException("empty sample");
        }
        sorted = sample.clone();
        Arrays.sort(sorted);
    }

    static Stats ofLongs(long[] sample) {
        return new Stats(Arrays.stream(sample).asDoubleStream().toArray());
    }

    /** {@code q} in [0, 1]. */
    double quantile(double q) {
        double pos = q * (sorted.length - 1);
        int lo = (int) Math.floor(pos);
        int hi = Math.min(lo + 1, sorted.length - 1);
        return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
    }

    double median() {
        return quantile(0.5);
    }

    double p10() {
        return quantile(0.1);
    }

    double p90() {
        return quantile(0.9);
    }

    double min() {
        return sorted[0];
    }

    double max() {
        return sorted[sorted.length - 1];
    }

    double mean() {
        double s = 0;
        for (double v : sorted) {
            s += v;
        }
        return s / sorted.length;
    }

    int count() {
        return sorted.length;
    }
}
