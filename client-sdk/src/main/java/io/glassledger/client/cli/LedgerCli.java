package io.glassledger.client.cli;

import io.glassledger.client.IntegrityViolation;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;

/**
 * {@code ledger-cli}: commits and verified reads against a GlassLedger server, offline checks of saved proofs, and
 * API-key administration. This class parses and dispatches; the commands live in {@link DataCommands},
 * {@link TxCommand}, {@link OfflineCommands}, {@link AdminCommands} and {@link TrustCommands}, where to connect in
 * {@link Settings}, and every failure is worded and given its exit status ({@link Exit}) by {@link Failures}. Keys
 * and values on the command line are UTF-8; a value that is not printable text is shown as {@code base64:...}.
 */
public final class LedgerCli {
    static final String USAGE = """
            usage: ledger-cli [options] COMMAND ...
              put KEY VALUE | put KEY --file PATH | put KEY -
                                                 commit a one-put transaction (the value from the command line, a
                                                 file, or stdin with -, byte for byte), wait for its promise to verify
              delete KEY                         commit a deletion, wait for its promise to verify
              tx OP... | tx --file PATH          one transaction, on one shard or across several: OPs in order, each
                                                 get KEY, put KEY VALUE or delete KEY (a get after a write of its key
                                                 returns that write); or from a JSON file (- for stdin):
                                                 {"ops":[{"op":"get","key":"a"},{"op":"put","key":"b","value":"v"},
                                                 {"op":"delete","key":"c"}]} (keyBase64, valueBase64 for bytes).
                                                 Refused as a conflict (a key read changed since) or overloaded, it
                                                 runs again with fresh reads, up to --retries N times (default 8),
                                                 then exits 5. Waits for the promise to verify, then prints the
                                                 values read, each proven by that check
              get KEY [--block N] [--out PATH]   the key's value, verified (latest persisted block by default);
                                                 --out writes the raw bytes to PATH
              scan [FROM [TO]] [--limit N] [--block N]
                                                 keys in [FROM, TO) of every shard (default 100); each value is
                                                 verified by a proof, but the API cannot prove that none is missing
              history KEY [-n N]                 the key's last N versions (default 10), verified
              digest                             fetch and verify the signed head; show it and the trusted digest
              prove KEY [--block N] --out FILE   save a self-contained proof of the key's value
              verify FILE [--digest BLOCK:HASH] [--server-key HEX]
                                                 check a saved proof offline (no server)
              evidence FILE [--server-key HEX]   check an auditor's violation (a line of violations.jsonl) offline:
                                                 exit 0 only if it proves the shard misbehaved
              trust reset                        move this server's trusted state aside (after a deliberate server
                                                 reset): the next command trusts the server as it is then
              admin create-key ID --role client|auditor|admin
                                                 a new API key for identity ID (printed once; needs an admin key;
                                                 with --cluster it works at every member of every shard)
              admin list-keys                    every API key's id, identity, role and registered signing key
              admin revoke-key KEYID             the key stops working; its identity's signing key stays registered
              admin replicas [--shard N]         a replicated shard's Raft group: each replica's id, role, Raft
                                                 address and URL (with --cluster: shard N's, default 0)
              admin add-replica ID --raft HOST:PORT --replica-url URL [--shard N]
                                                 add a started replica to the group, at its leader
              admin remove-replica ID [--shard N]  remove a replica from the group, at its leader
            options (environment):
              --url URL          (GLASSLEDGER_URL, default https://127.0.0.1:8443)
              --cluster FILE     (GLASSLEDGER_CLUSTER) a cluster's shard map, URLs and pin, as written by
                                 ./glassledger cluster start (cluster/cluster.properties); instead of --url
              --api-key KEY      (GLASSLEDGER_API_KEY)
              --pin SHA256       (GLASSLEDGER_PIN) SHA-256 of the server's certificate (printed at its start);
                                 default: the JDK's trust
              --key-file FILE    your Ed25519 signing key, default ~/.glassledger/client.key (created, mode 600)
              --state FILE       trusted state, default ~/.glassledger/state-<host>-<port>.json
              --timeout SECONDS  how long put, delete and tx wait for verification (default 60)
              --json             machine-readable output (with a violation: its evidence too)
              --debug            also print the HTTP transport's log lines and a failure's whole cause chain
            A flag overrides its environment variable. A cluster file's URLs and pin must agree with any URL or pin
            also given (by flag or environment): a contradiction is refused, naming both.
            exit status: 0 done; 1 failed (a proof or evidence file that does not verify, a local file error, not
              verified in time, get --out of an absent key, a cross-shard tx left incomplete or of unknown outcome);
              2 usage error (also: --url names one shard of a cluster); 3 INTEGRITY VIOLATION (evidence saved under
              violations/ beside the trusted state); 4 server not reachable (connection, TLS, pin, timeout);
              5 refused by the server (its problem code is printed; for tx also a conflict left after its retries,
              or a cross-shard tx its primary aborted)""";

