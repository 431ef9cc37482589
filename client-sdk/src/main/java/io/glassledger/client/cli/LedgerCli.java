package io.glassledger.client.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.glassledger.client.ClientConfig;
import io.glassledger.client.CommitPromise;
import io.glassledger.client.GlassLedgerClient;
import io.glassledger.client.GlassLedgerException;
import io.glassledger.client.IntegrityViolation;
import io.glassledger.client.TrustedState;
import io.glassledger.client.ValueProof;
import io.glassledger.client.VerificationOutcome;
import io.glassledger.core.hash.Bytes;
import io.glassledger.core.hash.Hash;
import io.glassledger.core.proof.Digest;
import io.glassledger.core.proof.SignedHead;
import io.glassledger.core.proof.VerificationException;
import io.glassledger.core.proof.Version;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code ledger-cli}: commits and verified reads against a GlassLedger server, and offline checks of saved proofs.
 * Exit status: 0 success, 1 failure (a refused request, a failed verification, an integrity violation), 2 usage.
 * Keys and values on the command line are UTF-8; a value that is not printable text is shown as {@code base64:...}.
 */
public final class LedgerCli {
    static final String USAGE = """
            usage: ledger-cli [options] COMMAND ...
              put KEY VALUE                      commit a one-put transaction, wait for its promise to verify
              get KEY [--block N]                the key's value, verified (latest persisted block by default)
              history KEY [-n N]                 the key's last N versions (default 10), verified
              digest                             fetch and verify the signed head; show it and the trusted digest
              prove KEY [--block N] --out FILE   save a self-contained proof of the key's value
              verify FILE [--digest BLOCK:HASH] [--server-key HEX]
                                                 check a saved proof offline (no server)
              evidence FILE [--server-key HEX]   check an auditor's violation (a line of violations.jsonl) offline:
                                                 exit 0 only if it proves the shard misbehaved
            options (environment):
              --url URL          (GLASSLEDGER_URL, default https://127.0.0.1:8443)
              --cluster FILE     (GLASSLEDGER_CLUSTER) a cluster's shard map, URLs and pin, as written by
                                 ./glassledger cluster start (cluster/cluster.properties); instead of --url
              --api-key KEY      (GLASSLEDGER_API_KEY)
              --pin SHA256       (GLASSLEDGER_PIN) SHA-256 of the server's certificate; default: the JDK's trust
              --key-file FILE    default ~/.glassledger/client.key (created, mode 600)
              --state FILE       default ~/.glassledger/state-<host>-<port>.json
              --timeout SECONDS  how long put waits for verification (default 60)
              --json             machine-readable output""";
    private static final List<String> VALUED = List.of("--url", "--cluster", "--api-key", "--pin", "--key-file", "--state",
            "--timeout", "--block", "-n", "--out", "--digest", "--server-key");
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final PrintStream out;
    private final PrintStream err;
    private final Map<String, String> env;
    private final Map<String, String> opts = new LinkedHashMap<>();
    private final List<String> args = new ArrayList<>();
    private final List<IntegrityViolation> violations = new CopyOnWriteArrayList<>();
    private boolean json;

    private LedgerCli(PrintStream out, PrintStream err, Map<String, String> env) {
        this.out = out;
        this.err = err;
        this.env = env;
    }

    public static void main(String[] argv) {
        System.exit(run(argv, System.out, System.err, System.getenv()));
    }

    /** Runs one command; returns the exit status. */
    public static int run(String[] argv, PrintStream out, PrintStream err, Map<String, String> env) {
        LedgerCli cli = new LedgerCli(out, err, env);
        try {
            cli.parse(argv);
            return cli.dispatch();
        } catch (Usage u) {
            if (u == Usage.HELP) {
                out.println(USAGE);
                return 0;
            }
            err.println("ledger-cli: " + u.getMessage());
            err.println(USAGE);
            return 2;
        } catch (IntegrityViolation v) {
            cli.printViolation(v);
            return 1;
        } catch (GlassLedgerException e) {
            err.println("error: " + e.code() + (e.status() > 0 ? " (HTTP " + e.status() + ")" : "") + ": "
                    + e.detail());
            return 1;
        } catch (RuntimeException e) {
            err.println("error: " + e.getMessage());
            return 1;
        } finally {
            // A violation found on a background path and not already the error above is still shown.
            for (IntegrityViolation v : List.copyOf(cli.violations)) {
                cli.printViolation(v);
            }
        }
    }

    private static final class Usage extends RuntimeException {
        static final Usage HELP = new Usage("help");

        Usage(String message) {
            super(message);
        }
    }

