package io.glassledger.benchmark;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.proof.AppendOnlyProof;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.KeyClaim;
import io.glassledger.verify.proof.KeysProof;
import io.glassledger.verify.proof.ProofVerifier;
import io.glassledger.verify.proof.VerificationException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Proof sizes and verification speed at the ledger's head. Every proof measured is also encoded, decoded and
 * verified against the model's values; a failure is thrown, never counted. Each measure also checks once that a
 * wrong claim is rejected, so that a verifier that accepts everything cannot pass as fast.
 */
final class ProofMeasures {
    private final Ledger ledger;
    private final Workload data;
    private final CoreOptions opts;
    private final SplittableRandom random;
    private final PrintStream out;
    private final Digest head;

    ProofMeasures(Ledger ledger, Workload data, CoreOptions opts, SplittableRandom random, PrintStream out) {
        this.ledger = ledger;
        this.data = data;
        this.opts = opts;
        this.random = random;
        this.out = out;
        this.head = ledger.digest();
    }

    /** Measure 2: size of a single-key current-value proof. */
    void currentValueProofs() throws VerificationException {
        long h = head.blockNo();
        int[] idx = data.distinct(random, opts.proofSamples());
        double[] sizes = new double[idx.length];
        for (int j = 0; j < idx.length; j++) {
            int i = idx[j];
            byte[] enc = ledger.proveKeys(List.of(data.key(i)), h, h).encode();
            sizes[j] = enc.length;
            ProofVerifier.verifyCurrentValue(head, data.key(i), data.value(i), KeysProof.decode(enc));
        }
        KeysProof p = ledger.proveKeys(List.of(data.key(idx[0])), h, h);
        expectRejected("current-value proof of a wrong value",
                () -> ProofVerifier.verifyCurrentValue(head, data.key(idx[0]), data.value(idx[1]), p));
        Stats s = new Stats(sizes);
        JsonLine.of("current_value_proof", "bytes", s.mean(), "bytes").with("stat", "mean")
                .with("p50", s.median()).with("p90", s.p90()).with("max", s.max()).with("n", s.count())
                .printTo(out);
        JsonLine.of("current_value_proof", "bytes_max", s.max(), "bytes").with("n", s.count())
                .printTo(out);
    }

    /** Measure 3: size of append-only proofs between blocks appendSpan apart, ending at the head and just before. */
    void appendOnlyProofs() throws VerificationException {
        long h = head.blockNo();
        int span = opts.appendSpan();
        List<Double> sizes = new ArrayList<>();
        double atHead = -1;
        for (long b2 = h; b2 > h - opts.appendPairs() && b2 - span >= 0; b2--) {
            long b1 = b2 - span;
            byte[] enc = ledger.proveAppendOnly(b1, b2).encode();
            ProofVerifier.verifyAppendOnly(ledger.digest(b1), ledger.digest(b2), AppendOnlyProof.decode(enc));
            sizes.add((double) enc.length);
            if (b2 == h) {
                atHead = enc.length;
            }
        }
        AppendOnlyProof p = ledger.proveAppendOnly(h - span, h);
        Digest forged = new Digest(h - span, ledger.digest(h - span + 1).root());
        expectRejected("append-only proof against a forged older digest",
                () -> ProofVerifier.verifyAppendOnly(forged, head, p));
        Stats s = new Stats(sizes.stream().mapToDouble(Double::doubleValue).toArray());
        JsonLine.of("append_only_proof", "bytes", atHead, "bytes").with("b1", h - span).with("b2", h)
                .printTo(out);
        JsonLine.of("append_only_proof", "bytes_mean", s.mean(), "bytes").with("span", span)
                .with("max", s.max()).with("n", s.count()).printTo(out);
    }

    /** Measure 4: bytes per key of one proof for a batch of distinct random keys, for several batch sizes. */
    void batchProofs() throws VerificationException {
        long h = head.blockNo();
        for (int k : CoreOptions.BATCH_SIZES) {
            double[] perKey = new double[opts.batchCount()];
            for (int b = 0; b < perKey.length; b++) {
                int[] idx = data.distinct(random, k);
                List<Bytes> keys = new ArrayList<>(k);
                List<KeyClaim> claims = new ArrayList<>(k);
                for (int i : idx) {
                    keys.add(data.key(i));
                    claims.add(KeyClaim.present(data.key(i), data.value(i)));
                }
                byte[] enc = ledger.proveKeys(keys, h, h).encode();
                ProofVerifier.verifyBatch(head, h, claims, KeysProof.decode(enc));
                perKey[b] = (double) enc.length / k;
            }
            Stats s = new Stats(perKey);
            JsonLine.of("batch_proof_" + k, "bytes_per_key", s.median(), "bytes/key")
                    .with("batch_keys", k).spread(s).printTo(out);
        }
    }

