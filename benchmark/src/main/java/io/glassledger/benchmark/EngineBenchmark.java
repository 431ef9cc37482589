package io.glassledger.benchmark;

import io.glassledger.benchmark.EngineOptions.Config;
import io.glassledger.benchmark.EngineOptions.Sig;
import io.glassledger.verify.codec.ByteWriter;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.verify.proof.AppendOnlyProof;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.VerificationException;
import io.glassledger.verify.txn.BlockProof;
import io.glassledger.core.txn.EngineConfig;
import io.glassledger.verify.txn.Promise;
import io.glassledger.verify.txn.PromiseVerifier;
import io.glassledger.core.txn.ProofResult;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.Transaction;
import io.glassledger.verify.txn.TxnDraft;
import io.glassledger.core.txn.TxnEngine;
import io.glassledger.core.txn.TxnException;
import io.glassledger.core.txn.TxnException.Reason;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code benchmark/run engine}: one shard's {@link TxnEngine}, in process, under closed-loop clients. Each
 * transaction reads 5 keys ({@code engine.get}, recording their versions) and writes 5 others with fresh 128-byte
 * values, out of a preloaded key space of 32-byte keys chosen uniformly or by Zipf(θ). The client signs it with its
 * own Ed25519 key and commits it; a CONFLICT is re-run with fresh reads and a new id, OVERLOADED is retried after
 * 1 ms. WAL fsync is on.
 *
 * <p>Per configuration: a fresh data directory; preload the keys through the engine; warm up; measure a window; then,
 * untimed in the throughput, fetch one batched proof per block and check every promise of the window with
 * {@link PromiseVerifier}, advancing the trusted digest with append-only proofs. Phase latencies come from the
 * engine's {@link TxnEngine.Stats} counters over the window (get-proof: over the verification). Results go to
 * stdout, one JSON object per line ({@link JsonLine}); progress to stderr. Exit status: 0 when every promise of
 * every configuration verified (targets missed or not); 1 if any failed or stayed pending, or a client got an
 * unexpected error; 2 for a usage error.
 */
public final class EngineBenchmark {
    private static final int MEASURE_SAMPLES = 2000;

    private static final int WARMUP = 0;
    private static final int MEASURE = 1;
    private static final int STOP = 2;

    private final EngineOptions opts;
    private final PrintStream out = System.out;
    private final long started = System.nanoTime();
    private final Workload data;
    private boolean failed;

    private EngineBenchmark(EngineOptions opts) {
        this.opts = opts;
        this.data = new Workload(opts.keys(), opts.seed());
    }

    public static void main(String[] args) {
        if (List.of(args).contains("--help") || List.of(args).contains("-h")) {
            System.err.print(EngineOptions.USAGE);
            System.exit(0);
        }
        EngineOptions opts;
        try {
            opts = EngineOptions.parse(args, Path.of(System.getProperty("glassledger.bench.dir",
                    "benchmark/work/engine")));
        } catch (IllegalArgumentException e) {
            System.err.println("engine: " + e.getMessage());
            System.err.print(EngineOptions.USAGE);
            System.exit(2);
            return;
        }
        try {
            WorkDir.prepare(opts.dir());
        } catch (IllegalArgumentException e) {
            System.err.println("engine: " + e.getMessage());
            System.exit(2);
        }
        int status;
        try {
            EngineBenchmark b = new EngineBenchmark(opts);
            b.run();
            status = b.failed ? 1 : 0;
        } catch (RuntimeException | Error | InterruptedException | ExecutionException | TimeoutException e) {
            e.printStackTrace();
            status = 1;
        }
        System.exit(status);
    }

    private void run() throws InterruptedException, ExecutionException, TimeoutException {
        log("engine: %d keys, %d clients, %.1f s measured + %.1f s warm-up per configuration, %d configurations, "
                        + "dir %s, seed %d%s, %d cpus, max heap %d MiB, load average %s", opts.keys(), opts.clients(),
                opts.seconds(), opts.warmup(), opts.configs().size(), opts.dir(), opts.seed(),
                opts.quick() ? ", quick" : "", Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() >> 20, WorkDir.loadAverage());
        measureCrypto();
        for (Config c : opts.configs()) {
            runConfig(c);
        }
        log("done; load average %s%s", WorkDir.loadAverage(), failed ? "; SOME PROMISES DID NOT VERIFY or a client failed"
                : "");
    }

