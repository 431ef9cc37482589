package io.glassledger.core.txn;

import io.glassledger.verify.txn.SignedTransaction;
import io.glassledger.verify.txn.Promise;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.block.Block;
import io.glassledger.core.ledger.Ledger;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.core.store.InMemoryNodeStore;
import io.glassledger.core.store.RocksDbNodeStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a real child JVM ({@link CrashChild}) with SIGKILL at random moments while it commits, prepares and decides
 * transactions on a shard engine with a short persist interval and small WAL segments, so that kills land during
 * WAL writes, seals, segment rotations, ledger appends and recovery itself. After every kill the parent recovers a
 * copy of the data directory (so the next child still recovers the very bytes the kill left) and checks:
 * <ol>
 *   <li>every acknowledged commit and commit decision is there, readable, and in the ledger at its promised block
 *       once that block is persisted;</li>
 *   <li>no transaction is half-applied, in the ledger or in the committed-data map: each one writes whole pairs of
 *       keys with one value naming all the keys it wrote;</li>
 *   <li>acknowledged prepares with no decision sent are still prepared, decided ones are not, and prepared writes
 *       are invisible;</li>
 *   <li>blocks never change once formed: the blocks the parent's recovery formed from a sealed epoch are the ones
 *       the next child's recovery forms; at the end, replaying each block's transactions through a fresh
 *       {@link BlockSequencer} rebuilds the same ledger.</li>
 * </ol>
 * The seed of a run is printed; {@code -Dcrash.seed=N} repeats its random choices (not its timing), and
 * {@code -Dcrash.rounds=N} changes the number of kills (15).
 */
class CrashRecoveryTest {
    /** Kills per run; {@code -Dcrash.rounds=N} for a longer soak. */
    private static final int ROUNDS = Integer.getInteger("crash.rounds", 15);
    private static final Duration CHECK_PERSIST = Duration.ofHours(1);

    @TempDir
    Path tmp;

    record Ack(String txId, long block, String value) {
    }

    /** What the children reported, over all rounds, and what the parent saw of the ledger so far. */
    static final class Model {
        final Map<String, Ack> acks = new LinkedHashMap<>();
        final Map<String, String> preparing = new HashMap<>();
        final Set<String> prepared = new HashSet<>();
        final Set<String> deciding = new HashSet<>();
        final Set<String> decidedCommit = new HashSet<>();
        final Set<String> decidedAbort = new HashSet<>();
        final TreeSet<String> keys = new TreeSet<>();
        /** Blocks seen persisted: they must never change. */
        final Map<Long, Block> blocks = new HashMap<>();
        /** Every transaction id seen in a block, with its block. */
        final Map<String, Long> txBlock = new HashMap<>();
        long genesisTimestamp = -1;

        Model() {
            for (int i = 0; i < CrashChild.PAIRS; i++) {
                keys.add(CrashChild.a(i));
                keys.add(CrashChild.b(i));
            }
        }

        void addValue(String value) {
            keys.addAll(keysOf(value));
        }
    }

    /** What one child printed before it died. */
    record Run(List<String> lines, String stderr) {
        String tail() {
            int from = Math.max(0, lines.size() - 15);
            return String.join("\n", lines.subList(from, lines.size()));
        }
    }

    static List<String> keysOf(String value) {
        return List.of(value.substring(value.indexOf('|') + 1).split(","));
    }

    static boolean isDelete(String value) {
        return value.startsWith("~|");
    }

    static Bytes b(String s) {
        return Bytes.utf8(s);
    }

    // ---------------------------------------------------------------- the randomized kill test