    /**
     * Measure 4b: size of history proofs (FORMAT.md §12) of limit {@link #HISTORY_LIMIT} for random keys, whole and
     * per version shown. Under {@code glassledger/4} each older version is a keys proof at an older block, so a
     * version costs a lower path and an upper-tree path. Its own random stream, so the other measures draw as before.
     */
    void historyProofs() throws VerificationException {
        long h = head.blockNo();
        SplittableRandom r = new SplittableRandom(opts.seed() ^ 0x4157_0123L);
        int n = Math.max(1, opts.proofSamples() / 4);
        double[] sizes = new double[n];
        double[] perVersion = new double[n];
        double versions = 0;
        for (int j = 0; j < n; j++) {
            Bytes key = data.key(r.nextInt(data.size()));
            Ledger.History hist = ledger.proveHistory(key, HISTORY_LIMIT, h);
            byte[] enc = hist.proof().encode();
            ProofVerifier.verifyHistory(head, key, HISTORY_LIMIT, hist.versions(), enc);
            sizes[j] = enc.length;
            perVersion[j] = (double) enc.length / hist.versions().size();
            versions += hist.versions().size();
        }
        Stats s = new Stats(sizes);
        JsonLine.of("history_proof", "bytes", s.median(), "bytes").with("limit", HISTORY_LIMIT)
                .with("versions_mean", versions / n).with("bytes_per_version", new Stats(perVersion).median())
                .with("max", s.max()).with("n", n).printTo(out);
    }

    static final int HISTORY_LIMIT = 5;

    /**
     * Pre-generates the proofs of measure 5. The timing itself ({@link VerifySet#measure}) needs no ledger or store,
     * so the caller can close the store first and keep RocksDB's background compactions off the CPU.
     */
    VerifySet prepareVerify() {
        long h = head.blockNo();
        int n = opts.verifyProofs();
        VerifySet set = new VerifySet(head, n);
        for (int j = 0; j < n; j++) {
            int i = random.nextInt(data.size());
            set.keys[j] = data.key(i);
            set.values[j] = data.value(i);
            set.proofs[j] = ledger.proveKeys(List.of(set.keys[j]), h, h).encode();
        }
        return set;
    }

    /** Encoded current-value proofs with their claims, and the digest they verify against. */
    static final class VerifySet {
        private final Digest head;
        private final byte[][] proofs;
        private final Bytes[] keys;
        private final Bytes[] values;

        private VerifySet(Digest head, int n) {
            this.head = head;
            this.proofs = new byte[n][];
            this.keys = new Bytes[n];
            this.values = new Bytes[n];
        }

        /** Measure 5: single-thread decode + verifyCurrentValue rate; warm-up passes, then the median pass. */
        void measure(CoreOptions opts, PrintStream out) throws VerificationException {
            int n = proofs.length;
            int warmups = opts.quick() ? 1 : 2;
            double[] rates = new double[opts.repeat()];
            for (int pass = -warmups; pass < rates.length; pass++) {
                long t0 = System.nanoTime();
                for (int j = 0; j < n; j++) {
                    ProofVerifier.verifyCurrentValue(head, keys[j], values[j], KeysProof.decode(proofs[j]));
                }
                long ns = System.nanoTime() - t0;
                if (pass >= 0) {
                    rates[pass] = n / (ns / 1e9);
                }
            }
            Stats s = new Stats(rates);
            JsonLine.of("verify", "proofs_per_second", s.median(), "proofs/s").spread(s)
                    .with("proofs", n).with("threads", 1).printTo(out);
        }
    }

    private interface Check {
        void run() throws VerificationException;
    }

    private static void expectRejected(String what, Check c) throws VerificationException {
        try {
            c.run();
        } catch (VerificationException expected) {
            return;
        }
        throw new VerificationException("negative control failed: " + what + " was accepted");
    }
}
