package io.glassledger.benchmark;

import io.glassledger.verify.block.BlockSpec;
import io.glassledger.core.audit.BlockAudit;
import io.glassledger.core.audit.RecentTxIds;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.block.Block;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.core.store.RocksDbNodeStore;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.TxnDraft;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * {@code benchmark/run audit}: what it costs an auditor to verify and re-execute one block, as a function of the
 * block's size (GlassDB's Figure 13 measures it against the audit interval, which sets the number of blocks; here
 * the block size is varied directly). A "shard" ledger and an auditor's ledger, both RocksDB with fsync, start from
 * the same genesis and the same 100,000 keys; for each size, blocks of signed 5-write transactions are formed on the
 * shard's ledger, and the auditor verifies each from its wire form: decoding the block record and the signed
 * transactions, checking every signature and registered key, re-executing the writes on its own ledger
 * ({@link BlockAudit#replay}) and comparing the block hash and digest. Network and JSON are not included.
 */
public final class AuditBenchmark {
    private static final PrintStream OUT = System.out;
    private static final int WRITES_PER_TX = 5;

    record Options(int keys, List<Integer> sizes, int blocks, Path dir) {
        static Options parse(String[] args) {
            boolean quick = List.of(args).contains("--quick");
            int keys = quick ? 10_000 : 100_000;
            List<Integer> sizes = quick ? List.of(10, 100, 500) : List.of(10, 100, 1_000, 4_000);
            int blocks = quick ? 3 : 9;
            Path dir = Path.of(System.getProperty("glassledger.bench.dir", "benchmark/work/audit"));
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--quick" -> {
                    }
                    case "--keys" -> keys = (int) Args.number(args[i], Args.value(args, ++i), 1000, 10_000_000);
                    case "--blocks" -> blocks = (int) Args.number(args[i], Args.value(args, ++i), 1, 1000);
                    case "--sizes" -> {
                        List<Integer> l = new ArrayList<>();
                        for (String s : Args.value(args, ++i).split(",")) {
                            l.add((int) Args.number("--sizes", s.trim(), 1, 100_000));
                        }
                        sizes = List.copyOf(l);
                    }
                    case "--dir" -> dir = Path.of(Args.value(args, ++i));
                    case "-h", "--help" -> {
                        System.err.println("""
                                usage: benchmark/run audit [--quick] [--keys N] [--sizes LIST] [--blocks B] [--dir PATH]
                                  the auditor's cost to verify and re-execute a block, by block size
                                  --keys N      keys in the state before (default 100000; --quick 10000)
                                  --sizes LIST  transactions per block (5 writes each), default 10,100,1000,4000
                                  --blocks B    blocks measured per size (default 9; --quick 3)""");
                        System.exit(0);
                    }
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            return new Options(keys, sizes, blocks, dir.toAbsolutePath().normalize());
        }
    }

    public static void main(String[] args) throws Exception {
        Options o;
        try {
            o = Options.parse(args);
            WorkDir.prepare(o.dir());
        } catch (IllegalArgumentException e) {
            System.err.println("benchmark/run audit: " + e.getMessage());
            System.exit(2);
            return;
        }
        try {
            run(o);
        } finally {
            WorkDir.deleteTree(o.dir());
        }
    }

    private static void run(Options o) {
        Workload data = new Workload(o.keys(), 13);
        SigningKey client = SigningKey.generate();
        Set<Bytes> registered = new HashSet<>(Set.of(client.publicKey()));
        SplittableRandom r = new SplittableRandom(7);
        try (RocksDbNodeStore shardStore = new RocksDbNodeStore(o.dir().resolve("shard"), true, 256L << 20);
             RocksDbNodeStore auditStore = new RocksDbNodeStore(o.dir().resolve("auditor"), true, 256L << 20)) {
            // Real clocks: the auditor checks each transaction id against its block's timestamp (replay window).
            long genesis = System.currentTimeMillis();
            Ledger shard = Ledger.openOrCreate(shardStore, TreeParams.DEFAULT, genesis);
            Ledger auditor = Ledger.openOrCreate(auditStore, TreeParams.DEFAULT, genesis);
            RecentTxIds recent = new RecentTxIds(java.time.Duration.ofMinutes(3).toMillis());
            long ts = genesis + 1;
            // The state both start from: every key written once, in signed transactions, audited untimed.
            for (int from = 0; from < data.size(); from += 1000) {
                TxnDraft d = new TxnDraft(client, 0, System.currentTimeMillis());
                for (int i = from; i < Math.min(data.size(), from + 1000); i++) {
                    d.put(data.key(i), data.value(i));
                }
                ts = Math.max(ts + 1, System.currentTimeMillis());
                audit(shard, auditor, List.of(d.sign()), ts, registered, recent);
            }
            System.err.printf("[audit] %d keys in both ledgers; measuring block sizes %s, %d blocks each%n",
                    data.size(), o.sizes(), o.blocks());
            for (int size : o.sizes()) {
                long[] nanos = new long[o.blocks()];
                long[] sigNanos = new long[o.blocks()];
                long writes = 0;
                for (int b = 0; b < o.blocks(); b++) {
                    List<SignedTransaction> txs = new ArrayList<>(size);
                    Set<Integer> used = new HashSet<>();  // a block writes a key at most once
                    for (int t = 0; t < size; t++) {
                        TxnDraft d = new TxnDraft(client, 0, System.currentTimeMillis());
                        for (int w = 0; w < WRITES_PER_TX; w++) {
                            int k;
                            do {
                                k = r.nextInt(data.size());
                            } while (!used.add(k));
                            byte[] v = new byte[Workload.VALUE_BYTES];
                            r.nextBytes(v);
                            d.put(data.key(k), Bytes.wrap(v));
                        }
                        txs.add(d.sign());
                    }
                    ts = Math.max(ts + 1, System.currentTimeMillis());
                    long[] t = audit(shard, auditor, txs, ts, registered, recent);
                    nanos[b] = t[0];
                    sigNanos[b] = t[1];
                    writes += (long) size * WRITES_PER_TX;
                }
                Stats s = Stats.ofLongs(nanos);
                Stats sig = Stats.ofLongs(sigNanos);
                double perBlockMs = s.median() / 1e6;
                int keysPerBlock = size * WRITES_PER_TX;
                JsonLine.of("audit", "verify_block_ms", perBlockMs, "ms").with("txs_per_block", size)
                        .with("keys_per_block", keysPerBlock).with("blocks", o.blocks())
                        .with("p90_ms", s.quantile(0.9) / 1e6).with("signatures_ms", sig.median() / 1e6)
                        .with("state_keys", data.size()).printTo(OUT);
                JsonLine.of("audit", "blocks_per_s", 1e3 / perBlockMs, "blocks/s").with("txs_per_block", size)
                        .printTo(OUT);
                JsonLine.of("audit", "keys_per_s", keysPerBlock * 1e3 / perBlockMs, "keys/s")
                        .with("txs_per_block", size).printTo(OUT);
                System.err.printf("[audit] %5d txs (%6d keys) per block: %8.2f ms per block (signatures %.2f ms), "
                        + "%7.1f blocks/s, %8.0f keys/s%n", size, keysPerBlock, perBlockMs, sig.median() / 1e6,
                        1e3 / perBlockMs, keysPerBlock * 1e3 / perBlockMs);
            }
        }
    }

    /**
     * Forms the block on the shard's ledger, then times the auditor on its wire form.
     *
     * @return {total nanos, of which signature checks}
     */
    private static long[] audit(Ledger shard, Ledger auditor, List<SignedTransaction> txs, long ts,
                                Set<Bytes> registered, RecentTxIds recent) {
        Block theirs = shard.append(List.of(BlockSpec.of(ts, txs))).get(0);
        byte[] record = theirs.encode();
        List<byte[]> wire = txs.stream().map(SignedTransaction::record).toList();
        long t0 = System.nanoTime();
        Block decoded = Block.decode(theirs.number(), record);
        List<SignedTransaction> received = new ArrayList<>(wire.size());
        for (byte[] w : wire) {
            received.add(SignedTransaction.decode(w));
        }
        BlockAudit.Outcome out = BlockAudit.replay(auditor, 0, decoded, received, registered::contains, recent);
        if (!out.ok() || !auditor.digest().equals(shard.digest())) {
            throw new IllegalStateException("the auditor disagrees with an honest ledger: " + out);
        }
        long total = System.nanoTime() - t0;
        // The signature checks alone, again, to report their share of the total.
        long s0 = System.nanoTime();
        for (SignedTransaction stx : received) {
            if (!stx.signatureValid()) {
                throw new IllegalStateException("bad signature");
            }
        }
        return new long[] {total, System.nanoTime() - s0};
    }
}
