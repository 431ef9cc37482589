package io.glassledger.client;

import io.glassledger.api.Dto;
import io.glassledger.api.Wire;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.entry.Entry;
import io.glassledger.verify.txn.PromiseVerifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * A transaction, client-side until commit (docs/API.md, Transactions): reads go to the server and record the
 * version read; writes are buffered; {@link #commit()} signs it with the client's key and sends it. The first read
 * of a key fixes what the transaction saw of it (a second read returns the same value); a key written earlier in the
 * transaction reads back the buffered value, without recording a read. Once committed (or failed) it is done.
 *
 * <p>Not thread-safe: use one transaction from one thread at a time, and wait for each {@code ...Async} call before
 * the next.
 */
public final class Txn {
    private enum State { OPEN, COMMITTING, DONE }

    private final GlassLedgerClient client;
    private final Bytes txId;
    private final TreeMap<Bytes, Bytes> writes = new TreeMap<>();
    private final Map<Bytes, PromiseVerifier.Read> reads = new HashMap<>();
    private final List<PromiseVerifier.Read> readOrder = new ArrayList<>();
    private State state = State.OPEN;

    Txn(GlassLedgerClient client, Bytes txId) {
        this.client = client;
        this.txId = txId;
    }

    public Bytes txId() {
        return txId;
    }

    /** The value of {@code key}, or null if it has none (never written, or deleted). */
    public byte[] get(byte[] key) {
        return Violations.join(getAsync(key));
    }

    /** {@link #get(byte[])} with UTF-8 key and value. */
    public String get(String key) {
        byte[] v = get(key.getBytes(StandardCharsets.UTF_8));
        return v == null ? null : new String(v, StandardCharsets.UTF_8);
    }

    public CompletableFuture<byte[]> getAsync(byte[] key) {
        requireOpen();
        Bytes k = GlassLedgerClient.key(key);
        if (writes.containsKey(k)) {
            Bytes v = writes.get(k);
            return CompletableFuture.completedFuture(v == null ? null : v.toByteArray());
        }
        PromiseVerifier.Read seen = reads.get(k);
        if (seen != null) {
            return CompletableFuture.completedFuture(seen.value() == null ? null : seen.value().toByteArray());
        }
        return client.link(k).api.post("/v1/get", new Dto.KeysRequest(List.of(Wire.b64(k)), null, null),
                Dto.ValuesResponse.class).thenApply(resp -> {
                    PromiseVerifier.Read r = single(resp, k);
                    if (reads.putIfAbsent(k, r) == null) {
                        readOrder.add(r);
                    }
                    PromiseVerifier.Read first = reads.get(k);
                    return first.value() == null ? null : first.value().toByteArray();
                });
    }

    /**
     * The values of {@code keys} (null: none), in order, read with one request per shard involved, in parallel;
     * each is recorded as a read.
     */
    public List<byte[]> getAll(List<byte[]> keys) {
        return Violations.join(getAllAsync(keys));
    }

    public CompletableFuture<List<byte[]>> getAllAsync(List<byte[]> keys) {
        requireOpen();
        List<Bytes> ks = keys.stream().map(GlassLedgerClient::key).toList();
        Map<Integer, List<Bytes>> ask = new TreeMap<>();
        ks.stream().filter(k -> !writes.containsKey(k) && !reads.containsKey(k)).distinct()
                .forEach(k -> ask.computeIfAbsent(client.shardOf(k), s -> new ArrayList<>()).add(k));
        List<CompletableFuture<List<PromiseVerifier.Read>>> fetches = new ArrayList<>();
        for (var e : ask.entrySet()) {
            List<Bytes> want = e.getValue();
            fetches.add(client.shardLink(e.getKey()).api.post("/v1/get",
                    new Dto.KeysRequest(want.stream().map(Wire::b64).toList(), null, null),
                    Dto.ValuesResponse.class).thenApply(resp -> {
                        if (resp == null || resp.items() == null || resp.items().size() != want.size()) {
                            throw GlassLedgerException.badResponse("/v1/get: expected " + want.size() + " items",
                                    null);
                        }
                        List<PromiseVerifier.Read> got = new ArrayList<>(want.size());
                        for (int i = 0; i < want.size(); i++) {
                            got.add(single(new Dto.ValuesResponse(List.of(resp.items().get(i)), resp.block()),
                                    want.get(i)));
                        }
                        return got;
                    }));
        }
        CompletableFuture<Void> fetched = CompletableFuture.allOf(fetches.toArray(new CompletableFuture<?>[0]))
                .thenRun(() -> {
                    for (CompletableFuture<List<PromiseVerifier.Read>> f : fetches) {
                        for (PromiseVerifier.Read r : f.join()) {
                            if (reads.putIfAbsent(r.key(), r) == null) {
                                readOrder.add(r);
                            }
                        }
                    }
                });
        return fetched.thenApply(x -> {
            List<byte[]> out = new ArrayList<>(ks.size());
            for (Bytes k : ks) {
                Bytes v = writes.containsKey(k) ? writes.get(k) : reads.get(k).value();
                out.add(v == null ? null : v.toByteArray());
            }
            return out;
        });
    }

    /** The one item of a {@code /v1/get} answer about {@code k}; a malformed answer is {@code bad_response}. */
    static PromiseVerifier.Read single(Dto.ValuesResponse resp, Bytes k) {
        try {
            if (resp == null || resp.items() == null || resp.items().size() != 1) {
                throw new Wire.BadWireException("items", "expected one item");
            }
            Dto.ValueDto item = resp.items().get(0);
            if (item == null || !k.equals(Wire.requiredBytes("items.key", item.key())) || item.version() < 0) {
                throw new Wire.BadWireException("items", "another key, or a negative version");
            }
            return new PromiseVerifier.Read(k, Wire.bytes("items.value", item.value()), item.version());
        } catch (Wire.BadWireException e) {
            throw GlassLedgerException.badResponse("/v1/get: " + e.getMessage(), e);
        }
    }

    public Txn put(byte[] key, byte[] value) {
        requireOpen();
        Bytes k = GlassLedgerClient.key(key);
        if (value == null) {
            throw new IllegalArgumentException("null value: use delete");
        }
        if (value.length > Math.min(Entry.MAX_VALUE_BYTES, client.maxValueBytes())) {
            throw new IllegalArgumentException("value of " + value.length + " bytes is over the limit of "
                    + Math.min(Entry.MAX_VALUE_BYTES, client.maxValueBytes()));
        }
        writes.put(k, Bytes.of(value));
        return this;
    }

    public Txn put(String key, String value) {
        return put(key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8));
    }

    public Txn delete(byte[] key) {
        requireOpen();
        writes.put(GlassLedgerClient.key(key), null);
        return this;
    }

    public Txn delete(String key) {
        return delete(key.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Signs and commits: one-phase when every key read or written is on one shard, else two-phase commit across the
     * shards involved, which this client coordinates (docs/ARCHITECTURE.md, Cluster). With a verify delay of zero, returns only once the promise verified (or throws the
     * {@link IntegrityViolation}); otherwise as soon as the shard acknowledged, with the check under way.
     *
     * @throws GlassLedgerException for a refusal; {@code conflict} means: run the transaction again with fresh reads
     */
    public CommitPromise commit() {
        return Violations.join(commitAsync());
    }

    public CompletableFuture<CommitPromise> commitAsync() {
        requireOpen();
        state = State.COMMITTING;
        if (writes.isEmpty() && reads.isEmpty()) {
            state = State.DONE;
            return CompletableFuture.completedFuture(CommitPromise.nothing(txId));
        }
        CompletableFuture<CommitPromise> f;
        try {
            f = client.commit(txId, List.copyOf(readOrder), writes);
        } catch (RuntimeException e) {
            state = State.DONE;
            return CompletableFuture.failedFuture(e);
        }
        return f.whenComplete((p, e) -> state = State.DONE);
    }

    private void requireOpen() {
        if (state != State.OPEN) {
            throw new IllegalStateException("transaction " + txId.hex() + " is "
                    + (state == State.DONE ? "finished" : "committing"));
        }
    }
}
