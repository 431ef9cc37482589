package io.glassledger.client.cli;

import io.glassledger.api.Dto;
import io.glassledger.client.CommitPromise;
import io.glassledger.client.GlassLedgerClient;
import io.glassledger.client.TrustedState;
import io.glassledger.client.Txn;
import io.glassledger.client.ValueProof;
import io.glassledger.client.VerificationOutcome;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.SignedHead;
import io.glassledger.verify.proof.Version;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/** The commands that talk to a server: writes (put, delete) and verified reads (get, scan, history, digest, prove). */
final class DataCommands {
    static final int DEFAULT_SCAN_LIMIT = 100;
    static final int MAX_SCAN_LIMIT = 10_000;

    private final Context cx;
    private final Args a;

    DataCommands(Context cx) {
        this.cx = cx;
        this.a = cx.args;
    }

    int put() {
        String form = "put KEY VALUE | put KEY --file PATH | put KEY -  (stdin)";
        if (a.words.size() < 2) {
            throw new Usage("expected: " + form);
        }
        byte[] key = Values.key(a.word(1));
        byte[] value = Values.read(a, cx.in, form);
        return commit(txn -> {
            try {
                txn.put(key, value);
            } catch (IllegalArgumentException e) {
                throw new Usage(e.getMessage());  // over the server's value limit: nothing was sent
            }
        }, value.length + " bytes");
    }

    int delete() {
        byte[] key = Values.key(a.arity(2, "delete KEY").get(1));
        return commit(txn -> txn.delete(key), "deleted");
    }

    /** Commits one write and waits (up to {@code --timeout}) until its promise is verified. */
    private int commit(Consumer<Txn> write, String what) {
        try (GlassLedgerClient c = cx.connect()) {
            Txn txn = c.begin();
            write.accept(txn);
            CommitPromise p = txn.commit();
            if (!cx.json) {
                cx.out.println("committed " + p + " (" + what + ")");
            }
            VerificationOutcome o = awaitVerified(cx, p);
            if (o == null) {
                return Exit.FAILED;
            }
            if (cx.json) {
                cx.printJson(committed(p, o));
            } else {
                cx.out.println(o);
            }
            return Exit.OK;
        }
    }

    /**
     * Waits up to {@code --timeout} (default 60 s) for {@code p}'s check: its outcome, or null once the wait is over
     * (said on stderr: exit {@link Exit#FAILED}). A violation the check found is thrown, for {@link Failures}.
     */
    static VerificationOutcome awaitVerified(Context cx, CommitPromise p) {
        Duration timeout = Duration.ofSeconds(cx.args.longOpt("--timeout", 60));
        try {
            return p.verification().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            cx.err.println("not verified within " + timeout.toSeconds() + " s: the promise of block " + p.block()
                    + " is unchecked (it is checked again by the next command that reads this shard)"
                    + p.overdue().map(late -> "; overdue, the shard last answered " + late.lastAnswer()
                    + " (unavailability, not evidence of cheating)").orElse(""));
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        }
    }