    @Test
    void killedAtRandomMomentsTheEngineRecoversEveryAcknowledgedCommitAtomically() throws Exception {
        long seed = Long.getLong("crash.seed", new Random().nextLong());
        Random rnd = new Random(seed);
        System.out.println("CrashRecoveryTest seed " + seed);
        Path dir = tmp.resolve("shard");
        Model m = new Model();
        long t0 = System.nanoTime();
        for (int round = 0; round < ROUNDS; round++) {
            int persistMs = 20 + rnd.nextInt(31);
            long segBytes = new long[]{4_096, 16_384, 65_536}[rnd.nextInt(3)];
            boolean early = round > 0 && rnd.nextInt(5) == 0;
            int delay = early ? rnd.nextInt(400) : 200 + rnd.nextInt(1301);
            long childSeed = rnd.nextLong();
            String ctx = "seed " + seed + ", round " + round + ", persist " + persistMs + " ms, segment " + segBytes
                    + " bytes, " + (early ? "early kill " + delay + " ms after START" : "kill " + delay
                    + " ms after READY");
            Run run = runAndKill(List.of("run", dir.toString(), Integer.toString(round), Long.toString(childSeed),
                    Integer.toString(persistMs), Long.toString(segBytes)), early ? "START" : "READY", delay,
                    "round-" + round, ctx);
            absorb(m, run, ctx);
            Path copy = copyDir(dir, tmp.resolve("check-" + round));
            long before = ledgerHead(copy);
            String found = checkRecovered(copy, m, false, ctx, run);
            deleteDir(copy);
            System.out.printf("crash round %d at %.1f s: %s; %d lines, %d acks so far; ledger head before recovery %d,"
                    + " %s: ok%n", round, (System.nanoTime() - t0) / 1e9, ctx, run.lines().size(), m.acks.size(),
                    before, found);
        }
        // The final recovery, on the real directory: persist everything, reopen, check all of it against the ledger,
        // then rebuild the ledger from the blocks' transactions.
        String ctx = "seed " + seed + ", final check";
        checkRecovered(dir, m, true, ctx, null);
        try (TxnEngine e = TxnEngine.open(EngineConfig.defaults(dir).withPersistInterval(CHECK_PERSIST))) {
            replayMatches(e, m, ctx);
        }
        System.out.printf("crash test: %d rounds, %d acks, %d blocks, %.1f s%n", ROUNDS, m.acks.size(),
                m.blocks.size(), (System.nanoTime() - t0) / 1e9);
    }

    /** Folds a child's output into the model, checking the protocol. */
    static void absorb(Model m, Run run, String ctx) {
        for (String line : run.lines()) {
            String[] f = line.split(" ");
            switch (f[0]) {
                case "START", "OPEN", "READY", "DONE" -> {
                }
                case "ACK" -> {
                    m.acks.put(f[1], new Ack(f[1], Long.parseLong(f[2]), f[3]));
                    m.addValue(f[3]);
                }
                case "PREPARING" -> {
                    m.preparing.put(f[1], f[2]);
                    m.addValue(f[2]);
                }
                case "PREPARED" -> m.prepared.add(f[1]);
                case "DECIDING" -> m.deciding.add(f[1]);
                case "DECIDED" -> {
                    String value = m.preparing.get(f[1]);
                    assertNotNull(value, "decided an unknown transaction " + f[1] + "; " + ctx);
                    if (f[2].equals("C")) {
                        m.decidedCommit.add(f[1]);
                        m.acks.put(f[1], new Ack(f[1], Long.parseLong(f[3]), value));
                    } else {
                        m.decidedAbort.add(f[1]);
                    }
                    assertFalse(m.decidedCommit.contains(f[1]) && m.decidedAbort.contains(f[1]),
                            "decided both ways: " + f[1] + "; " + ctx);
                }
                default -> fail("unknown child output '" + line + "'; " + ctx);
            }
        }
    }

    /**
     * Opens the engine on {@code dir} (recovering it) and checks every invariant. With {@code persistAll}, closes
     * it once (which persists everything) and checks the reopened engine, where every acknowledged write must be
     * in the ledger; otherwise the engine is dropped as a crash would, so nothing is sealed beyond what the WAL had.
     */
    String checkRecovered(Path dir, Model m, boolean persistAll, String ctx, Run run) {
        EngineConfig cfg = EngineConfig.defaults(dir).withPersistInterval(CHECK_PERSIST);
        TxnEngine e;
        try {
            e = TxnEngine.open(cfg);
        } catch (RuntimeException x) {
            throw new AssertionError("recovery failed; " + diagnostics(ctx, run), x);
        }
        try {
            if (persistAll) {
                Set<Bytes> before = new HashSet<>(e.preparedTransactions());
                e.close();
                e = TxnEngine.open(cfg);
                assertEquals(before, new HashSet<>(e.preparedTransactions()), "prepared set changed by a close; "
                        + ctx);
            }
            return check(e, m, persistAll, ctx);
        } catch (AssertionError | RuntimeException x) {
            throw new AssertionError(x.getMessage() + childOutput(run), x);
        } finally {
            if (persistAll) {
                e.close();
            } else {
                e.crashForTest();
            }
        }
    }

