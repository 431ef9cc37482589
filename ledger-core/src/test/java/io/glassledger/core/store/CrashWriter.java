package io.glassledger.core.store;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.block.BlockSpec;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.postree.TreeParams;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

/**
 * The child process of {@link RocksDbCrashTest}: opens (or creates) a ledger in a RocksDB directory and appends
 * blocks until it is killed. Every block is a function of the seed and its number, so the test can recompute the
 * ledger a crash should have left.
 *
 * <p>Protocol on stdout: {@code open <head>} once the ledger is open, then the number of every block whose
 * append has returned (and so, with a syncing store, is durable). Blocks go in batches of 1 to 3 (see
 * {@link #batchSize}), each batch one atomic append.
 *
 * <p>Usage: {@code CrashWriter <dir> <seed>}
 */
public final class CrashWriter {
    static final TreeParams PARAMS = new TreeParams(8, 64, 4, 32);
    static final long GENESIS_TS = 0;
    static final int KEYS_PER_BLOCK = 200;
    static final int KEY_SPACE = 4000;

    private CrashWriter() {
    }

    /** Block {@code number}: 200 distinct keys, about one in ten a delete. */
    static BlockSpec spec(long seed, long number) {
        Random r = new Random(seed * 0x9E3779B97F4A7C15L + number);
        TreeMap<Bytes, Mutation> writes = new TreeMap<>();
        while (writes.size() < KEYS_PER_BLOCK) {
            Bytes k = key(r.nextInt(KEY_SPACE));
            if (r.nextInt(10) == 0) {
                writes.put(k, Mutation.delete(k));
            } else {
                byte[] v = new byte[8 + r.nextInt(56)];
                r.nextBytes(v);
                writes.put(k, Mutation.put(k, Bytes.wrap(v)));
            }
        }
        return new BlockSpec(GENESIS_TS + number, List.of(Bytes.utf8("tx-" + number)),
                new ArrayList<>(writes.values()));
    }

    static Bytes key(int i) {
        return Bytes.utf8("key-" + i);
    }

    /** Blocks in the batch that starts at block {@code first}. */
    static int batchSize(long first) {
        return 1 + (int) (first % 3);
    }

    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        long seed = Long.parseLong(args[1]);
        RocksDbNodeStore store = new RocksDbNodeStore(dir);
        Ledger ledger = Ledger.openOrCreate(store, PARAMS, GENESIS_TS);
        System.out.println("open " + ledger.digest().blockNo());
        System.out.flush();
        while (true) {
            long first = ledger.digest().blockNo() + 1;
            List<BlockSpec> batch = new ArrayList<>();
            for (int i = 0; i < batchSize(first); i++) {
                batch.add(spec(seed, first + i));
            }
            ledger.append(batch);
            for (int i = 0; i < batch.size(); i++) {
                System.out.println(first + i);
            }
            System.out.flush();
        }
    }
}
