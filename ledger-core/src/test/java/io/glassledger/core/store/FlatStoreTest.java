package io.glassledger.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.entry.Mutation;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hashing;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The flat store against its model ({@link FlatStoreModel}, a TreeMap of versions): random blocks, then every read
 * (latest, at a block, versions, scans over random ranges, blocks and limits) compared, across reopens.
 */
class FlatStoreTest {
    @TempDir
    Path dir;

    @Test
    void everyRead_matchesTheModel_acrossBlocksAndReopens() {
        long seed = new Random().nextLong();
        System.out.println("FlatStoreTest seed " + seed);
        Random r = new Random(seed ^ 0x5eed);
        FlatStoreModel model = new FlatStoreModel();
        FlatStore store = FlatStore.open(dir, 1 << 20, false);
        try {
            for (long b = 0; b < 400; b++) {
                List<Mutation> m = FlatStoreModel.block(seed, b);
                store.write(b, m);
                model.apply(b, m);
                if (b % 97 == 96) {
                    store.close();
                    store = FlatStore.open(dir, 1 << 20, false);
                    assertEquals(b, store.head());
                }
                if (b % 10 == 0) {
                    check(store, model, r, b, "seed " + seed + ", block " + b);
                }
            }
            store.compact();
            check(store, model, r, 399, "seed " + seed + ", compacted");
        } finally {
            store.close();
        }
    }

    private static void check(FlatStore store, FlatStoreModel model, Random r, long head, String ctx) {
        for (int i = 0; i < 40; i++) {
            Bytes k = FlatStoreModel.randomKey(r);
            long block = r.nextInt((int) head + 2);
            assertVersion(store, model.at(k, block), store.at(k, block), ctx + ", " + k + " at " + block);
            assertVersion(store, model.at(k, Long.MAX_VALUE), store.latest(k), ctx + ", latest " + k);
            List<Map.Entry<Long, Bytes>> want = model.versions(k, block, 5);
            List<FlatRows.Version> got = store.versions(k, block, 5);
            assertEquals(want.size(), got.size(), ctx + ", versions of " + k);
            for (int j = 0; j < want.size(); j++) {
                assertVersion(store, Optional.of(want.get(j)), Optional.of(got.get(j)), ctx + ", version " + j);
            }
        }
        for (int i = 0; i < 10; i++) {
            Bytes from = r.nextInt(4) == 0 ? null : FlatStoreModel.randomKey(r);
            Bytes to = r.nextInt(4) == 0 ? null : FlatStoreModel.randomKey(r);
            long block = r.nextInt((int) head + 2);
            int limit = 1 + r.nextInt(400);
            List<Map.Entry<Bytes, Bytes>> want = model.scan(from, to, block, limit);
            List<FlatStore.Item> got = store.scan(from, to, block, limit);
            String c = ctx + ", scan [" + from + ", " + to + ") at " + block + " limit " + limit;
            assertEquals(want.stream().map(Map.Entry::getKey).toList(), got.stream().map(FlatStore.Item::key).toList(),
                    c);
            assertEquals(want.stream().map(Map.Entry::getValue).toList(),
                    got.stream().map(FlatStore.Item::value).toList(), c);
            List<FlatStore.Item> rows = store.scanRows(from, to, block, limit);
            assertEquals(got.stream().map(FlatStore.Item::version).toList(),
                    rows.stream().map(FlatStore.Item::version).toList(), c + ", rows only");
            assertTrue(rows.stream().allMatch(it -> it.value() == null), c);
        }
    }

    private static void assertVersion(FlatStore store, Optional<Map.Entry<Long, Bytes>> want,
            Optional<FlatRows.Version> got, String ctx) {
        assertEquals(want.isPresent(), got.isPresent(), ctx);
        if (want.isEmpty()) {
            return;
        }
        assertEquals(want.get().getKey(), got.get().block(), ctx);
        if (want.get().getValue() == FlatStoreModel.DELETED) {
            assertTrue(got.get().isDelete(), ctx);
        } else {
            Bytes v = want.get().getValue();
            assertEquals(Hashing.value(v.unsafeArray(), 0, v.length()), got.get().valueHash(), ctx);
            assertEquals(v, store.value(got.get()), ctx);
        }
    }

    @Test
    void writesBelowTheHead_orWithARepeatedKey_areRefused() {
        try (FlatStore store = FlatStore.open(dir, 1 << 20, true)) {
            Bytes k = Bytes.utf8("k");
            store.write(5, List.of(Mutation.put(k, Bytes.utf8("v"))));
            assertThrows(IllegalArgumentException.class, () -> store.write(5, List.of(Mutation.delete(k))));
            assertThrows(IllegalArgumentException.class,
                    () -> store.write(6, List.of(Mutation.delete(k), Mutation.put(k, Bytes.utf8("w")))));
            assertEquals(5, store.head());
            assertEquals(Optional.empty(), store.at(k, 4));
        }
    }

    @Test
    void aValueChangedInTheLog_isRefused_notServed() throws Exception {
        Bytes k = Bytes.utf8("key");
        FlatRows.Version v;
        try (FlatStore store = FlatStore.open(dir, 1 << 20, true)) {
            store.write(1, List.of(Mutation.put(k, Bytes.utf8("the value"))));
            v = store.latest(k).orElseThrow();
        }
        // Rewrite the value's bytes and fix up its frame's checksum: only the row's hash can tell.
        Path seg = dir.resolve("values").resolve(ValueLog.name(v.at().segment()));
        byte[] forged = "THE VALUE".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        ByteBuffer frame = ByteBuffer.allocate(FrameScan.HEADER_BYTES + forged.length);
        FrameScan.put(frame, ValueLog.VALUE, forged, new java.util.zip.CRC32C());
        try (FileChannel ch = FileChannel.open(seg, StandardOpenOption.WRITE)) {
            ch.write(frame.flip(), v.at().offset());
        }
        try (FlatStore store = FlatStore.open(dir, 1 << 20, true)) {
            ValueLogCorruptedException e = assertThrows(ValueLogCorruptedException.class,
                    () -> store.value(store.latest(k).orElseThrow()));
            assertTrue(e.getMessage().contains("hash"), e.getMessage());
        }
    }

    @Test
    void rowKeys_sortKeysInTheTreesOrder_andRoundTrip() {
        Random r = new Random(3);
        for (int i = 0; i < 2_000; i++) {
            Bytes a = FlatStoreModel.randomKey(r);
            Bytes b = FlatStoreModel.randomKey(r);
            long va = r.nextInt(1000);
            long vb = r.nextInt(1000);
            byte[] ra = FlatRows.rowKey(FlatRows.keyPrefix(a), va);
            byte[] rb = FlatRows.rowKey(FlatRows.keyPrefix(b), vb);
            int want = a.equals(b) ? -Long.compare(va, vb) : a.compareTo(b);
            assertEquals(Integer.signum(want), Integer.signum(java.util.Arrays.compareUnsigned(ra, rb)), a + "@" + va
                    + " vs " + b + "@" + vb);
            assertEquals(a, FlatRows.keyOf(ra));
            assertEquals(va, FlatRows.blockOf(ra));
        }
    }
}