    static String diagnostics(String ctx, Run run) {
        return ctx + childOutput(run);
    }

    static String childOutput(Run run) {
        return run == null ? "" : "\n--- child stdout (last lines) ---\n" + run.tail() + "\n--- child stderr ---\n"
                + run.stderr();
    }

    static String show(TxnEngine.Versioned v) {
        return (v.value() == null ? "absent" : "'" + v.value().utf8String() + "'") + " @" + v.version();
    }

    /** Checks a recovered engine against everything the children reported; returns what it found. */
    static String check(TxnEngine e, Model m, boolean persistAll, String ctx) {
        Ledger l = e.ledger();
        long head = l.head().block().number();
        assertEquals(head, e.persistedBlock(), "persisted block and ledger head differ; " + ctx);
        if (m.genesisTimestamp < 0) {
            m.genesisTimestamp = l.block(0).timestamp();
        }
        assertEquals(m.genesisTimestamp, l.block(0).timestamp(), "genesis changed; " + ctx);
        long seenHead = m.blocks.keySet().stream().mapToLong(Long::longValue).max().orElse(0);
        assertTrue(head >= seenHead, "the ledger lost blocks: head " + head + " < " + seenHead + "; " + ctx);

        // Blocks: contiguous, append-only across recoveries, each transaction whole in its block, one version of
        // a key per block, no transaction twice.
        long prevTs = m.genesisTimestamp;
        for (long n = 1; n <= head; n++) {
            Block blk = l.block(n);
            assertEquals(n, blk.number(), ctx);
            assertTrue(blk.timestamp() >= prevTs, "block " + n + " goes back in time; " + ctx);
            prevTs = blk.timestamp();
            Block known = m.blocks.get(n);
            if (known != null) {
                assertEquals(known, blk, "block " + n + " differs from the one an earlier recovery formed; " + ctx);
                continue;
            }
            List<SignedTransaction> txs = e.blockTransactions(n);
            assertFalse(txs.isEmpty(), "block " + n + " holds no transaction; " + ctx);
            assertEquals(blk.txIds(), txs.stream().map(SignedTransaction::txId).toList(),
                    "block " + n + " txIds vs its transaction record; " + ctx);
            Set<Bytes> written = new HashSet<>();
            for (SignedTransaction stx : txs) {
                String id = stx.txId().hex();
                String where = "tx " + id + " in block " + n + "; " + ctx;
                Long other = m.txBlock.put(id, n);
                assertNull(other, "transaction in two blocks (" + other + " and " + n + "): " + where);
                assertFalse(m.decidedAbort.contains(id), "aborted transaction in the ledger: " + where);
                checkTxShape(stx, where);
                for (Mutation w : stx.tx().writes()) {
                    assertTrue(written.add(w.key()), "block " + n + " holds two versions of " + w.key() + "; "
                            + ctx);
                    if (w.isDelete()) {
                        assertEquals(Optional.empty(), l.get(w.key(), n), "delete missing: " + where);
                    } else {
                        Entry en = l.entry(w.key(), n);
                        assertNotNull(en, "write of " + w.key().utf8String() + " missing: " + where);
                        assertEquals(n, en.version(), "write of " + w.key().utf8String() + " at another version: "
                                + where);
                        assertEquals(w.value(), en.value(), "write of " + w.key().utf8String() + ": " + where);
                    }
                }
            }
            m.blocks.put(n, blk);
        }

        // 1. Acknowledged commits and commit decisions.
        for (Ack a : m.acks.values()) {
            String where = "acknowledged tx " + a.txId() + " promised block " + a.block() + " value " + a.value()
                    + ", ledger head " + head + "; " + ctx;
            assertTrue(a.block() >= 1, where);
            if (a.block() <= head) {
                assertEquals(a.block(), m.txBlock.get(a.txId()), "not in its promised block: " + where);
                for (String k : keysOf(a.value())) {
                    Optional<Bytes> want = isDelete(a.value()) ? Optional.empty() : Optional.of(b(a.value()));
                    assertEquals(want, l.get(b(k), a.block()), "ledger value of " + k + ": " + where);
                    if (!isDelete(a.value())) {
                        // (A delete of an absent key leaves no entry, so only puts pin the version.)
                        assertTrue(e.get(b(k)).version() >= a.block(), "version of " + k + " went back: " + where);
                    }
                }
            } else {
                assertFalse(persistAll, "not persisted after a clean close: " + where);
                assertNull(m.txBlock.get(a.txId()), where);
                for (String k : keysOf(a.value())) {
                    TxnEngine.Versioned v = e.get(b(k));
                    if (isDelete(a.value()) && v.value() == null) {
                        continue;  // deleting a key already absent leaves its version where it was (FORMAT §15.4)
                    }
                    assertTrue(v.version() >= a.block(), "write to " + k + " lost (now " + show(v) + "): " + where);
                    if (v.version() == a.block()) {
                        assertEquals(isDelete(a.value()) ? null : b(a.value()), v.value(), "value of " + k + ": "
                                + where);
                    }
                }
            }
        }

        // 2. Atomicity of the published state: pairs move together, and every value's keys hold it or newer.
        for (int i = 0; i < CrashChild.PAIRS; i++) {
            TxnEngine.Versioned va = e.get(b(CrashChild.a(i)));
            TxnEngine.Versioned vb = e.get(b(CrashChild.b(i)));
            assertEquals(va, vb, "pair " + i + " torn: " + show(va) + " vs " + show(vb) + "; " + ctx);
        }
        for (String k : m.keys) {
            TxnEngine.Versioned v = e.get(b(k));
            if (v.value() == null) {
                continue;
            }
            String value = v.value().utf8String();
            List<String> ks = keysOf(value);
            assertTrue(ks.contains(k), "key " + k + " holds another key's value " + value + "; " + ctx);
            for (String k2 : ks) {
                TxnEngine.Versioned w = e.get(b(k2));
                String where = k + " = " + show(v) + " but " + k2 + " = " + show(w) + "; " + ctx;
                assertTrue(w.version() >= v.version(), "half-applied transaction: " + where);
                if (w.version() == v.version()) {
                    assertEquals(v.value(), w.value(), "half-applied transaction: " + where);
                }
            }
        }

        // 3. Prepared transactions.
        Set<String> prepared = e.preparedTransactions().stream().map(Bytes::hex).collect(Collectors.toSet());
        for (String id : prepared) {
            String where = "prepared tx " + id + "; " + ctx;
            assertTrue(m.preparing.containsKey(id), "unknown transaction prepared: " + where);
            assertFalse(m.decidedCommit.contains(id) || m.decidedAbort.contains(id), "decided, yet prepared: "
                    + where);
            assertFalse(m.txBlock.containsKey(id), "prepared, yet in block " + m.txBlock.get(id) + ": " + where);
            for (String k : keysOf(m.preparing.get(id))) {
                assertNull(e.get(b(k)).value(), "write of an undecided transaction visible: " + where);
            }
        }
        for (String id : m.prepared) {
            if (!m.deciding.contains(id)) {
                assertTrue(prepared.contains(id), "acknowledged prepare of " + id + " lost (no decision was sent); "
                        + ctx);
            }
        }
        for (String id : m.decidedAbort) {
            for (String k : keysOf(m.preparing.get(id))) {
                assertNull(e.get(b(k)).value(), "write of aborted tx " + id + " visible; " + ctx);
            }
        }
        return String.format("after recovery head %d, %d prepared, %d acknowledged commits only in the WAL", head,
                prepared.size(), m.acks.values().stream().filter(a -> a.block() > head).count());
    }

