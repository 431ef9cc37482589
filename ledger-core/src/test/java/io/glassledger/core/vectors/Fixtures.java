package io.glassledger.core.vectors;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.block.BlockSpec;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.core.store.InMemoryNodeStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/**
 * The deterministic ledgers every vector is cut from. Seeds, timestamps and scripts are fixed, and
 * {@link Random} is specified by the JDK, so the ledgers are the same on every run and every JVM.
 *
 * <ul>
 *   <li>{@code A}: small parameters (several tree levels), 12 blocks, with scripted histories;</li>
 *   <li>{@code A-fork}: the same genesis and blocks 1..4 as A, then its own blocks 5..9;</li>
 *   <li>{@code B}: an unrelated ledger (other genesis timestamp and content), 12 blocks;</li>
 *   <li>{@code C}: {@link TreeParams#DEFAULT}, 2 blocks of a few hundred keys;</li>
 *   <li>{@code D}: small parameters, 2 blocks; block 2 writes nothing, so its state (lower root) is block 1's.</li>
 * </ul>
 */
final class Fixtures {
    static final TreeParams SMALL = new TreeParams(2, 16, 2, 8);
    static final long GENESIS_TS = 1_700_000_000_000L;

    /** Written in blocks 1, 3, 8, 11 and deleted in 5: five versions, one a tombstone. */
    static final Bytes HISTORY_KEY = Bytes.utf8("acct/007");
    /** Written in block 1, deleted in block 9 and never again. */
    static final Bytes DELETED_KEY = Bytes.utf8("acct/013");
    /** Written once, in block 1. */
    static final Bytes SINGLE_KEY = Bytes.utf8("acct/021");
    /** Holds the empty value (not a tombstone). */
    static final Bytes EMPTY_VALUE_KEY = Bytes.utf8("p");
    /** 305 bytes, so its length varint takes two bytes; updated in block 6. */
    static final Bytes LONG_KEY = Bytes.utf8("long/" + "x".repeat(300));
    static final Bytes FF_KEY = Bytes.wrap(new byte[] {(byte) 0xff});
    static final Bytes BANANA = Bytes.utf8("fruit/banana");
    /** Absent; routes to the same entry as {@link #BANANA} and sorts before it (claimed-form owner 1). */
    static final Bytes BANANA_PREFIX = Bytes.utf8("fruit/b");
    static final Bytes NEVER_KEY = Bytes.utf8("acct/050x");
    static final Bytes BEFORE_ALL = Bytes.wrap(new byte[] {0x00});
    static final Bytes AFTER_ALL = Bytes.wrap(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff});
    /** First written in block 10 of A. */
    static final Bytes LATE_KEY = Bytes.utf8("acct/119");

    private static final Set<Bytes> SCRIPTED = Set.of(HISTORY_KEY, DELETED_KEY, SINGLE_KEY);

    final Ledger a;
    final Ledger fork;
    final Ledger other;
    final Ledger dflt;
    final Ledger still;
    final Ledger big;

    /** In ledger E: keys between neighbours that hold 1 MiB values, and an absent key between them. */
    static final Bytes BIG_SMALL_KEY = Bytes.utf8("big/b");
    static final Bytes BIG_ABSENT_KEY = Bytes.utf8("big/bb");

    private Fixtures(Ledger a, Ledger fork, Ledger other, Ledger dflt, Ledger still, Ledger big) {
        this.a = a;
        this.fork = fork;
        this.other = other;
        this.dflt = dflt;
        this.still = still;
        this.big = big;
    }

    static Fixtures build() {
        List<BlockSpec> specsA = script(0xA11CEL, 1, 12, new TreeMap<>());
        TreeMap<Bytes, Bytes> forkModel = new TreeMap<>();
        List<BlockSpec> specsFork = new ArrayList<>(script(0xA11CEL, 1, 4, forkModel));
        specsFork.addAll(script(0xF02CL, 5, 9, forkModel));
        Ledger a = ledger(SMALL, GENESIS_TS, specsA);
        Ledger fork = ledger(SMALL, GENESIS_TS, specsFork);
        Ledger other = ledger(SMALL, GENESIS_TS + 1, script(0xB0BL, 1, 12, new TreeMap<>()));
        Ledger dflt = ledger(TreeParams.DEFAULT, GENESIS_TS, defaultSpecs());
        Ledger still = ledger(SMALL, GENESIS_TS + 2, stillSpecs());
        if (!still.block(1).lowerRoot().equals(still.block(2).lowerRoot())) {
            throw new IllegalStateException("ledger D: block 2 changed the state");
        }
        Ledger big = ledger(TreeParams.DEFAULT, GENESIS_TS + 3, bigSpecs());
        return new Fixtures(a, fork, other, dflt, still, big);
    }

    private static Ledger ledger(TreeParams p, long genesisTs, List<BlockSpec> specs) {
        Ledger l = Ledger.openOrCreate(new InMemoryNodeStore(), p, genesisTs);
        for (BlockSpec s : specs) {
            l.append(List.of(s));
        }
        return l;
    }

    static List<Bytes> universe() {
        List<Bytes> u = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            u.add(Bytes.utf8(String.format("acct/%03d", i)));
        }
        for (String f : List.of("apple", "banana", "cherry", "date", "elderberry")) {
            u.add(Bytes.utf8("fruit/" + f));
        }
        for (String s : List.of("p", "pa", "pab", "pb")) {
            u.add(Bytes.utf8(s));
        }
        for (int[] b : new int[][] {{0x01}, {0x7f}, {0x80}, {0x80, 0x00}, {0xff}, {0xff, 0xff, 0x01}}) {
            byte[] k = new byte[b.length];
            for (int i = 0; i < b.length; i++) {
                k[i] = (byte) b[i];
            }
            u.add(Bytes.wrap(k));
        }
        u.add(LONG_KEY);
        return u;
    }

    /**
     * Blocks first..last of a small-parameter ledger. Block 1 writes every key of the universe but acct/100..119;
     * later blocks make 18 random puts and (from block 4) 3 random deletes among the unscripted acct/ keys, plus
     * the scripted events. {@code model} is the live state, carried between calls.
     */
    private static List<BlockSpec> script(long seed, int first, int last, TreeMap<Bytes, Bytes> model) {
        Random rnd = new Random(seed);
        List<Bytes> universe = universe();
        List<Bytes> randomKeys = new ArrayList<>();
        for (Bytes k : universe) {
            if (k.utf8String().startsWith("acct/") && !SCRIPTED.contains(k)) {
                randomKeys.add(k);
            }
        }
        List<BlockSpec> out = new ArrayList<>();
        for (int b = first; b <= last; b++) {
            TreeMap<Bytes, Mutation> w = new TreeMap<>();
            if (b == 1) {
                for (Bytes k : universe) {
                    if (!k.utf8String().matches("acct/1\\d\\d")) {
                        w.put(k, Mutation.put(k, randomValue(rnd, k)));
                    }
                }
                w.put(EMPTY_VALUE_KEY, Mutation.put(EMPTY_VALUE_KEY, Bytes.EMPTY));
                w.put(LONG_KEY, Mutation.put(LONG_KEY, Bytes.utf8("L".repeat(200))));
            } else {
                for (int i = 0; i < 18; i++) {
                    Bytes k = randomKeys.get(rnd.nextInt(randomKeys.size()));
                    w.put(k, Mutation.put(k, randomValue(rnd, k)));
                }
                if (b >= 4) {
                    List<Bytes> live = new ArrayList<>();
                    for (Bytes k : randomKeys) {
                        if (model.containsKey(k) && !w.containsKey(k)) {
                            live.add(k);
                        }
                    }
                    for (int i = 0; i < 3 && !live.isEmpty(); i++) {
                        Bytes k = live.remove(rnd.nextInt(live.size()));
                        w.put(k, Mutation.delete(k));
                    }
                }
            }
            scripted(b, w);
            for (Mutation m : w.values()) {
                if (m.isDelete()) {
                    model.remove(m.key());
                } else {
                    model.put(m.key(), m.value());
                }
            }
            out.add(new BlockSpec(GENESIS_TS + 1000L * b,
                    List.of(Bytes.utf8("tx-" + b + "-0"), Bytes.utf8("tx-" + b + "-1")), new ArrayList<>(w.values())));
        }
        return out;
    }

    private static void scripted(int b, TreeMap<Bytes, Mutation> w) {
        switch (b) {
            case 3, 8, 11 -> w.put(HISTORY_KEY, Mutation.put(HISTORY_KEY, Bytes.utf8("acct/007@" + b)));
            case 5 -> w.put(HISTORY_KEY, Mutation.delete(HISTORY_KEY));
            case 6 -> w.put(LONG_KEY, Mutation.put(LONG_KEY, Bytes.utf8("M".repeat(150))));
            case 7 -> w.put(Bytes.utf8("pa"), Mutation.delete(Bytes.utf8("pa")));
            case 9 -> w.put(DELETED_KEY, Mutation.delete(DELETED_KEY));
            case 10 -> {
                w.put(FF_KEY, Mutation.put(FF_KEY, Bytes.utf8("ff@10")));
                w.put(LATE_KEY, Mutation.put(LATE_KEY, Bytes.utf8("late@10")));
            }
            default -> {
            }
        }
    }

    private static Bytes randomValue(Random rnd, Bytes key) {
        byte[] v = new byte[rnd.nextInt(33)];
        rnd.nextBytes(v);
        return Bytes.wrap(v);
    }

    /** Ledger D: block 1 writes acct/000..acct/039; block 2, one transaction, writes nothing. */
    private static List<BlockSpec> stillSpecs() {
        Random rnd = new Random(0x5711L);
        List<Mutation> first = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            Bytes k = Bytes.utf8(String.format("acct/%03d", i));
            first.add(Mutation.put(k, randomValue(rnd, k)));
        }
        return List.of(new BlockSpec(GENESIS_TS + 1000, List.of(Bytes.utf8("d-1")), first),
                new BlockSpec(GENESIS_TS + 2000, List.of(Bytes.utf8("d-2")), List.of()));
    }

    /**
     * Ledger E: block 1 writes big/a, big/c and big/d with 1 MiB values around big/b, a one-byte value: proofs about
     * big/b and the absent big/bb are small only because a neighbour is shown by its value's hash.
     */
    private static List<BlockSpec> bigSpecs() {
        Random rnd = new Random(0xB16L);
        List<Mutation> first = new ArrayList<>();
        for (String k : List.of("big/a", "big/b", "big/c", "big/d")) {
            byte[] v = new byte[k.equals("big/b") ? 1 : Entry.MAX_VALUE_BYTES];
            rnd.nextBytes(v);
            first.add(Mutation.put(Bytes.utf8(k), Bytes.wrap(v)));
        }
        return List.of(new BlockSpec(GENESIS_TS + 1000, List.of(Bytes.utf8("e-1")), first));
    }

    private static List<BlockSpec> defaultSpecs() {
        Random rnd = new Random(0xDEFL);
        List<Mutation> first = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            Bytes k = Bytes.utf8(String.format("item/%05d", i * 7));
            first.add(Mutation.put(k, randomValue(rnd, k)));
        }
        TreeMap<Bytes, Mutation> second = new TreeMap<>();
        for (int i = 0; i < 40; i++) {
            Bytes k = Bytes.utf8(String.format("item/%05d", rnd.nextInt(400) * 7));
            second.put(k, Mutation.put(k, randomValue(rnd, k)));
        }
        for (int i = 0; i < 10; i++) {
            Bytes k = Bytes.utf8(String.format("item/%05d", rnd.nextInt(400) * 7 + 3));
            second.put(k, Mutation.put(k, randomValue(rnd, k)));
        }
        for (int i = 0; i < 5; i++) {
            Bytes k = Bytes.utf8(String.format("item/%05d", rnd.nextInt(400) * 7));
            second.put(k, Mutation.delete(k));
        }
        return List.of(new BlockSpec(GENESIS_TS + 1000, List.of(Bytes.utf8("bulk")), first),
                new BlockSpec(GENESIS_TS + 2000, List.of(Bytes.utf8("update")), new ArrayList<>(second.values())));
    }
}
