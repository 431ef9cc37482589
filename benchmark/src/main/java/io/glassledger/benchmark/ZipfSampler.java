package io.glassledger.benchmark;

import java.util.SplittableRandom;

/**
 * Exact Zipf sampling by rejection-inversion (W. Hörmann and G. Derflinger, "Rejection-inversion to generate
 * variates from monotone discrete distributions", ACM TOMACS 6(3), 1996), the method of Apache Commons RNG's
 * {@code RejectionInversionZipfSampler}: rank k in [1, n] has probability proportional to k^-θ. O(1) per sample
 * with no table, and exact for any θ &gt; 0 (YCSB's generator approximates the ranks above 2). Stateless after
 * construction, so one instance serves every thread, each with its own random source.
 */
final class ZipfSampler {
    private final int n;
    private final double theta;
    private final double hIntegralX1;
    private final double hIntegralN;
    private final double s;

    ZipfSampler(int n, double theta) {
        if (n < 1 || !(theta > 0)) {
            throw new IllegalArgumentException("Zipf needs n >= 1 and theta > 0");
        }
        this.n = n;
        this.theta = theta;
        hIntegralX1 = hIntegral(1.5) - 1.0;
        hIntegralN = hIntegral(n + 0.5);
        s = 2.0 - hIntegralInverse(hIntegral(2.5) - h(2));
    }

    /** A rank in [0, n): rank 0 is the most frequent. */
    int next(SplittableRandom r) {
        while (true) {
            double u = hIntegralN + r.nextDouble() * (hIntegralX1 - hIntegralN);
            double x = hIntegralInverse(u);
            int k = (int) (x + 0.5);
            if (k < 1) {
                k = 1;
            } else if (k > n) {
                k = n;
            }
            if (k - x <= s || u >= hIntegral(k + 0.5) - h(k)) {
                return k - 1;
            }
        }
    }

    /** The exact probability of rank {@code rank} (0-based), for tests: (rank+1)^-θ / H(n, θ). O(n). */
    double probability(int rank) {
        double sum = 0;
        for (int k = 1; k <= n; k++) {
            sum += Math.pow(k, -theta);
        }
        return Math.pow(rank + 1, -theta) / sum;
    }

    /** H(x) = ((x^(1-θ)) - 1) / (1 - θ), and log x at θ = 1; an integral of h. */
    private double hIntegral(double x) {
        double logX = Math.log(x);
        return helper2((1.0 - theta) * logX) * logX;
    }

    /** h(x) = x^-θ. */
    private double h(double x) {
        return Math.exp(-theta * Math.log(x));
    }

    private double hIntegralInverse(double x) {
        double t = x * (1.0 - theta);
        if (t < -1.0) {
            t = -1.0;  // rounding; only at the far end of the range
        }
        return Math.exp(helper1(t) * x);
    }

    /** log(1 + x) / x, accurate near 0. */
    private static double helper1(double x) {
        return Math.abs(x) > 1e-8 ? Math.log1p(x) / x : 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
    }

    /** (exp(x) - 1) / x, accurate near 0. */
    private static double helper2(double x) {
        return Math.abs(x) > 1e-8 ? Math.expm1(x) / x : 1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x));
    }
}
