package io.glassledger.core.txn;

import io.glassledger.verify.txn.Promise;
import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.TxnDraft;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The child process of {@link CrashRecoveryTest}: opens a shard engine on a data directory (recovering whatever an
 * earlier, killed child left) and drives it until it is killed with SIGKILL.
 *
 * <p>Every transaction writes whole pairs of keys ({@code aNN} and {@code bNN}, or {@code pa_T} and {@code pb_T}
 * for prepared ones) and every key it writes gets the same value {@code tag|k1,k2,...}, which names all the keys
 * the transaction wrote; a delete of a pair carries {@code ~|k1,k2} in the protocol. So the parent can check the
 * atomicity of any state from the values alone.
 *
 * <p>Protocol on stdout, one line per event, each written with a single write call as soon as it happens:
 * <pre>
 *   START                              JVM up, about to open the engine
 *   OPEN persistedBlock                engine open (recovery done)
 *   READY                              client threads started
 *   ACK txId blockNo value             a commit's promise completed (the commit is durable)
 *   PREPARING txId value               about to call prepare
 *   PREPARED txId                      prepare's future completed (the prepare is durable)
 *   DECIDING txId C|A                  about to call decide
 *   DECIDED txId C blockNo | A         decide's future completed
 *   DONE                               (script mode) all work done
 * </pre>
 * Unexpected errors go to stderr prefixed with {@code UNEXPECTED}.
 *
 * <p>Usage: {@code CrashChild run <dir> <round> <seed> <persistMillis> <walSegmentBytes>} or
 * {@code CrashChild script <dir> <commits>}.
 */
public final class CrashChild {
    static final int PAIRS = 24;
    private static final FileOutputStream OUT = new FileOutputStream(FileDescriptor.out);

    private CrashChild() {
    }

    /** The client key: a fixed seed, so every child and the parent agree. */
    static SigningKey clientKey() {
        byte[] seed = new byte[32];
        Arrays.fill(seed, (byte) 7);
        return SigningKey.fromSeed(seed);
    }

    static String a(int i) {
        return String.format("a%02d", i);
    }

    static String b(int i) {
        return String.format("b%02d", i);
    }

    static Bytes bytes(String s) {
        return Bytes.utf8(s);
    }

