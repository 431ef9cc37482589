package io.glassledger.client;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.entry.Mutation;
import io.glassledger.verify.txn.PromiseVerifier;
import io.glassledger.verify.txn.Transaction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Groups due promises into the items of one proof batch ({@code POST /v1/proofs/batch}): the written keys of each
 * promise at its block, and its read keys at the blocks {@link PromiseVerifier#readsByBlock} names (reads of
 * read-only transactions too). Checks of one block share items, keys merged, so one traversal serves them all; an
 * item never has more than {@code maxKeys} keys, and a promise too big for one item is split into parts, each checked
 * against its own item. Pure.
 */
final class ProofBatchPlanner {
    private ProofBatchPlanner() {
    }

    /** Something one item's proof backs. */
    sealed interface Check permits WriteCheck, ReadCheck {
        CommitPromise promise();

        List<Bytes> keys();
    }

    /** Writes of (part of) one promise, checked with {@link PromiseVerifier#verifyAll}. */
    record WriteCheck(CommitPromise promise, Transaction part) implements Check {
        @Override
        public List<Bytes> keys() {
            return part.writes().stream().map(Mutation::key).toList();
        }
    }

    /** Reads of (part of) one promise at one block, checked with {@link PromiseVerifier#verifyReads}. */
    record ReadCheck(CommitPromise promise, List<PromiseVerifier.Read> reads) implements Check {
        ReadCheck {
            reads = List.copyOf(reads);
        }

        @Override
        public List<Bytes> keys() {
            return reads.stream().map(PromiseVerifier.Read::key).toList();
        }
    }

    /** Keys of one block to prove (sorted, distinct, at most the limit), and the checks their proof backs. */
    record Item(long block, List<Bytes> keys, List<WriteCheck> writes, List<ReadCheck> reads) {
        Item {
            keys = List.copyOf(keys);
            writes = List.copyOf(writes);
            reads = List.copyOf(reads);
        }

        /** Roughly the bytes of this item's answer in the batch response (see {@link #answerBytes(Bytes, Bytes)}). */
        long answerBytes() {
            Map<Bytes, Bytes> values = new HashMap<>();
            writes.forEach(w -> values.putAll(values(w)));
            reads.forEach(r -> values.putAll(values(r)));
            long n = ANSWER_BASE_BYTES;
            for (Bytes k : keys) {
                n += ProofBatchPlanner.answerBytes(k, values.get(k));
            }
            return n;
        }
    }

    static List<Item> plan(List<CommitPromise> promises, int maxKeys) {
        return plan(promises, maxKeys, Long.MAX_VALUE);
    }

    /**
     * As {@link #plan(List, int)}, also closing an item before its estimated answer ({@link #answerBytes}) passes
     * {@code maxBytes}, so that it fits the server's response limit. A single check over it still gets an item.
     */
    static List<Item> plan(List<CommitPromise> promises, int maxKeys, long maxBytes) {
        if (maxKeys < 1) {
            throw new IllegalArgumentException("maxKeys must be positive");
        }
        TreeMap<Long, List<Check>> byBlock = new TreeMap<>();
        for (CommitPromise p : promises) {
            if (p.committedNothing()) {
                continue;
            }
            Transaction tx = p.transaction();
            if (!tx.isReadOnly()) {
                byBlock.computeIfAbsent(p.block(), b -> new ArrayList<>()).addAll(splitWrites(p, tx, maxKeys));
            }
            if (!p.reads().isEmpty()) {
                for (Map.Entry<Long, List<PromiseVerifier.Read>> e
                        : PromiseVerifier.readsByBlock(p.promise(), p.reads()).entrySet()) {
                    List<PromiseVerifier.Read> rs = e.getValue();
                    List<Check> checks = byBlock.computeIfAbsent(e.getKey(), b -> new ArrayList<>());
                    for (int i = 0; i < rs.size(); i += maxKeys) {
                        checks.add(new ReadCheck(p, rs.subList(i, Math.min(rs.size(), i + maxKeys))));
                    }
                }
            }
        }
        List<Item> out = new ArrayList<>();
        for (Map.Entry<Long, List<Check>> e : byBlock.entrySet()) {
            ItemBuilder cur = new ItemBuilder(e.getKey());
            for (Check check : e.getValue()) {
                List<Bytes> keys = check.keys();
                int added = 0;
                long addedBytes = 0;
                Map<Bytes, Bytes> values = values(check);
                for (Bytes k : keys) {
                    if (!cur.keys.contains(k)) {
                        added++;
                        addedBytes += answerBytes(k, values.get(k));
                    }
                }
                if (!cur.isEmpty() && (cur.keys.size() + added > maxKeys || cur.bytes + addedBytes > maxBytes)) {
                    out.add(cur.build());
                    cur = new ItemBuilder(e.getKey());
                }
                cur.add(check, keys, values);
            }
            if (!cur.isEmpty()) {
                out.add(cur.build());
            }
        }
        return out;
    }

