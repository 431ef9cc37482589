package io.glassledger.client.cli;

import io.glassledger.client.ClientConfig;
import io.glassledger.client.CommitPromise;
import io.glassledger.client.GlassLedgerClient;
import io.glassledger.client.Txn;
import io.glassledger.client.TxnResult;
import io.glassledger.client.VerificationOutcome;
import io.glassledger.verify.hash.Bytes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code tx}: several reads, puts and deletes ({@link TxOps}) in one transaction, on one shard or across several
 * (two-phase commit, which the SDK coordinates). The operations apply in order: a get returns what the transaction
 * sees at that point, so a get of a key put or deleted earlier in it returns that write (and reads nothing from the
 * server); consecutive gets go out together, one request per shard.
 *
 * <p>It runs through {@link GlassLedgerClient#runTransaction}: refused with a retryable code ({@code conflict}:
 * another transaction changed a key this one read; {@code overloaded}; a cross-shard {@code aborted}), the
 * operations run again with fresh reads, up to {@code --retries} times (default
 * {@link ClientConfig#DEFAULT_MAX_RETRIES}, with backoff); what is printed is the attempt that committed. Then, as
 * {@code put} does, it waits up to {@code --timeout} for the promise's check: every write in its block, and every
 * value read proven by a keys proof in the state the shard served (the proof {@code get} checks). The values read are
 * printed only once that check passed.
 */
final class TxCommand {
    private final Context cx;
    private final Args a;

    TxCommand(Context cx) {
        this.cx = cx;
        this.a = cx.args;
    }

    /** A value the transaction read ({@code value} null: absent); {@code ownWrite}: its own earlier write. */
    private record Read(Bytes key, Bytes value, boolean ownWrite) {
    }

    int run() {
        List<TxOps.Op> ops = TxOps.read(a, cx.in);  // every usage error before connecting
        long retries = a.longOpt("--retries", ClientConfig.DEFAULT_MAX_RETRIES);
        if (retries > 100) {
            throw new Usage("--retries must be 0..100");
        }
        try (GlassLedgerClient c = cx.connect(b -> b.maxRetries((int) retries))) {
            int[] attempts = {0};
            TxnResult<List<Read>> r = c.runTransaction(txn -> {
                attempts[0]++;
                return apply(txn, ops);
            });
            CommitPromise p = r.promise();
            if (!cx.json) {
                cx.out.println("committed " + p + (attempts[0] > 1 ? " (attempt " + attempts[0] + ")" : ""));
            }
            VerificationOutcome o = DataCommands.awaitVerified(cx, p);
            if (o == null) {
                if (!r.value().isEmpty()) {
                    cx.err.println("  the values read are not shown: they are proven only by that check");
                }
                return Exit.FAILED;
            }
            if (cx.json) {
                cx.printJson(json(p, o, r.value(), attempts[0]));
            } else {
                for (Read read : r.value()) {
                    String v = read.value() == null ? "(absent)" : Context.text(read.value());
                    cx.out.println(Context.text(read.key()) + " = " + DataCommands.preview(v, read.value() == null
                            ? 0 : read.value().length()) + (read.ownWrite() ? "  (this transaction's own write)" : ""));
                }
                cx.out.println(o);
            }
            return Exit.OK;
        }
    }

    /** One attempt: the operations in order on {@code txn}; returns what the gets read, in order. */
    private static List<Read> apply(Txn txn, List<TxOps.Op> ops) {
        List<Read> reads = new ArrayList<>();
        Set<Bytes> written = new HashSet<>();
        for (int i = 0; i < ops.size(); ) {
            TxOps.Op op = ops.get(i);
            switch (op.kind()) {
                case GET -> {
                    int end = i;
                    while (end < ops.size() && ops.get(end).kind() == TxOps.Kind.GET) {
                        end++;
                    }
                    List<TxOps.Op> run = ops.subList(i, end);
                    List<byte[]> values = txn.getAll(run.stream().map(g -> g.key().toByteArray()).toList());
                    for (int j = 0; j < run.size(); j++) {
                        Bytes key = run.get(j).key();
                        reads.add(new Read(key, values.get(j) == null ? null : Bytes.of(values.get(j)),
                                written.contains(key)));
                    }
                    i = end;
                    continue;
                }
                case PUT -> {
                    try {
                        txn.put(op.key().toByteArray(), op.value().toByteArray());
                    } catch (IllegalArgumentException e) {
                        throw new Usage(e.getMessage());  // over the server's value limit: nothing was sent
                    }
                }
                case DELETE -> txn.delete(op.key().toByteArray());
            }
            written.add(op.key());
            i++;
        }
        return reads;
    }

    /**
     * {@code --json}: the fields {@code put} prints (the primary's promise and the check), then the values read, what
     * the check covered, each participant's promise, and the attempts it took.
     */
    private static Map<String, Object> json(CommitPromise p, VerificationOutcome o, List<Read> reads, int attempts) {
        Map<String, Object> m = DataCommands.committed(p, o);
        List<Map<String, Object>> rs = new ArrayList<>();
        for (Read r : reads) {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("key", Context.text(r.key()));
            x.put("value", r.value() == null ? null : Context.text(r.value()));
            x.put("ownWrite", r.ownWrite());
            rs.add(x);
        }
        m.put("reads", rs);
        m.put("writesChecked", o.writesChecked());
        m.put("readsChecked", o.readsChecked());
        m.put("crossShard", p.crossShard());
        List<Map<String, Object>> parts = new ArrayList<>();
        for (CommitPromise part : p.parts()) {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("shard", part.promise().shard());
            x.put("block", part.block());
            x.put("readOnly", part.promise().readOnly());
            x.put("served", Context.digest(part.promise().served()));
            parts.add(x);
        }
        m.put("parts", parts);
        m.put("attempts", attempts);
        return m;
    }
}