    // ---------------------------------------------------------------- signature cost

    /**
     * Single-thread cost of signing and of checking one benchmark transaction (5 reads, 5 writes), so that the CPU
     * budget of a 2-core machine is visible: in process, the clients' signing competes with the engine.
     */
    private void measureCrypto() {
        SigningKey key = SigningKey.generate();
        SplittableRandom r = new SplittableRandom(opts.seed());
        TxnDraft d = new TxnDraft(key, 0, System.currentTimeMillis());
        for (int i = 0; i < EngineOptions.READS; i++) {
            d.read(data.key(i), 1);
        }
        for (int i = EngineOptions.READS; i < EngineOptions.READS + EngineOptions.WRITES; i++) {
            d.put(data.key(i), randomValue(r));
        }
        Transaction tx = d.transaction();
        SignedTransaction stx = null;
        long[] sign = new long[MEASURE_SAMPLES];
        long[] check = new long[MEASURE_SAMPLES];
        boolean ok = true;
        for (int pass = 0; pass < 2; pass++) {  // the first pass warms up the JIT
            for (int i = 0; i < MEASURE_SAMPLES; i++) {
                long t0 = System.nanoTime();
                stx = SignedTransaction.sign(tx, key);
                long t1 = System.nanoTime();
                ok &= stx.signatureValid();
                long t2 = System.nanoTime();
                sign[i] = t1 - t0;
                check[i] = t2 - t1;
            }
        }
        if (!ok) {
            throw new IllegalStateException("a benchmark signature did not verify");
        }
        Stats s = new Stats(Arrays.stream(sign).mapToDouble(n -> n / 1e3).toArray());
        Stats v = new Stats(Arrays.stream(check).mapToDouble(n -> n / 1e3).toArray());
        JsonLine.of("engine.crypto", "sign_us", s.median(), "us").spread(s).with("tx_bytes", stx.size())
                .printTo(out);
        JsonLine.of("engine.crypto", "verify_us", v.median(), "us").spread(v).with("tx_bytes", stx.size())
                .printTo(out);
        log("Ed25519 on one thread: sign %.1f us, verify %.1f us per %d-byte transaction", s.median(), v.median(),
                stx.size());
    }

    // ---------------------------------------------------------------- one configuration

    /** A committed transaction of the measured window, with what its client needs to verify the promise. */
    private record Committed(Promise promise, Transaction tx) {
    }

    /** State shared by the clients of one configuration. */
    private final class Load {
        final TxnEngine engine;
        final Config config;
        final ZipfSampler zipf;
        volatile int phase = WARMUP;
        final LongAccumulator maxBlock = new LongAccumulator(Math::max, 0);
        volatile Throwable error;

        Load(TxnEngine engine, Config config) {
            this.engine = engine;
            this.config = config;
            this.zipf = config.theta() == 0 ? null : new ZipfSampler(opts.keys(), config.theta());
        }
    }

    private final class Client implements Runnable {
        final Load load;
        final SigningKey key = SigningKey.generate();
        final SplittableRandom random;
        final int[] picked = new int[EngineOptions.READS + EngineOptions.WRITES];
        final LongList commitNanos = new LongList();
        final LongList txNanos = new LongList();
        final List<Committed> committed = new ArrayList<>();
        long conflicts;
        long overloaded;
        long retriedTxs;

        Client(Load load, long seed) {
            this.load = load;
            this.random = new SplittableRandom(seed);
        }

        @Override
        public void run() {
            try {
                loop();
            } catch (Throwable t) {
                load.error = t;
                load.phase = STOP;
            }
        }