    /** The ledger head as the last child left it, before any recovery; -1 if there is no ledger yet. */
    static long ledgerHead(Path dir) {
        if (!Files.isDirectory(dir.resolve("ledger"))) {
            return -1;
        }
        try (RocksDbNodeStore store = new RocksDbNodeStore(dir.resolve("ledger"))) {
            return Ledger.open(store).head().block().number();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** A transaction of the children: all puts of one value naming exactly its keys, or all deletes. */
    static void checkTxShape(SignedTransaction stx, String where) {
        List<Mutation> ws = stx.tx().writes();
        assertFalse(ws.isEmpty(), where);
        List<String> keys = ws.stream().map(w -> w.key().utf8String()).toList();
        if (ws.get(0).isDelete()) {
            assertTrue(ws.stream().allMatch(Mutation::isDelete), "mixed writes: " + where);
            return;
        }
        Bytes v = ws.get(0).value();
        assertTrue(ws.stream().allMatch(w -> v.equals(w.value())), "writes of different values: " + where);
        assertEquals(keysOf(v.utf8String()), keys, "value names other keys: " + where);
    }

    /** Requirement 4: every block's transactions, re-sequenced into a fresh ledger, form the same block. */
    static void replayMatches(TxnEngine e, Model m, String ctx) {
        Ledger l = e.ledger();
        long head = l.head().block().number();
        assertEquals(m.blocks.size(), head, "blocks seen vs head; " + ctx);
        Ledger replica = Ledger.openOrCreate(new InMemoryNodeStore(), TreeParams.DEFAULT, l.block(0).timestamp());
        assertEquals(l.digest(0), replica.digest(0), "genesis; " + ctx);
        for (long n = 1; n <= head; n++) {
            Block original = l.block(n);
            assertEquals(m.blocks.get(n), original, ctx);
            List<SignedTransaction> txs = SignedTransaction.decodeList(l.blockTransactions(n));
            BlockSequencer s = new BlockSequencer(n);
            for (SignedTransaction tx : txs) {
                assertEquals(n, s.assign(tx), "tx " + tx.txId().hex() + " does not fit its block " + n + "; " + ctx);
            }
            List<Block> rb = replica.append(s.seal(original.timestamp()).specs());
            assertEquals(1, rb.size(), ctx);
            assertEquals(original, rb.get(0), "replayed block " + n + "; " + ctx);
            assertEquals(l.digest(n), replica.digest(n), "digest of block " + n + "; " + ctx);
        }
    }

    // ---------------------------------------------------------------- torn WAL tail

    @Test
    void aTornWalTailIsCutOffAndEveryAcknowledgedCommitSurvives() throws Exception {
        Path dir = tmp.resolve("torn");
        String ctx = "torn tail";
        Run run = runAndKill(List.of("script", dir.toString(), "40"), "DONE", 0, "script", ctx);
        assertEquals("DONE", run.lines().get(run.lines().size() - 1), diagnostics(ctx, run));
        Model base = new Model();
        absorb(base, run, ctx);
        assertEquals(40, base.acks.size(), diagnostics(ctx, run));
        assertEquals(2, base.prepared.size(), diagnostics(ctx, run));

        // An unacknowledged transaction that may be in the log, whole or torn.
        TreeSet<String> uKeys = new TreeSet<>(List.of("ua", "ub"));
        SignedTransaction u = CrashChild.tx(CrashChild.clientKey(), "u", uKeys, null, 0);
        byte[] frame = frame(Wal.COMMIT, u.record());
        long tailSeed = System.nanoTime();
        Random tr = new Random(tailSeed);
        byte[] random = new byte[1 + tr.nextInt(300)];
        tr.nextBytes(random);
        byte[] badCrc = frame.clone();
        badCrc[badCrc.length - 1] ^= 1;
        Map<String, byte[]> tails = new LinkedHashMap<>();
        tails.put("random bytes", random);
        tails.put("zeros", new byte[4096]);
        tails.put("a torn record", Arrays.copyOf(frame, frame.length / 2));
        tails.put("a record with a bad checksum", badCrc);
        tails.put("a few bytes of a length", new byte[]{0, 0});
        byte[] second = frame(Wal.COMMIT, CrashChild.tx(CrashChild.clientKey(), "v", new TreeSet<>(List.of("va")),
                null, 0).record());
        byte[] wholeThenTorn = Arrays.copyOf(frame, frame.length + second.length - 7);
        System.arraycopy(second, 0, wholeThenTorn, frame.length, second.length - 7);
        tails.put("a whole record, then a torn one", wholeThenTorn);

        for (Map.Entry<String, byte[]> t : tails.entrySet()) {
            String c = ctx + ": " + t.getKey() + " (tail seed " + tailSeed + ")";
            boolean whole = t.getKey().startsWith("a whole");
            Path d = copyDir(dir, tmp.resolve("torn-" + t.getKey().replace(' ', '-')));
            Path last = lastWalSegment(d);
            long size = Files.size(last);
            Files.write(last, t.getValue(), StandardOpenOption.APPEND);
            Model m = new Model();
            absorb(m, run, c);
            if (whole) {
                m.addValue(CrashChild.value("u", uKeys));
            }
            EngineConfig cfg = EngineConfig.defaults(d).withPersistInterval(CHECK_PERSIST);
            try (TxnEngine e = TxnEngine.open(cfg)) {
                assertEquals(size + (whole ? frame.length : 0), Files.size(last), "tail not cut off; " + c);
                check(e, m, false, c);
                assertTrue(m.acks.values().stream().anyMatch(a -> a.block() > e.persistedBlock()),
                        "some acknowledged commits are only in the WAL; " + c);
                assertEquals(whole ? b(CrashChild.value("u", uKeys)) : null, e.get(b("ua")).value(), c);
                assertNull(e.get(b("va")).value(), c);
                // The engine goes on writing where the valid log ends.
                SignedTransaction after = CrashChild.tx(CrashChild.clientKey(), "after",
                        new TreeSet<>(List.of("aftera", "afterb")), null, 0);
                Promise p = e.commit(after).get(10, TimeUnit.SECONDS);
                m.acks.put(after.txId().hex(), new Ack(after.txId().hex(), p.blockNo(),
                        CrashChild.value("after", new TreeSet<>(List.of("aftera", "afterb")))));
                m.addValue(CrashChild.value("after", new TreeSet<>(List.of("aftera", "afterb"))));
                e.crashForTest();
            }
            checkRecovered(d, m, false, c, run);
            checkRecovered(d, m, true, c, run);
            try (TxnEngine e = TxnEngine.open(EngineConfig.defaults(d))) {
                replayMatches(e, m, c);
            }
            deleteDir(d);
        }
    }

    /** A WAL record as FORMAT.md §15 frames it: u32 length, u32 crc32c(type || payload), u8 type, payload. */
    static byte[] frame(int type, byte[] payload) {
        CRC32C crc = new CRC32C();
        crc.update(type);
        crc.update(payload);
        return ByteBuffer.allocate(9 + payload.length).putInt(1 + payload.length).putInt((int) crc.getValue())
                .put((byte) type).put(payload).array();
    }

    static Path lastWalSegment(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir.resolve("wal"))) {
            return s.filter(p -> p.getFileName().toString().matches("wal-\\d{16}\\.log")).max(Comparator.naturalOrder())
                    .orElseThrow();
        }
    }