    private LedgerCli() {
    }

    public static void main(String[] argv) {
        quietTransportLogs(List.of(argv).contains("--debug"));
        int status = run(argv, System.out, System.err, System.in, System.getenv());
        // The transport's threads end before the JVM does, which otherwise waits about 0.3 s for them (Transport).
        io.glassledger.client.Transport.shutdown(java.time.Duration.ofSeconds(2));
        System.exit(status);
    }

    /**
     * The CLI reports every failure itself, in one or two lines ({@link Failures}); the HTTP transport's own log
     * lines (Reactor Netty's "The connection observed an error", with a stack trace of 50 lines, for each failed TLS
     * handshake or reset connection) would only bury them. Reactor logs to its console logger when no SLF4J is on
     * the class path, as here: it is switched to java.util.logging, where Reactor's and Netty's loggers are off, or
     * at WARNING with {@code --debug}. Before any Reactor class logs.
     */
    static void quietTransportLogs(boolean debug) {
        reactor.util.Loggers.useJdkLoggers();
        for (String name : new String[] {"reactor", "io.netty"}) {
            java.util.logging.Logger l = java.util.logging.Logger.getLogger(name);
            l.setLevel(debug ? java.util.logging.Level.WARNING : java.util.logging.Level.OFF);
            QUIET.add(l);
        }
    }

    /** Held so that the loggers set in {@link #quietTransportLogs} (and their levels) are not collected. */
    private static final java.util.List<java.util.logging.Logger> QUIET = new java.util.ArrayList<>();

    /** Runs one command with no stdin; returns the exit status. */
    public static int run(String[] argv, PrintStream out, PrintStream err, Map<String, String> env) {
        return run(argv, out, err, InputStream.nullInputStream(), env);
    }

    /** Runs one command; returns the exit status ({@link Exit}). */
    public static int run(String[] argv, PrintStream out, PrintStream err, InputStream in, Map<String, String> env) {
        if (argv.length == 1 && argv[0].equals("--version")) {
            out.println(io.glassledger.api.Version.line("ledger-cli"));
            return 0;
        }
        Args args;
        try {
            args = Args.parse(argv);
        } catch (Usage u) {
            return usage(u, out, err);
        }
        Context cx = new Context(out, err, in, env, args);
        Failures failures = new Failures(cx);
        int status;
        try {
            status = dispatch(cx);
        } catch (Usage u) {
            return usage(u, out, err);
        } catch (RuntimeException e) {
            status = failures.report(e);
        }
        // A violation found on a background path and not already reported above is still shown, and decides.
        for (IntegrityViolation v : List.copyOf(cx.violations)) {
            failures.violation(v);
            status = Exit.VIOLATION;
        }
        return status;
    }

    private static int usage(Usage u, PrintStream out, PrintStream err) {
        if (u == Usage.HELP) {
            out.println(USAGE);
            return Exit.OK;
        }
        err.println("ledger-cli: " + u.getMessage());
        err.println("(ledger-cli --help lists the commands and options)");
        return Exit.USAGE;
    }

    private static int dispatch(Context cx) {
        String cmd = cx.args.word(0);
        return switch (cmd) {
            case "put" -> new DataCommands(cx).put();
            case "delete" -> new DataCommands(cx).delete();
            case "tx" -> new TxCommand(cx).run();
            case "get" -> new DataCommands(cx).get();
            case "scan" -> new DataCommands(cx).scan();
            case "history" -> new DataCommands(cx).history();
            case "digest" -> new DataCommands(cx).digest();
            case "prove" -> new DataCommands(cx).prove();
            case "verify" -> new OfflineCommands(cx).verify();
            case "evidence" -> new OfflineCommands(cx).evidence();
            case "trust" -> new TrustCommands(cx).run();
            case "admin" -> new AdminCommands(cx).run();
            default -> throw new Usage("unknown command " + cmd);
        };
    }
}