    /** One line, one write call: a kill can cut it short, but never interleave it with another. */
    static synchronized void emit(String line) {
        try {
            OUT.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void unexpected(String what, Throwable t) {
        synchronized (System.err) {
            System.err.println("UNEXPECTED " + what + ": " + t);
            t.printStackTrace(System.err);
            System.err.flush();
        }
    }

    /** A transaction putting {@code tag|keys} into every key, or (tag "~") deleting them all. */
    static SignedTransaction tx(SigningKey key, String tag, TreeSet<String> keys, String readKey, long readVersion) {
        TxnDraft d = new TxnDraft(key, 0, System.currentTimeMillis());
        if (readKey != null) {
            d.read(bytes(readKey), readVersion);
        }
        String value = value(tag, keys);
        for (String k : keys) {
            if (tag.equals("~")) {
                d.delete(bytes(k));
            } else {
                d.put(bytes(k), bytes(value));
            }
        }
        return d.sign();
    }

    static String value(String tag, TreeSet<String> keys) {
        return tag + "|" + String.join(",", keys);
    }

    public static void main(String[] args) throws Exception {
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> unexpected("uncaught in " + t.getName(), e));
        switch (args[0]) {
            case "run" -> run(Path.of(args[1]), Integer.parseInt(args[2]), Long.parseLong(args[3]),
                    Integer.parseInt(args[4]), Long.parseLong(args[5]));
            case "script" -> script(Path.of(args[1]), Integer.parseInt(args[2]));
            default -> throw new IllegalArgumentException(args[0]);
        }
        // Wait to be killed; give up if the parent went away.
        Thread.sleep(120_000);
        System.exit(3);
    }

    // ---------------------------------------------------------------- random workload

    static void run(Path dir, int round, long seed, int persistMillis, long walSegmentBytes) {
        emit("START");
        EngineConfig cfg = EngineConfig.defaults(dir).withPersistInterval(Duration.ofMillis(persistMillis))
                .withWalSegmentBytes(walSegmentBytes);
        TxnEngine e = TxnEngine.open(cfg);
        emit("OPEN " + e.persistedBlock());
        SigningKey key = clientKey();
        Random main = new Random(seed);
        ScheduledExecutorService deciders = Executors.newScheduledThreadPool(2, daemon("decider"));
        // Some of the transactions a previous child left prepared are decided now, the others stay.
        for (Bytes id : e.preparedTransactions()) {
            if (main.nextBoolean()) {
                boolean commit = main.nextBoolean();
                deciders.schedule(() -> decide(e, id, commit), main.nextInt(200), TimeUnit.MILLISECONDS);
            }
        }
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            int tn = t;
            threads.add(new Thread(() -> reader(e, key, round, tn, new Random(seed * 31 + tn)), "reader-" + t));
        }
        threads.add(new Thread(() -> blindWriter(e, key, round, new Random(seed * 31 + 7)), "blind"));
        threads.add(new Thread(() -> preparer(e, key, round, new Random(seed * 31 + 9), deciders), "preparer"));
        threads.forEach(t -> {
            t.setDaemon(true);
            t.start();
        });
        emit("READY");
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    static TreeSet<String> pairs(Random r) {
        TreeSet<String> keys = new TreeSet<>();
        int p = r.nextInt(PAIRS);
        keys.add(a(p));
        keys.add(b(p));
        if (r.nextInt(3) == 0) {
            int q = r.nextInt(PAIRS);
            keys.add(a(q));
            keys.add(b(q));
        }
        return keys;
    }

    /** Read-modify-write transactions, one at a time: OCC reads of the first key written. */
    static void reader(TxnEngine e, SigningKey key, int round, int tn, Random r) {
        for (long n = 0; ; n++) {
            TreeSet<String> keys = pairs(r);
            String tag = r.nextInt(15) == 0 ? "~" : "r" + round + "c" + tn + "n" + n;
            String first = keys.first();
            SignedTransaction stx = tx(key, tag, keys, first, e.get(bytes(first)).version());
            try {
                Promise p = e.commit(stx, r.nextInt(20) == 0).get();
                emit("ACK " + stx.txId().hex() + " " + p.blockNo() + " " + value(tag, keys));
            } catch (ExecutionException x) {
                if (!(x.getCause() instanceof TxnException te && te.reason() == TxnException.Reason.CONFLICT)) {
                    unexpected("commit", x.getCause());
                    sleep(10);
                }
            } catch (InterruptedException x) {
                return;
            }
        }
    }

    /** Blind writes, many in flight, so group commits and multi-block epochs form. */
    static void blindWriter(TxnEngine e, SigningKey key, int round, Random r) {
        Semaphore inFlight = new Semaphore(16);
        for (long n = 0; ; n++) {
            TreeSet<String> keys = pairs(r);
            String tag = "r" + round + "w" + n;
            SignedTransaction stx = tx(key, tag, keys, null, 0);
            inFlight.acquireUninterruptibly();
            e.commit(stx).whenComplete((p, x) -> {
                inFlight.release();
                if (x == null) {
                    emit("ACK " + stx.txId().hex() + " " + p.blockNo() + " " + value(tag, keys));
                } else if (!(x instanceof TxnException te && te.reason() == TxnException.Reason.CONFLICT)) {
                    unexpected("blind commit", x);
                }
            });
            if (r.nextInt(4) == 0) {
                sleep(1);
            }
        }
    }

    /** Prepares transactions on keys of their own; most get decided a little later, some never. */
    static void preparer(TxnEngine e, SigningKey key, int round, Random r, ScheduledExecutorService deciders) {
        for (long n = 0; ; n++) {
            sleep(r.nextInt(25));
            String tag = "r" + round + "p" + n;
            TreeSet<String> keys = new TreeSet<>(List.of("pa_" + tag, "pb_" + tag));
            SignedTransaction stx = tx(key, tag, keys, null, 0);
            String id = stx.txId().hex();
            emit("PREPARING " + id + " " + value(tag, keys));
            try {
                e.prepare(stx).get();
            } catch (ExecutionException | InterruptedException x) {
                unexpected("prepare", x);
                continue;
            }
            emit("PREPARED " + id);
            if (r.nextInt(10) < 7) {
                boolean commit = r.nextBoolean();
                deciders.schedule(() -> decide(e, stx.txId(), commit), r.nextInt(300), TimeUnit.MILLISECONDS);
            }
        }
    }

    static void decide(TxnEngine e, Bytes id, boolean commit) {
        emit("DECIDING " + id.hex() + " " + (commit ? "C" : "A"));
        try {
            Promise p = e.decide(id, commit).get();
            emit("DECIDED " + id.hex() + (commit ? " C " + p.blockNo() : " A"));
        } catch (ExecutionException | InterruptedException x) {
            unexpected("decide", x);
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---------------------------------------------------------------- scripted workload

    /**
     * Commits {@code commits} transactions one at a time; the first half is then persisted, the second half stays
     * in the WAL only (the persist interval is an hour). Two transactions are left prepared. Then prints DONE.
     */
    static void script(Path dir, int commits) throws Exception {
        emit("START");
        TxnEngine e = TxnEngine.open(EngineConfig.defaults(dir).withPersistInterval(Duration.ofHours(1)));
        emit("OPEN " + e.persistedBlock());
        SigningKey key = clientKey();
        long last = 0;
        for (int i = 0; i < commits; i++) {
            if (i == commits / 2) {
                e.persistSoon();
                e.awaitPersisted(last).get();
            }
            int pair = i % 5;
            TreeSet<String> keys = new TreeSet<>(List.of("sa" + pair, "sb" + pair, "sc" + i));
            String tag = "s" + i;
            SignedTransaction stx = tx(key, tag, keys, null, 0);
            Promise p = e.commit(stx).get();
            last = p.blockNo();
            emit("ACK " + stx.txId().hex() + " " + p.blockNo() + " " + value(tag, keys));
        }
        for (int i = 0; i < 2; i++) {
            String tag = "sp" + i;
            TreeSet<String> keys = new TreeSet<>(List.of("pa_" + tag, "pb_" + tag));
            SignedTransaction stx = tx(key, tag, keys, null, 0);
            emit("PREPARING " + stx.txId().hex() + " " + value(tag, keys));
            e.prepare(stx).get();
            emit("PREPARED " + stx.txId().hex());
        }
        emit("DONE");
    }
}
