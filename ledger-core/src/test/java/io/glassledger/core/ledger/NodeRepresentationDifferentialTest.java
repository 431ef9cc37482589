package io.glassledger.core.ledger;

import io.glassledger.verify.block.BlockSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.core.postree.TreeParams;
import io.glassledger.verify.proof.Version;
import io.glassledger.core.store.RecordDigestStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The old node representation against the new, operation for operation. Each seed runs blocks of inserts, updates
 * (values growing and shrinking), deletes, long keys and large values through a ledger whose node cache keeps
 * nothing or everything, then
 * reopens it with a 4 KB cache (every node decoded again from its record and delta chain) and takes proofs at the
 * head and at older blocks, latest entries, histories and scans. Everything observable (every digest and block hash,
 * every node record written, byte for byte, and every proof's encoding) goes into one SHA-256 per seed.
 *
 * <p>The expected digests in {@code node-representation-digests.txt} were first produced by the representation that
 * held a leaf as one object per entry (commit 50949bc), before leaves became one byte array with offsets, and the
 * array representation matched them through {@code glassledger/3}. Format {@code glassledger/4} changed every entry
 * and leaf boundary, so its digests were recomputed by the code that introduced it: from there on the test pins
 * every record, root and proof against later changes of representation. {@link #main} prints the digests of the code
 * at hand.
 */
class NodeRepresentationDifferentialTest {
    static final int SEEDS = 24;

    private static final TreeParams[] PARAMS = {
        new TreeParams(2, 16, 2, 14),
        new TreeParams(4, 32, 4, 8),
        new TreeParams(8, 8, 8, 8),
        new TreeParams(8, 64, 8, 64),
        TreeParams.DEFAULT,
    };

    @Test
    void everyRecordRootAndProof_asTheOldRepresentationGaveThem() throws IOException {
        Map<Long, String> expected = expected();
        assertEquals(SEEDS, expected.size());
        for (Map.Entry<Long, String> e : expected.entrySet()) {
            assertEquals(e.getValue(), run(e.getKey()), "seed " + e.getKey());
        }
    }

    private static Map<Long, String> expected() throws IOException {
        Map<Long, String> out = new LinkedHashMap<>();
        try (InputStream in = NodeRepresentationDifferentialTest.class.getResourceAsStream(
                "node-representation-digests.txt")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    String[] f = line.trim().split(" ");
                    out.put(Long.parseLong(f[0]), f[1]);
                }
            }
        }
        return out;
    }

    static String run(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        TreeParams p = PARAMS[(int) (seed % PARAMS.length)];
        MessageDigest md = sha256();
        RecordDigestStore store = new RecordDigestStore();
        // Which nodes a cache keeps depends on their weights, and a node still cached may be written as a full record
        // where one read back would be a delta's base: so either nothing is kept (each stripe holds only the node
        // last put, every other read decodes a record and its delta chain) or nothing is ever evicted.
        Ledger ledger = Ledger.openOrCreate(store, p, 0, seed % 2 == 0 ? 16 : 4L << 30);
        TreeMap<Bytes, Bytes> model = new TreeMap<>();
        List<Bytes> keys = new ArrayList<>();
        int blocks = 14;
        for (int b = 1; b <= blocks; b++) {
            TreeMap<Bytes, Mutation> writes = new TreeMap<>();
            int n = b == 1 ? 400 + r.nextInt(400) : 1 + r.nextInt(b % 3 == 0 ? 400 : 40);
            for (int j = 0; j < n; j++) {
                int kind = keys.isEmpty() ? 0 : r.nextInt(10);
                Bytes k = kind <= 2 ? key(r) : keys.get(r.nextInt(keys.size()));
                if (kind == 3) {
                    writes.put(k, Mutation.delete(k));
                } else {
                    Bytes old = model.get(k);
                    int len = old != null && r.nextBoolean() ? Math.max(0, old.length() + r.nextInt(9) - 4)
                            : r.nextInt(50) == 0 ? 3000 + r.nextInt(3000) : r.nextInt(200);
                    writes.put(k, Mutation.put(k, bytes(r, len)));
                }
            }
            ledger.append(List.of(new BlockSpec(b, List.of(), new ArrayList<>(writes.values()))));
            for (Map.Entry<Bytes, Mutation> e : writes.entrySet()) {
                if (e.getValue().isDelete()) {
                    model.remove(e.getKey());
                } else {
                    model.put(e.getKey(), e.getValue().value());
                    keys.add(e.getKey());
                }
            }
            md.update(ledger.head().blockHash().unsafeArray());
            md.update(ledger.digest().root().unsafeArray());
        }
        md.update(store.recordsDigest());
        Ledger reopened = Ledger.open(store, 4096);
        long head = reopened.digest().blockNo();
        for (int i = 0; i < 60; i++) {
            Bytes k = i % 5 == 0 ? key(r) : keys.get(r.nextInt(keys.size()));
            long at = i % 3 == 0 ? 1 + r.nextInt((int) head) : head;
            md.update(reopened.proveKeys(List.of(k, keys.get(r.nextInt(keys.size()))), at, head).encode());
            Entry e = reopened.latestEntry(k);
            md.update(e == null ? new byte[] {1} : e.encoded());
            for (Version v : reopened.history(k, 4, head)) {
                md.update(String.valueOf(v.blockNo()).getBytes(StandardCharsets.US_ASCII));
                md.update(v.value() == null ? new byte[] {2} : v.value().unsafeArray());
            }
            for (Entry s : reopened.scan(k, null, at, 7)) {
                md.update(s.encoded());
                md.update(s.hash().unsafeArray());
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }

    private static Bytes key(SplittableRandom r) {
        int len = r.nextInt(40) == 0 ? 200 + r.nextInt(400) : 1 + r.nextInt(40);
        return bytes(r, len);
    }

    private static Bytes bytes(SplittableRandom r, int len) {
        byte[] b = new byte[len];
        r.nextBytes(b);
        return Bytes.wrap(b);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Prints the digests of the code at hand, in the resource's format. */
    public static void main(String[] args) {
        for (long s = 1; s <= SEEDS; s++) {
            System.out.println(s + " " + run(s));
        }
    }
}