        private void loop() throws InterruptedException {
            Bytes[] values = new Bytes[EngineOptions.WRITES];
            while (load.phase != STOP) {
                pick();
                for (int i = 0; i < values.length; i++) {
                    values[i] = randomValue(random);
                }
                long txStart = System.nanoTime();
                boolean retried = false;
                attempts:
                while (load.phase != STOP) {
                    SignedTransaction stx = draft(values);
                    while (true) {
                        long t0 = System.nanoTime();
                        Promise p;
                        try {
                            p = load.engine.commit(stx).get();
                        } catch (ExecutionException e) {
                            if (!(e.getCause() instanceof TxnException te)) {
                                throw new IllegalStateException("commit failed", e.getCause());
                            }
                            boolean measuring = load.phase == MEASURE;
                            if (te.reason() == Reason.CONFLICT) {
                                conflicts += measuring ? 1 : 0;
                                retried = true;
                                continue attempts;  // fresh reads, new id
                            }
                            if (te.reason() == Reason.OVERLOADED) {
                                overloaded += measuring ? 1 : 0;
                                LockSupport.parkNanos(5_000_000 + random.nextInt(5_000_000));
                                if (load.phase == STOP) {
                                    return;
                                }
                                // Nothing was done; after the back-off the reads may be stale, so read again.
                                continue attempts;
                            }
                            throw new IllegalStateException("unexpected " + te.reason() + ": " + te.getMessage(), te);
                        }
                        long t1 = System.nanoTime();
                        load.maxBlock.accumulate(p.blockNo());
                        if (load.phase == MEASURE) {
                            commitNanos.add(t1 - t0);
                            txNanos.add(t1 - txStart);
                            committed.add(new Committed(p, stx.tx()));
                            retriedTxs += retried ? 1 : 0;
                        }
                        break attempts;
                    }
                }
            }
        }

        /** 10 distinct keys: the first 5 are read, the other 5 written. */
        private void pick() {
            int n = 0;
            while (n < picked.length) {
                int k = load.zipf == null ? random.nextInt(opts.keys()) : load.zipf.next(random);
                boolean dup = false;
                for (int i = 0; i < n; i++) {
                    dup |= picked[i] == k;
                }
                if (!dup) {
                    picked[n++] = k;
                }
            }
        }

        private SignedTransaction draft(Bytes[] values) {
            TxnDraft d = new TxnDraft(key, 0, System.currentTimeMillis());
            for (int i = 0; i < EngineOptions.READS; i++) {
                Bytes k = data.key(picked[i]);
                d.read(k, load.engine.get(k).version());
            }
            for (int i = 0; i < EngineOptions.WRITES; i++) {
                d.put(data.key(picked[EngineOptions.READS + i]), values[i]);
            }
            return load.config.sig() == Sig.NONE ? unsigned(d.transaction()) : d.sign();
        }
    }

    /** The record form of a signed transaction with an all-zero signature: for the engine with checks off. */
    private static SignedTransaction unsigned(Transaction tx) {
        byte[] enc = tx.encode();
        return SignedTransaction.decode(new ByteWriter(enc.length + 72).lengthPrefixed(enc).raw(new byte[64])
                .toByteArray());
    }