    private static List<WriteCheck> splitWrites(CommitPromise p, Transaction tx, int maxKeys) {
        List<Mutation> ws = tx.writes();
        if (ws.size() <= maxKeys) {
            return List.of(new WriteCheck(p, tx));
        }
        List<WriteCheck> parts = new ArrayList<>();
        for (int i = 0; i < ws.size(); i += maxKeys) {
            // Same id, key and shard, so PromiseVerifier accepts it as the promise's transaction; a subset of writes.
            Transaction part = new Transaction(tx.txId(), tx.clientKey(), tx.shard(), tx.participants(), List.of(),
                    ws.subList(i, Math.min(ws.size(), i + maxKeys)));
            parts.add(new WriteCheck(p, part));
        }
        return parts;
    }

    /**
     * Promises of one block that put the same key. A block holds one version of a key (FORMAT.md §15.4, rule 5), so
     * all but one of them are false; {@link PromiseVerifier#verifyAll} catches this only among the promises checked
     * together, and a split promise is not, so the whole round is checked here. Deletes are left out, as there.
     */
    static List<Set<CommitPromise>> conflictingPuts(List<CommitPromise> promises) {
        Map<Long, Map<Bytes, CommitPromise>> seen = new HashMap<>();
        Map<CommitPromise, Set<CommitPromise>> groups = new java.util.IdentityHashMap<>();
        List<Set<CommitPromise>> out = new ArrayList<>();
        for (CommitPromise p : promises) {
            if (p.committedNothing() || p.block() == 0) {
                continue;
            }
            Map<Bytes, CommitPromise> keys = seen.computeIfAbsent(p.block(), b -> new HashMap<>());
            for (Mutation m : p.writes()) {
                if (m.isDelete()) {
                    continue;
                }
                CommitPromise other = keys.putIfAbsent(m.key(), p);
                if (other != null && other != p) {
                    Set<CommitPromise> g = groups.get(other);
                    if (g == null) {
                        g = new LinkedHashSet<>();
                        g.add(other);
                        groups.put(other, g);
                        out.add(g);
                    }
                    g.add(p);
                    groups.put(p, g);
                }
            }
        }
        return out;
    }

    /** Roughly the bytes a promise's keys add to a batch request (base64 and JSON punctuation). */
    static long requestBytes(CommitPromise p) {
        long n = 0;
        for (Mutation m : p.writes()) {
            n += 4L * (m.key().length() + 2) / 3 + 4;
        }
        for (PromiseVerifier.Read r : p.reads()) {
            n += 4L * (r.key().length() + 2) / 3 + 4;
        }
        return n + 32;
    }

    /** Per proof answered: the digest, signed head and fields around them, in JSON. */
    static final long ANSWER_BASE_BYTES = 1024;

    /**
     * Roughly the bytes one key adds to an item's answer: its claim (key and value in base64) and its share of the
     * proof's hashes. The value is the one written or read, so the estimate is exact for it; an absent key's proof
     * also shows a neighbour, which the client cannot know (a refusal then halves the round, see DeferredVerifier).
     */
    static long answerBytes(Bytes key, Bytes value) {
        return 4L * (key.length() + 2) / 3 + (value == null ? 0 : 4L * (value.length() + 2) / 3) + 256;
    }

    private static Map<Bytes, Bytes> values(Check check) {
        Map<Bytes, Bytes> out = new HashMap<>();
        if (check instanceof WriteCheck w) {
            w.part().writes().forEach(m -> out.put(m.key(), m.value()));
        } else if (check instanceof ReadCheck r) {
            r.reads().forEach(x -> out.put(x.key(), x.value()));
        }
        return out;
    }

    /** The keys a promise adds to a batch. */
    static int keyCount(CommitPromise p) {
        return p.writes().size() + p.reads().size();
    }

    private static final class ItemBuilder {
        final long block;
        final TreeSet<Bytes> keys = new TreeSet<>();
        long bytes = ANSWER_BASE_BYTES;
        final List<WriteCheck> writes = new ArrayList<>();
        final List<ReadCheck> reads = new ArrayList<>();

        ItemBuilder(long block) {
            this.block = block;
        }

        boolean isEmpty() {
            return writes.isEmpty() && reads.isEmpty();
        }

        void add(Check check, List<Bytes> ks, Map<Bytes, Bytes> values) {
            for (Bytes k : ks) {
                if (keys.add(k)) {
                    bytes += answerBytes(k, values.get(k));
                }
            }
            if (check instanceof WriteCheck w) {
                writes.add(w);
            } else if (check instanceof ReadCheck r) {
                reads.add(r);
            }
        }

        Item build() {
            return new Item(block, new ArrayList<>(keys), writes, reads);
        }
    }
}