    // ---------------------------------------------------------------- child processes

    /**
     * Starts a child with {@code args}, waits for it to print the line {@code waitFor}, sleeps {@code delayMs}, and
     * kills it with SIGKILL. Only whole lines of its output count: the kill may cut the last one short.
     */
    Run runAndKill(List<String> args, String waitFor, int delayMs, String label, String ctx) throws Exception {
        Path childTmp = Files.createDirectories(tmp.resolve("child-tmp"));
        // Files rather than pipes: destroyForcibly closes the pipes, losing what was not yet read.
        Path stdout = tmp.resolve("child-" + label + ".out");
        Path stderr = tmp.resolve("child-" + label + ".err");
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                // RocksDB unpacks its native library into java.io.tmpdir; a killed JVM never deletes it.
                "-Djava.io.tmpdir=" + childTmp, "-cp", System.getProperty("java.class.path"),
                CrashChild.class.getName()));
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.readString(stdout).contains(waitFor + "\n")) {
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    fail("child did not print " + waitFor + "; " + ctx + "\n--- stdout ---\n"
                            + Files.readString(stdout) + "\n--- stderr ---\n" + Files.readString(stderr));
                }
                Thread.sleep(5);
            }
            Thread.sleep(delayMs);
            assertTrue(p.isAlive(), "child died on its own; " + ctx + "\n" + Files.readString(stderr));
        } finally {
            p.destroyForcibly();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "killed child did not exit");
        }
        String err = Files.readString(stderr);
        assertEquals(137, p.exitValue(), "child was not ended by SIGKILL; " + ctx + "\n" + err);
        String out = Files.readString(stdout);
        List<String> lines = out.isEmpty() ? List.of()
                : List.of(out.substring(0, out.lastIndexOf('\n') + 1).split("\n"));
        Run run = new Run(lines, err);
        assertFalse(err.contains("UNEXPECTED"), "the child saw an unexpected error; " + diagnostics(ctx, run));
        return run;
    }

    static Path copyDir(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path q = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(q);
                } else if (!p.getFileName().toString().equals("LOCK")) {
                    Files.copy(p, q);
                }
            }
        }
        return to;
    }

    static void deleteDir(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