    /** A verified commit with {@code --json}: the promise (its primary's, for a cross-shard one) and its check. */
    static Map<String, Object> committed(CommitPromise p, VerificationOutcome o) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("txId", p.txId().hex());
        m.put("shard", p.promise().shard());
        m.put("block", p.block());
        m.put("served", Context.digest(p.promise().served()));
        m.put("verifiedAt", Context.digest(o.digest()));
        m.put("verifyMillis", o.latency().toMillis());
        return m;
    }

    int get() {
        String k = a.arity(2, "get KEY [--block N] [--out PATH]").get(1);
        String outFile = a.opt("--out");
        try (GlassLedgerClient c = cx.connect()) {
            ValueProof v = c.getProof(Values.key(k), a.block());
            if (outFile != null) {
                if (v.value() == null) {
                    cx.err.println(k + " is absent in the state of block " + v.block() + " (verified): nothing "
                            + "written to " + outFile);
                    return Exit.FAILED;
                }
                try {
                    Files.write(Path.of(outFile), v.value().unsafeArray());
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot write " + outFile, e);
                }
            }
            if (cx.json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("key", k);
                if (outFile == null) {
                    m.put("value", v.value() == null ? null : Context.text(v.value()));
                } else {
                    m.put("out", outFile);
                    m.put("bytes", v.value().length());
                }
                m.put("block", v.block());
                m.put("digest", Context.digest(v.digest()));
                cx.printJson(m);
            } else {
                if (outFile == null) {
                    cx.out.println(v.value() == null ? "(absent)" : Context.text(v.value()));
                } else {
                    cx.out.println("wrote " + v.value().length() + " bytes to " + outFile);
                }
                cx.out.println("verified in the state of block " + v.block() + " against " + v.digest());
            }
            return Exit.OK;
        }
    }

    /**
     * Keys in {@code [FROM, TO)} of every shard, merged in key order. The API proves no range (docs/API.md
     * {@code /v1/scan}), so each listed value is then proven by a keys proof at the page's block: the values are
     * verified, but not that no key is missing, and the output says so.
     */
    int scan() {
        if (a.words.size() > 3) {
            throw new Usage("expected: scan [FROM [TO]] [--limit N] [--block N]");
        }
        byte[] from = a.words.size() > 1 ? Values.key(a.word(1)) : null;
        byte[] to = a.words.size() > 2 ? Values.key(a.word(2)) : null;
        long limit = a.longOpt("--limit", DEFAULT_SCAN_LIMIT);
        if (limit < 1 || limit > MAX_SCAN_LIMIT) {
            throw new Usage("--limit must be 1.." + MAX_SCAN_LIMIT);
        }
        try (GlassLedgerClient c = cx.connect()) {
            record Item(int shard, long block, Dto.ValueDto v, byte[] key) {
            }
            List<ScanMerge.Page<Item>> pages = new ArrayList<>();
            for (int shard = 0; shard < c.shards(); shard++) {
                Dto.ScanResponse page = c.scanUnverified(shard, from, to, (int) limit, a.block());
                List<Item> items = new ArrayList<>();
                for (Dto.ValueDto v : page.items()) {
                    items.add(new Item(shard, page.block(), v, Base64.getDecoder().decode(v.key())));
                }
                pages.add(new ScanMerge.Page<>(items, page.more()));
            }
            ScanMerge.Result<Item> merged = ScanMerge.merge(pages, (int) limit, i -> Bytes.of(i.key()));
            List<Item> items = merged.items();
            boolean more = merged.more();
            List<Map<String, Object>> rows = new ArrayList<>();
            for (Item i : items) {
                ValueProof p = c.getProof(i.key(), i.block());
                Bytes scanned = i.v().value() == null ? null : Bytes.of(Base64.getDecoder().decode(i.v().value()));
                if (p.value() == null || !p.value().equals(scanned)) {
                    cx.err.println("INCONSISTENT: the scan of shard " + i.shard() + " listed "
                            + Context.text(Bytes.of(i.key())) + " = " + (scanned == null ? "(absent)"
                            : Context.text(scanned)) + " at block " + i.block() + ", but its proof shows "
                            + (p.value() == null ? "(absent)" : Context.text(p.value())));
                    cx.err.println("  the server's scan contradicts its own proof: keep this output and report it");
                    return Exit.VIOLATION;
                }
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("key", Context.text(Bytes.of(i.key())));
                m.put("value", Context.text(p.value()));
                m.put("version", i.v().version());
                m.put("shard", i.shard());
                m.put("block", i.block());
                rows.add(m);
                if (!cx.json) {
                    cx.out.println(m.get("key") + " = " + preview((String) m.get("value"), p.value().length()));
                }
            }
            if (cx.json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("items", rows);
                m.put("more", more);
                m.put("valuesVerified", true);
                m.put("completenessVerified", false);
                cx.printJson(m);
            } else {
                cx.out.println(items.size() + " key(s)" + (more ? "; there are more: scan again from the last key "
                        + "shown (listed again)" : "")
                        + "; each value verified by a keys proof; that no key is missing is not provable "
                        + "(the API has no range proof)");
            }
            return Exit.OK;
        }
    }

    int history() {
        String k = a.arity(2, "history KEY [-n N]").get(1);
        int n = (int) a.longOpt("-n", 10);
        try (GlassLedgerClient c = cx.connect()) {
            List<Version> vs = c.history(Values.key(k), n);
            Digest d = c.digest(c.shardOf(Values.key(k)));
            if (cx.json) {
                List<Map<String, Object>> items = new ArrayList<>();
                for (Version v : vs) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("block", v.blockNo());
                    m.put("value", v.value() == null ? null : Context.text(v.value()));
                    items.add(m);
                }
                cx.printJson(Map.of("key", k, "versions", items, "trusted", Context.digest(d)));
            } else {
                if (vs.isEmpty()) {
                    cx.out.println("(never written)");
                }
                for (Version v : vs) {
                    cx.out.println("block " + v.blockNo() + ": " + (v.value() == null ? "(deleted)"
                            : Context.text(v.value())));
                }
                cx.out.println("verified; trusted digest " + d);
            }
            return Exit.OK;
        }
    }

    int digest() {
        a.arity(1, "digest");
        try (GlassLedgerClient c = cx.connect()) {
            List<Map<String, Object>> all = new ArrayList<>();
            for (int shard = 0; shard < c.shards(); shard++) {
                SignedHead h = c.head(shard);
                TrustedState s = c.trustedState(shard);
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("signedHead", Context.head(h));
                m.put("trusted", Context.digest(s.digest()));
                all.add(m);
                if (!cx.json) {
                    cx.out.println("signed head: shard " + h.shard() + ", block " + h.digest().blockNo() + ", hash "
                            + h.digest().root().hex() + ", timestamp " + java.time.Instant.ofEpochMilli(h.timestamp()));
                    cx.out.println("  server key " + h.serverKey().hex());
                    cx.out.println("  signature  " + h.signature().hex());
                    cx.out.println("trusted digest: " + s.digest().blockNo() + ":" + s.digest().root().hex());
                }
            }
            if (cx.json) {
                cx.printJson(all.size() == 1 ? all.get(0) : Map.of("shards", all));
            }
            return Exit.OK;
        }
    }

    int prove() {
        String k = a.arity(2, "prove KEY [--block N] --out FILE").get(1);
        String file = a.opt("--out");
        if (file == null) {
            throw new Usage("prove needs --out FILE");
        }
        try (GlassLedgerClient c = cx.connect()) {
            ValueProof p = c.prove(Values.key(k), a.block());
            try {
                Files.write(Path.of(file), p.toJson());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + file, e);
            }
            if (cx.json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("file", file);
                m.put("block", p.block());
                m.put("digest", Context.digest(p.digest()));
                m.put("trusted", p.trusted() == null ? null : Context.digest(p.trusted().digest()));
                cx.printJson(m);
            } else {
                cx.out.println("saved proof of " + k + " = " + (p.value() == null ? "(absent)"
                        : Context.text(p.value())) + " at block " + p.block() + " (digest " + p.digest()
                        + ", signed head at block " + p.signedHead().digest().blockNo() + (p.trusted() == null ? ""
                        : ", linked to the digest trusted before, block " + p.trusted().digest().blockNo())
                        + ") to " + file);
            }
            return Exit.OK;
        }
    }

    /** A listing shows the start of a long value; {@code get KEY --out FILE} has all of it. */
    static String preview(String shown, int bytes) {
        return shown.length() <= PREVIEW_CHARS ? shown : shown.substring(0, PREVIEW_CHARS) + "... (" + bytes
                + " bytes; get KEY --out FILE for all of it)";
    }

    static final int PREVIEW_CHARS = 100;
}