    private void runConfig(Config c) throws InterruptedException, ExecutionException, TimeoutException {
        Path dir = opts.dir().resolve(c.bench());
        WorkDir.deleteTree(dir);
        log("%s: persist interval %d ms, keys %s, signatures %s", c.bench(), c.persistMs(),
                c.theta() == 0 ? "uniform" : "Zipf " + c.theta(), switch (c.sig()) {
                    case CHECK -> "signed and checked";
                    case NOCHECK -> "signed, not checked";
                    case NONE -> "neither signed nor checked";
                });
        EngineConfig ec = EngineConfig.defaults(dir).withPersistInterval(Duration.ofMillis(c.persistMs()))
                .withVerifySignatures(c.sig() == Sig.CHECK);
        if (opts.workers() > 0) {
            ec = ec.withWorkers(opts.workers());
        }
        if (opts.maxUnpersisted() > 0) {
            ec = ec.withMaxUnpersistedWrites(opts.maxUnpersisted());
        }
        String loadAtStart = WorkDir.loadAverage();
        try (TxnEngine engine = TxnEngine.open(ec)) {
            preload(engine);
            Load load = new Load(engine, c);
            List<Client> clients = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            SplittableRandom seeds = new SplittableRandom(opts.seed() ^ c.bench().hashCode());
            for (int i = 0; i < opts.clients(); i++) {
                Client cl = new Client(load, seeds.nextLong());
                Thread t = new Thread(cl, "bench-client-" + i);
                t.setDaemon(true);
                clients.add(cl);
                threads.add(t);
            }
            threads.forEach(Thread::start);
            watch(load, engine, opts.warmup(), "warm-up");
            TxnEngine.Stats s0 = engine.stats();
            Digest trusted = engine.digest();
            long t0 = System.nanoTime();
            load.phase = MEASURE;
            watch(load, engine, opts.seconds(), "measure");
            load.phase = STOP;
            long t1 = System.nanoTime();
            TxnEngine.Stats s1 = engine.stats();
            for (Thread t : threads) {
                t.join(60_000);
                if (t.isAlive()) {
                    throw new IllegalStateException(t.getName() + " did not stop within 60 s");
                }
            }
            if (load.error != null) {
                failed = true;
                throw new IllegalStateException(c.bench() + ": a client failed", load.error);
            }
            double seconds = (t1 - t0) / 1e9;
            // Every block promised so far, measured or not, goes into the ledger before the proofs are fetched, so
            // the head (and the digest the proofs are against) stays put during the verification.
            long d0 = System.nanoTime();
            engine.persistSoon();
            engine.awaitPersisted(load.maxBlock.get()).get(300, TimeUnit.SECONDS);
            double drain = (System.nanoTime() - d0) / 1e9;
            TxnEngine.Stats s2 = engine.stats();
            List<Committed> all = new ArrayList<>();
            clients.forEach(cl -> all.addAll(cl.committed));
            Verification v = verify(engine, trusted, all);
            TxnEngine.Stats s3 = engine.stats();
            WholeBlock wb = wholeBlockCost(engine, v);
            report(c, clients, seconds, drain, loadAtStart, s0, s1, s2, s3, v, wb);
        } finally {
            WorkDir.deleteTree(dir);
        }
    }