    private void parse(String[] argv) {
        for (int i = 0; i < argv.length; i++) {
            String a = argv[i];
            if (a.equals("--json")) {
                json = true;
            } else if (a.equals("-h") || a.equals("--help")) {
                throw Usage.HELP;
            } else if (VALUED.contains(a)) {
                if (i + 1 >= argv.length) {
                    throw new Usage(a + " needs a value");
                }
                opts.put(a, argv[++i]);
            } else if (a.startsWith("-") && a.length() > 1) {
                throw new Usage("unknown option " + a);
            } else {
                args.add(a);
            }
        }
        if (args.isEmpty()) {
            throw new Usage("no command");
        }
    }

    private int dispatch() {
        String cmd = args.get(0);
        return switch (cmd) {
            case "put" -> put(arity(3, "put KEY VALUE"));
            case "get" -> get(arity(2, "get KEY [--block N]"));
            case "history" -> history(arity(2, "history KEY [-n N]"));
            case "digest" -> digest(arity(1, "digest"));
            case "prove" -> prove(arity(2, "prove KEY [--block N] --out FILE"));
            case "verify" -> verify(arity(2, "verify FILE [--digest BLOCK:HASH]"));
            case "evidence" -> evidence(arity(2, "evidence FILE [--server-key HEX]"));
            default -> throw new Usage("unknown command " + cmd);
        };
    }

    private List<String> arity(int n, String form) {
        if (args.size() != n) {
            throw new Usage("expected: " + form);
        }
        return args;
    }

    // ------------------------------------------------------------------ commands

    private int put(List<String> a) {
        Duration timeout = Duration.ofSeconds(longOpt("--timeout", 60));
        try (GlassLedgerClient c = connect()) {
            var txn = c.begin();
            txn.put(a.get(1), a.get(2));
            CommitPromise p = txn.commit();
            if (!json) {
                out.println("committed " + p);
            }
            VerificationOutcome o;
            try {
                o = p.verification().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                err.println("not verified within " + timeout.toSeconds() + " s: promise of block " + p.block()
                        + " is unchecked");
                return 1;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 1;
            } catch (ExecutionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
            }
            if (json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("txId", p.txId().hex());
                m.put("shard", p.promise().shard());
                m.put("block", p.block());
                m.put("served", digest(p.promise().served()));
                m.put("verifiedAt", digest(o.digest()));
                m.put("verifyMillis", o.latency().toMillis());
                printJson(m);
            } else {
                out.println(o);
            }
            return 0;
        }
    }

    private int get(List<String> a) {
        Long block = opts.containsKey("--block") ? longOpt("--block", 0) : null;
        try (GlassLedgerClient c = connect()) {
            ValueProof v = c.getProof(a.get(1).getBytes(StandardCharsets.UTF_8), block);
            if (json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("key", a.get(1));
                m.put("value", v.value() == null ? null : text(v.value()));
                m.put("block", v.block());
                m.put("digest", digest(v.digest()));
                printJson(m);
            } else {
                out.println(v.value() == null ? "(absent)" : text(v.value()));
                out.println("verified in the state of block " + v.block() + " against " + v.digest());
            }
            return 0;
        }
    }