    /** Sleeps {@code seconds}, logging the commit rate every few seconds; returns early if a client failed. */
    private void watch(Load load, TxnEngine engine, double seconds, String what) throws InterruptedException {
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long last = engine.stats().committed();
        long lastT = System.nanoTime();
        while (load.error == null) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                break;
            }
            TimeUnit.NANOSECONDS.sleep(Math.min(left, 5_000_000_000L));
            long now = System.nanoTime();
            long c = engine.stats().committed();
            if (now - lastT > 1e9) {
                log("  %s: %.0f tx/s", what, (c - last) / ((now - lastT) / 1e9));
            }
            last = c;
            lastT = now;
        }
    }

    /** Puts every key with its preload value, through the engine, 1,000 keys per transaction, and persists them. */
    private void preload(TxnEngine engine) throws InterruptedException, ExecutionException, TimeoutException {
        long t0 = System.nanoTime();
        SigningKey loader = SigningKey.generate();
        int txs = 0;
        long last = 0;
        // In waves of 10,000 writes, each persisted before the next: the engine refuses more unpersisted writes.
        for (int wave = 0; wave < opts.keys(); wave += 10_000) {
            List<CompletableFuture<Promise>> fs = new ArrayList<>();
            for (int from = wave; from < Math.min(opts.keys(), wave + 10_000); from += 1000) {
                TxnDraft d = new TxnDraft(loader, 0, System.currentTimeMillis());
                for (int i = from; i < Math.min(opts.keys(), from + 1000); i++) {
                    d.put(data.key(i), data.value(i));
                }
                fs.add(engine.commit(d.sign()));
            }
            for (CompletableFuture<Promise> f : fs) {
                last = Math.max(last, f.get(120, TimeUnit.SECONDS).blockNo());
            }
            txs += fs.size();
            engine.persistSoon();
            engine.awaitPersisted(last).get(300, TimeUnit.SECONDS);
        }
        log("  preloaded %d keys in %d transactions into block %d in %.1f s", opts.keys(), txs, last,
                (System.nanoTime() - t0) / 1e9);
    }

    // ---------------------------------------------------------------- verification

    private record Verification(long verified, long failed, long pending, long blocks, long proofRequests,
                                long proofBytes, long claims, double wallSeconds, double verifyCpuSeconds,
                                Digest trusted, TreeMap<Long, List<Committed>> byBlock) {
    }

    /** One proof request: some promises of one block, whose written keys fit one request. */
    private record Unit(long block, List<Committed> promises, List<Bytes> keys) {
    }

    private record Outstanding(Unit unit, CompletableFuture<ProofResult> result) {
    }

    /**
     * Checks every promise with {@link PromiseVerifier#verifyAll}. The promises of each block are split into proof
     * requests of at most {@code --proof-batch} promises (and the engine's limit of keys per request); a few requests
     * are in flight, at most one per block, so that the engine does not merge them into one larger batch. The
     * trusted digest starts at the digest of the window's start and advances to each verified proof's digest, with
     * an append-only proof whenever the two differ.
     *
     * <p>Each request's promises are checked together with {@link PromiseVerifier#verifyAll}: the proof once, then
     * each transaction's writes against its claims.
     */
    private Verification verify(TxnEngine engine, Digest trusted, List<Committed> all)
            throws InterruptedException, ExecutionException, TimeoutException {
        long t0 = System.nanoTime();
        TreeMap<Long, List<Committed>> byBlock = new TreeMap<>();
        for (Committed c : all) {
            byBlock.computeIfAbsent(c.promise().blockNo(), b -> new ArrayList<>()).add(c);
        }
        ArrayDeque<Unit> units = new ArrayDeque<>();
        for (Map.Entry<Long, List<Committed>> e : byBlock.entrySet()) {
            List<Committed> chunk = new ArrayList<>();
            List<Bytes> keys = new ArrayList<>();
            for (Committed c : e.getValue()) {
                if (chunk.size() == opts.proofBatch()
                        || keys.size() + c.tx().writes().size() > Transaction.MAX_OPS) {
                    units.add(new Unit(e.getKey(), chunk, keys));
                    chunk = new ArrayList<>();
                    keys = new ArrayList<>();
                }
                chunk.add(c);
                for (Mutation m : c.tx().writes()) {
                    keys.add(m.key());
                }
            }
            units.add(new Unit(e.getKey(), chunk, keys));
        }
        long requests = units.size();
        log("  verifying %d promises in %d blocks (%d proof requests)", all.size(), byBlock.size(), requests);
        ArrayDeque<Outstanding> inflight = new ArrayDeque<>();
        HashSet<Long> inflightBlocks = new HashSet<>();
        long verified = 0;
        long bad = 0;
        long pending = 0;
        long proofBytes = 0;
        long claims = 0;
        long cpu = 0;
        AppendOnlyProof ao = null;
        long lastProgress = System.nanoTime();
        while (!units.isEmpty() || !inflight.isEmpty()) {
            while (!units.isEmpty() && inflight.size() < 8 && !inflightBlocks.contains(units.peek().block())) {
                Unit u = units.poll();
                inflightBlocks.add(u.block());
                inflight.add(new Outstanding(u, engine.proveWrites(u.block(), u.keys(), Duration.ofSeconds(30))));
            }
            Outstanding o = inflight.poll();
            inflightBlocks.remove(o.unit().block());
            ProofResult r;
            try {
                r = o.result().get(60, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                bad += o.unit().promises().size();
                problem("proof request for block %d failed: %s", o.unit().block(), e.getCause());
                continue;
            }
            if (r instanceof ProofResult.Pending p) {
                pending += o.unit().promises().size();
                problem("block %d still pending (persisted: %d)", p.blockNo(), p.persisted());
                continue;
            }
            BlockProof bp = ((ProofResult.Ready) r).proof();
            proofBytes += bp.proof().encode().length;
            claims += bp.claims().size();
            Digest next = bp.digest();
            if (next.blockNo() > trusted.blockNo() && (ao == null || ao.b1() != trusted.blockNo()
                    || ao.b2() != next.blockNo())) {
                ao = engine.proveAppendOnly(trusted.blockNo(), next.blockNo());
            }
            List<PromiseVerifier.Claim> batch = new ArrayList<>(o.unit().promises().size());
            for (Committed c : o.unit().promises()) {
                batch.add(new PromiseVerifier.Claim(c.promise(), c.tx()));
            }
            long v0 = System.nanoTime();
            try {
                trusted = PromiseVerifier.verifyAll(trusted, batch, bp,
                        next.blockNo() == trusted.blockNo() ? null : ao);
                verified += batch.size();
            } catch (VerificationException e) {
                bad += batch.size();
                problem("the %d promises of block %d did not verify: %s", batch.size(), bp.blockNo(), e.getMessage());
            }
            cpu += System.nanoTime() - v0;
            if (System.nanoTime() - lastProgress > 5e9) {
                lastProgress = System.nanoTime();
                log("  verified %d of %d", verified, all.size());
            }
        }
        return new Verification(verified, bad, pending, byBlock.size(), requests, proofBytes, claims,
                (System.nanoTime() - t0) / 1e9, cpu / 1e9, trusted, byBlock);
    }

    /** What checking promises against one proof of a whole block costs, on a sample of the largest block. */
    private record WholeBlock(long block, int promises, int keys, int proofBytes, double proveMs,
                              double verifyMsPerPromise, int sampled, boolean forgeryRejected) {
    }

    /**
     * One {@code proveWrites} of all the written keys of the block with the most promises, then
     * {@link PromiseVerifier#verifyAll} of all its promises against that one proof, timed. These checks count
     * too: a failure fails the run. Also the negative control: the first of those promises with one written value
     * changed must be rejected.
     */
    private WholeBlock wholeBlockCost(TxnEngine engine, Verification v)
            throws InterruptedException, ExecutionException, TimeoutException {
        Map.Entry<Long, List<Committed>> largest = null;
        for (Map.Entry<Long, List<Committed>> e : v.byBlock().entrySet()) {
            if (largest == null || e.getValue().size() > largest.getValue().size()) {
                largest = e;
            }
        }
        if (largest == null) {
            return null;
        }
        List<Bytes> keys = new ArrayList<>();
        for (Committed c : largest.getValue()) {
            for (Mutation m : c.tx().writes()) {
                keys.add(m.key());
            }
        }
        if (keys.size() > Transaction.MAX_OPS) {
            return null;
        }
        long t0 = System.nanoTime();
        ProofResult r = engine.proveWrites(largest.getKey(), keys, Duration.ofSeconds(30)).get(60, TimeUnit.SECONDS);
        double proveMs = (System.nanoTime() - t0) / 1e6;
        if (!(r instanceof ProofResult.Ready ready)) {
            problem("whole-block proof of block %d is pending", largest.getKey());
            return null;
        }
        BlockProof bp = ready.proof();
        Digest trusted = v.trusted();
        AppendOnlyProof ao = bp.digest().blockNo() > trusted.blockNo()
                ? engine.proveAppendOnly(trusted.blockNo(), bp.digest().blockNo()) : null;
        int n = largest.getValue().size();
        List<PromiseVerifier.Claim> batch = new ArrayList<>(n);
        for (Committed c : largest.getValue()) {
            batch.add(new PromiseVerifier.Claim(c.promise(), c.tx()));
        }
        long v0 = System.nanoTime();
        try {
            PromiseVerifier.verifyAll(trusted, batch, bp, ao);
        } catch (VerificationException e) {
            problem("the promises of block %d did not verify against the whole-block proof: %s", largest.getKey(),
                    e.getMessage());
        }
        long ns = System.nanoTime() - v0;
        // Negative control: the same promise and proof, with one written value changed, must be rejected.
        Committed first = largest.getValue().get(0);
        Transaction t = first.tx();
        List<Mutation> writes = new ArrayList<>(t.writes());
        byte[] changed = writes.get(0).value().toByteArray();
        changed[0] ^= 1;
        writes.set(0, Mutation.put(writes.get(0).key(), Bytes.wrap(changed)));
        Transaction forged = new Transaction(t.txId(), t.clientKey(), t.shard(), t.participants(), t.reads(), writes);
        boolean rejected;
        try {
            PromiseVerifier.verify(trusted, first.promise(), forged, bp, ao);
            rejected = false;
            problem("a promise with a changed written value was accepted (block %d)", largest.getKey());
        } catch (VerificationException expected) {
            rejected = true;
        }
        return new WholeBlock(largest.getKey(), largest.getValue().size(), keys.size(), bp.proof().encode().length,
                proveMs, ns / 1e6 / n, n, rejected);
    }

    private int problems;

    private void problem(String format, Object... args) {
        failed = true;
        if (++problems <= 10) {
            log("  VERIFICATION PROBLEM: " + format, args);
        }
    }

    // ---------------------------------------------------------------- output

    private void report(Config c, List<Client> clients, double seconds, double drain, String loadAtStart,
                        TxnEngine.Stats s0, TxnEngine.Stats s1,
                        TxnEngine.Stats s2, TxnEngine.Stats s3, Verification v, WholeBlock wb) {
        String b = c.bench();
        long committed = clients.stream().mapToLong(cl -> cl.committed.size()).sum();
        long conflicts = clients.stream().mapToLong(cl -> cl.conflicts).sum();
        long overloaded = clients.stream().mapToLong(cl -> cl.overloaded).sum();
        long retried = clients.stream().mapToLong(cl -> cl.retriedTxs).sum();
        LongList commitNs = new LongList();
        LongList txNs = new LongList();
        clients.forEach(cl -> {
            commitNs.addAll(cl.commitNanos);
            txNs.addAll(cl.txNanos);
        });
        long engineConflicts = s1.aborted().get(Reason.CONFLICT) - s0.aborted().get(Reason.CONFLICT);
        long engineCommitted = s1.committed() - s0.committed();
        double rate = committed / seconds;

        line(c, "throughput", rate, "tx/s").with("committed", committed)
                .with("engine_committed", engineCommitted).with("seconds", seconds).with("clients", opts.clients())
                .with("keys", opts.keys()).with("load_average_start", loadAtStart)
                .with("load_average_end", WorkDir.loadAverage()).printTo(out);
        line(c, "abort_rate", (double) conflicts / Math.max(1, committed + conflicts), "ratio")
                .with("conflicts", conflicts).with("engine_conflicts", engineConflicts)
                .with("retried_txs", retried).with("overloaded", overloaded).printTo(out);
        if (commitNs.size() > 0) {
            Stats cms = new Stats(commitNs.toMillis());
            Stats tms = new Stats(txNs.toMillis());
            for (double q : new double[]{0.5, 0.95, 0.99}) {
                line(c, "commit_latency_p" + Math.round(q * 100), cms.quantile(q), "ms")
                        .with("n", cms.count()).printTo(out);
            }
            line(c, "tx_latency_p50", tms.median(), "ms").with("p99", tms.quantile(0.99))
                    .with("n", tms.count()).printTo(out);
        }

        long seq = s1.sequencedRequests() - s0.sequencedRequests();
        long syncs = s1.walSyncs() - s0.walSyncs();
        long epochs = s1.epochsPersisted() - s0.epochsPersisted();
        long blocks = s1.blocksPersisted() - s0.blocksPersisted();
        long keysPersisted = s1.keysPersisted() - s0.keysPersisted();
        long persistNs = s1.persistNanos() - s0.persistNanos();
        line(c, "phase_prepare_us", ratio(s1.validateNanos() - s0.validateNanos(), seq) / 1e3, "us")
                .with("sequenced_requests", seq).printTo(out);
        line(c, "phase_commit_ms", ratio(s1.walSyncNanos() - s0.walSyncNanos(), syncs) / 1e6, "ms")
                .with("wal_syncs", syncs).printTo(out);
        line(c, "txs_per_wal_sync", ratio(engineCommitted, syncs), "tx").printTo(out);
        line(c, "phase_persist_us_per_key", ratio(persistNs, keysPersisted) / 1e3, "us")
                .with("keys_persisted", keysPersisted).with("epochs", epochs)
                .with("ms_per_epoch", ratio(persistNs, epochs) / 1e6)
                .with("keys_per_epoch", ratio(keysPersisted, epochs)).printTo(out);
        line(c, "persist_keys_per_second", keysPersisted / seconds, "keys/s")
                .with("committed_keys_per_second", engineCommitted * (double) EngineOptions.WRITES / seconds)
                .with("drain_seconds", drain).printTo(out);
        line(c, "blocks_per_epoch", ratio(blocks, epochs), "blocks").with("blocks", blocks)
                .with("epochs", epochs).with("txs_per_block", ratio(engineCommitted, blocks)).printTo(out);

        long proofBatches = s3.proofBatches() - s2.proofBatches();
        long proofKeys = s3.proofKeys() - s2.proofKeys();
        line(c, "phase_getproof_us_per_key", ratio(s3.proofNanos() - s2.proofNanos(), proofKeys) / 1e3, "us")
                .with("proof_batches", proofBatches).with("keys_per_batch", ratio(proofKeys, proofBatches))
                .with("ms_per_batch", ratio(s3.proofNanos() - s2.proofNanos(), proofBatches) / 1e6).printTo(out);
        line(c, "proof_bytes_per_key", ratio(v.proofBytes(), v.claims()), "bytes")
                .with("proofs", v.proofRequests()).with("promises_per_request", opts.proofBatch()).printTo(out);
        line(c, "verified", v.verified(), "promises").with("committed", committed).with("blocks", v.blocks())
                .printTo(out);
        line(c, "verify_failed", v.failed(), "promises").printTo(out);
        line(c, "verify_pending", v.pending(), "promises").printTo(out);
        line(c, "verify_rate", v.verified() / v.wallSeconds(), "promises/s")
                .with("wall_seconds", v.wallSeconds()).with("verify_cpu_seconds", v.verifyCpuSeconds())
                .with("verify_only_rate", v.verified() / Math.max(1e-9, v.verifyCpuSeconds())).printTo(out);
        if (wb != null) {
            line(c, "verify_whole_block_ms_per_promise", wb.verifyMsPerPromise(), "ms")
                    .with("block", wb.block()).with("block_promises", wb.promises()).with("block_keys", wb.keys())
                    .with("proof_bytes", wb.proofBytes()).with("prove_ms", wb.proveMs()).with("sampled", wb.sampled())
                    .with("all_promises_s", wb.verifyMsPerPromise() * wb.promises() / 1e3).printTo(out);
            line(c, "negative_control_rejected", wb.forgeryRejected() ? 1 : 0, "bool").printTo(out);
        }
        if (v.verified() + v.failed() + v.pending() != committed) {
            failed = true;
            log("  %d promises verified, failed or pending, but %d committed", v.verified() + v.failed()
                    + v.pending(), committed);
        }
        log("  %s: %.0f tx/s, abort rate %.3f, commit p50 %.1f ms; verified %d, failed %d, pending %d in %.1f s",
                b, rate, (double) conflicts / Math.max(1, committed + conflicts),
                commitNs.size() > 0 ? new Stats(commitNs.toMillis()).median() : Double.NaN, v.verified(), v.failed(),
                v.pending(), v.wallSeconds());
    }

    private JsonLine line(Config c, String metric, double value, String unit) {
        return JsonLine.of(c.bench(), metric, value, unit).with("keys_dist", c.dist())
                .with("zipf_theta", c.theta()).with("persist_ms", c.persistMs()).with("signatures", c.sig().tag);
    }

    private static double ratio(long a, long b) {
        return b == 0 ? Double.NaN : (double) a / b;
    }

    private static Bytes randomValue(SplittableRandom r) {
        byte[] v = new byte[Workload.VALUE_BYTES];
        r.nextBytes(v);
        return Bytes.wrap(v);
    }

    /** A growable list of longs. */
    private static final class LongList {
        private long[] a = new long[1024];
        private int n;

        void add(long v) {
            if (n == a.length) {
                a = Arrays.copyOf(a, n * 2);
            }
            a[n++] = v;
        }

        void addAll(LongList o) {
            for (int i = 0; i < o.n; i++) {
                add(o.a[i]);
            }
        }

        int size() {
            return n;
        }

        double[] toMillis() {
            double[] d = new double[n];
            for (int i = 0; i < n; i++) {
                d[i] = a[i] / 1e6;
            }
            return d;
        }
    }

    // ---------------------------------------------------------------- files


    private void log(String format, Object... args) {
        System.err.printf("[%7.1fs] %s%n", (System.nanoTime() - started) / 1e9, String.format(format, args));
    }
}