    private int history(List<String> a) {
        int n = (int) longOpt("-n", 10);
        try (GlassLedgerClient c = connect()) {
            byte[] key = a.get(1).getBytes(StandardCharsets.UTF_8);
            List<Version> vs = c.history(key, n);
            Digest d = c.digest(c.shardOf(key));
            if (json) {
                List<Map<String, Object>> items = new ArrayList<>();
                for (Version v : vs) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("block", v.blockNo());
                    m.put("value", v.value() == null ? null : text(v.value()));
                    items.add(m);
                }
                printJson(Map.of("key", a.get(1), "versions", items, "trusted", digest(d)));
            } else {
                if (vs.isEmpty()) {
                    out.println("(never written)");
                }
                for (Version v : vs) {
                    out.println("block " + v.blockNo() + ": " + (v.value() == null ? "(deleted)" : text(v.value())));
                }
                out.println("verified; trusted digest " + d);
            }
            return 0;
        }
    }

    private int digest(List<String> a) {
        try (GlassLedgerClient c = connect()) {
            List<Map<String, Object>> all = new ArrayList<>();
            for (int shard = 0; shard < c.shards(); shard++) {
                all.add(digestOf(c, shard));
            }
            if (json) {
                printJson(all.size() == 1 ? all.get(0) : Map.of("shards", all));
            }
            return 0;
        }
    }

    private Map<String, Object> digestOf(GlassLedgerClient c, int shard) {
        {
            SignedHead h = c.head(shard);
            TrustedState s = c.trustedState(shard);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("signedHead", head(h));
            m.put("trusted", digest(s.digest()));
            if (!json) {
                out.println("signed head: shard " + h.shard() + ", block " + h.digest().blockNo() + ", hash "
                        + h.digest().root().hex() + ", timestamp " + java.time.Instant.ofEpochMilli(h.timestamp()));
                out.println("  server key " + h.serverKey().hex());
                out.println("  signature  " + h.signature().hex());
                out.println("trusted digest: " + s.digest().blockNo() + ":" + s.digest().root().hex());
            }
            return m;
        }
    }

    private int prove(List<String> a) {
        String file = opts.get("--out");
        if (file == null) {
            throw new Usage("prove needs --out FILE");
        }
        Long block = opts.containsKey("--block") ? longOpt("--block", 0) : null;
        try (GlassLedgerClient c = connect()) {
            ValueProof p = c.prove(a.get(1).getBytes(StandardCharsets.UTF_8), block);
            try {
                Files.write(Path.of(file), p.toJson());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + file, e);
            }
            if (json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("file", file);
                m.put("block", p.block());
                m.put("digest", digest(p.digest()));
                m.put("trusted", p.trusted() == null ? null : digest(p.trusted().digest()));
                printJson(m);
            } else {
                out.println("saved proof of " + a.get(1) + " = " + (p.value() == null ? "(absent)" : text(p.value()))
                        + " at block " + p.block() + " (digest " + p.digest() + ", signed head at block "
                        + p.signedHead().digest().blockNo() + (p.trusted() == null ? "" : ", linked to the digest "
                        + "trusted before, block " + p.trusted().digest().blockNo()) + ") to " + file);
            }
            return 0;
        }
    }

    private int verify(List<String> a) {
        Digest expected = opts.containsKey("--digest") ? parseDigest(opts.get("--digest")) : null;
        Bytes serverKey = opts.containsKey("--server-key") ? hexKey(opts.get("--server-key")) : null;
        ValueProof p;
        try {
            p = ValueProof.fromJson(Files.readAllBytes(Path.of(a.get(1))));
        } catch (IOException e) {
            err.println("error: cannot read " + a.get(1) + ": " + e.getMessage());
            return 1;
        } catch (IllegalArgumentException e) {
            return failed("the file is not a valid proof: " + e.getMessage());
        }
        try {
            p.verify(serverKey, expected);
        } catch (VerificationException e) {
            return failed(e.getMessage());
        }
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("verified", true);
            m.put("key", text(p.key()));
            m.put("value", p.value() == null ? null : text(p.value()));
            m.put("block", p.block());
            m.put("digest", digest(p.digest()));
            m.put("signedHead", head(p.signedHead()));
            m.put("trusted", p.trusted() == null ? null : digest(p.trusted().digest()));
            printJson(m);
        } else {
            out.println("verified: " + text(p.key()) + " = " + (p.value() == null ? "(absent)" : text(p.value()))
                    + " in the state of block " + p.block() + " of shard " + p.shard());
            out.println("  against digest " + p.digest().blockNo() + ":" + p.digest().root().hex());
            out.println("  signed by server key " + p.signedHead().serverKey().hex() + " at block "
                    + p.signedHead().digest().blockNo() + (serverKey == null ? " (key not pinned: --server-key)" : ""));
            if (p.trusted() != null) {
                out.println("  extending the digest trusted before, " + p.trusted().digest().blockNo() + ":"
                        + p.trusted().digest().root().hex());
            }
        }
        return 0;
    }

    /** An auditor's violation, checked with nothing but the file ({@link EvidenceCheck}). */
    private int evidence(List<String> a) {
        Bytes pinned = opts.containsKey("--server-key") ? hexKey(opts.get("--server-key")) : null;
        com.fasterxml.jackson.databind.JsonNode root;
        try {
            root = JSON.readTree(Files.readAllBytes(Path.of(a.get(1))));
        } catch (IOException e) {
            err.println("error: cannot read " + a.get(1) + ": " + e.getMessage());
            return 1;
        }
        EvidenceCheck.Result r = EvidenceCheck.check(root, pinned, JSON);
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("kind", r.kind());
            m.put("proven", r.proven() != null);
            m.put("conclusion", r.proven());
            m.put("findings", r.findings());
            printJson(m);
        } else {
            out.println("violation " + r.kind() + ": " + r.detail());
            r.findings().forEach(f -> out.println("  " + f));
            out.println(r.proven() != null ? r.proven() : "not proven by this file alone");
        }
        return r.proven() != null ? 0 : 1;
    }

    private int failed(String why) {
        if (json) {
            printJson(Map.of("verified", false, "error", why));
        } else {
            err.println("verification FAILED: " + why);
        }
        return 1;
    }

    // ------------------------------------------------------------------ helpers

    private GlassLedgerClient connect() {
        URI url = URI.create(setting("--url", "GLASSLEDGER_URL", "https://127.0.0.1:8443"));
        String apiKey = setting("--api-key", "GLASSLEDGER_API_KEY", null);
        if (apiKey == null) {
            throw new Usage("no API key: give --api-key or set GLASSLEDGER_API_KEY");
        }
        Path home = Path.of(System.getProperty("user.home"), ".glassledger");
        int port = url.getPort() > 0 ? url.getPort() : 443;
        String cluster = setting("--cluster", "GLASSLEDGER_CLUSTER", null);
        ClientConfig.Builder b = ClientConfig.builder().url(url).apiKey(apiKey)
                .pinnedCertSha256(setting("--pin", "GLASSLEDGER_PIN", null))
                .keyFile(opts.containsKey("--key-file") ? Path.of(opts.get("--key-file")) : home.resolve("client.key"))
                .stateFile(opts.containsKey("--state") ? Path.of(opts.get("--state"))
                        : home.resolve("state-" + url.getHost().replaceAll("[^A-Za-z0-9.-]", "_") + "-" + port
                                + ".json"))
                .violationHandler(violations::add);
        if (cluster != null) {
            Path file = Path.of(cluster).toAbsolutePath().normalize();
            b.clusterFile(file);
            URI first = ClientConfig.builder().clusterFile(file).apiKey("x").signingKey(
                    io.glassledger.core.crypto.SigningKey.generate()).build().url();
            if (!opts.containsKey("--state")) {
                b.stateFile(home.resolve("state-cluster-" + first.getHost().replaceAll("[^A-Za-z0-9.-]", "_") + "-"
                        + first.getPort() + ".json"));
            }
        }
        return GlassLedgerClient.connect(b.build());
    }

    private String setting(String option, String envName, String dflt) {
        String v = opts.get(option);
        if (v == null) {
            v = env.get(envName);
        }
        return v == null || v.isEmpty() ? dflt : v;
    }

    private long longOpt(String option, long dflt) {
        String v = opts.get(option);
        if (v == null) {
            return dflt;
        }
        try {
            long n = Long.parseLong(v);
            if (n < 0) {
                throw new Usage(option + " must not be negative");
            }
            return n;
        } catch (NumberFormatException e) {
            throw new Usage(option + " needs a number, got " + v);
        }
    }

    private static Digest parseDigest(String s) {
        int colon = s.indexOf(':');
        try {
            return new Digest(Long.parseLong(s.substring(0, colon)), Hash.fromHex(s.substring(colon + 1)));
        } catch (RuntimeException e) {
            throw new Usage("--digest must be BLOCK:HASH (64 hex digits), got " + s);
        }
    }

    private static Bytes hexKey(String s) {
        try {
            Bytes b = Bytes.fromHex(s);
            if (b.length() == 32) {
                return b;
            }
        } catch (RuntimeException e) {
            // reported below
        }
        throw new Usage("--server-key must be 64 hex digits");
    }

    /** UTF-8 text if the bytes are printable text, else {@code base64:...}. */
    static String text(Bytes b) {
        try {
            String s = StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(b.unsafeArray())).toString();
            if (s.codePoints().noneMatch(c -> Character.isISOControl(c) && c != '\t')) {
                return s;
            }
        } catch (java.nio.charset.CharacterCodingException e) {
            // not UTF-8
        }
        return "base64:" + Base64.getEncoder().encodeToString(b.unsafeArray());
    }

    private static Map<String, Object> digest(Digest d) {
        if (d == null) {
            return null;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("block", d.blockNo());
        m.put("hash", d.root().hex());
        return m;
    }

    private static Map<String, Object> head(SignedHead h) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("shard", h.shard());
        m.put("block", h.digest().blockNo());
        m.put("hash", h.digest().root().hex());
        m.put("timestamp", h.timestamp());
        m.put("serverKey", h.serverKey().hex());
        m.put("signature", h.signature().hex());
        return m;
    }

    private void printJson(Object o) {
        try {
            out.println(JSON.writeValueAsString(o));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void printViolation(IntegrityViolation v) {
        violations.remove(v);
        err.println("INTEGRITY VIOLATION (" + v.kind() + "): " + v.evidence().message());
        try {
            err.println(JSON.writeValueAsString(v.evidence().toMap()));
        } catch (IOException e) {
            err.println(v.evidence());
        }
    }
}
