package io.glassledger.client.cli;

import io.glassledger.client.GlassLedgerException;
import io.glassledger.client.IntegrityViolation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertificateException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;

/**
 * The one place that turns what went wrong into what the user reads and the exit status ({@link Exit}): one or two
 * lines saying what happened and what to do next. Stack traces and Java exception names stay out of it; an
 * integrity violation's evidence goes to a file (and to stdout with {@code --json}), never into the terminal.
 */
final class Failures {
    private static final Pattern SERVER = Pattern.compile("https?://[^/\\s:]+(?::\\d+)?");
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    private final Context cx;
    private final java.util.List<IntegrityViolation> reported = new java.util.ArrayList<>();

    Failures(Context cx) {
        this.cx = cx;
    }

    /** Reports {@code t} and returns the exit status; with {@code --debug}, its whole cause chain follows. */
    int report(Throwable t) {
        int status = describe(t);
        if (cx.args.debug) {
            cx.err.println("--debug: the failure's cause chain:");
            t.printStackTrace(cx.err);
        }
        return status;
    }

    private int describe(Throwable t) {
        if (t instanceof IntegrityViolation v) {
            violation(v);
            return Exit.VIOLATION;
        }
        if (t instanceof GlassLedgerException e) {
            return refusalOrTransport(e);
        }
        if (t instanceof UncheckedIOException e) {
            cx.err.println("error: " + e.getMessage() + (e.getCause() == null ? "" : ": " + e.getCause().getMessage()));
            return Exit.FAILED;
        }
        cx.err.println("error: " + (t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName()));
        return Exit.FAILED;
    }

    private int refusalOrTransport(GlassLedgerException e) {
        if (cx.json) {
            // Scripts get the problem as data on stdout; the words below still go to stderr.
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("error", e.code());
            m.put("status", e.status());
            m.put("retryable", e.retryable());
            m.put("detail", e.detail());
            cx.printJson(m);
        }
        Settings settings = cx.resolvedSettings();
        if ("wrong_shard".equals(e.code()) && (settings == null || settings.cluster == null)) {
            // One member of a sharded cluster, given by --url: the command line is what is wrong.
            cx.err.println("error: " + e.detail());
            cx.err.println("  This server is one shard of a cluster: give the cluster instead of one URL, with "
                    + "--cluster FILE (or GLASSLEDGER_CLUSTER), the cluster.properties that ./glassledger cluster "
                    + "start wrote, so that each key goes to its shard");
            return Exit.USAGE;
        }
        if (e.status() > 0) {
            cx.err.println("refused by the server: " + e.code() + " (HTTP " + e.status() + "): " + e.detail());
            String hint = switch (e.code()) {
                case "unauthenticated" -> "the API key is not known to this server: check --api-key or "
                        + "GLASSLEDGER_API_KEY (an admin lists the keys with: ledger-cli admin list-keys)";
                case "forbidden" -> "this API key's role may not do that (roles: docs/API.md, \"Authentication and "
                        + "roles\")";
                case "wrong_client_key" -> "sign with the key file registered for this identity (--key-file), or use "
                        + "an identity of your own (an admin: ledger-cli admin create-key NAME --role client)";
                case "stale_shard_map", "wrong_shard" -> "the cluster's shard map changed: use its current "
                        + "cluster.properties (--cluster)";
                case "too_large", "response_too_large" -> "ask for less: a smaller value, fewer keys or items";
                case "conflict" -> "another transaction changed a key this one read, or holds a key it uses "
                        + "(prepared): retryable, run it again with fresh reads";
                default -> e.retryable() ? "retryable: try again" + (e.retryAfter() == null ? " shortly"
                        : " in " + e.retryAfter().toSeconds() + " s") : null;
            };
            if (hint != null) {
                cx.err.println("  " + hint);
            }
            return Exit.REFUSED;
        }
        if (GlassLedgerException.ABORTED.equals(e.code())) {
            // Decided by the primary shard of a cross-shard transaction, not by this client: a refusal too.
            cx.err.println("aborted: " + e.detail());
            cx.err.println("  its primary shard decided so: nothing of it was applied; retryable: run it again");
            return Exit.REFUSED;
        }
        if (GlassLedgerException.TRANSPORT.equals(e.code())) {
            cx.err.println("error: " + transport(e));
            return Exit.TRANSPORT;
        }
        cx.err.println("error: " + e.code() + ": " + e.detail());
        return Exit.FAILED;
    }

    /** No answer: which server, and the likely cause in words. */
    private String transport(GlassLedgerException e) {
        Matcher m = SERVER.matcher(String.valueOf(e.detail()));
        String server = m.find() ? m.group() : "the server";
        Settings s = cx.resolvedSettings();
        for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
            if (c instanceof CertPathBuilderException || (c instanceof SSLException
                    && String.valueOf(c.getMessage()).contains("PKIX"))) {
                return "the TLS certificate of " + server + " is not trusted, and no pin was given.\n"
                        + "  Pin the server's certificate with --pin SHA256 or GLASSLEDGER_PIN: a server prints its "
                        + "fingerprint at start (\"TLS certificate SHA-256 (pin it): ...\") and writes it to "
                        + "<data-dir>/pin.txt (export GLASSLEDGER_PIN=$(cat data/pin.txt)).\n"
                        + "  For a cluster, pass --cluster with the cluster.properties that ./glassledger cluster "
                        + "start wrote: it holds the pin.";
            }
            if (c instanceof CertificateException && String.valueOf(c.getMessage()).contains("SHA-256")) {
                return "the TLS certificate of " + server + " is not the pinned one (pin from "
                        + (s == null || s.pin == null ? "?" : s.pin.source()) + "): " + c.getMessage() + ".\n"
                        + "  Pin the fingerprint this server printed at start, or check the URL";
            }
            if (c instanceof ConnectException) {
                return "cannot reach " + server + ": connection refused. Is the server running, and is the URL right "
                        + "(--url, GLASSLEDGER_URL or the cluster file)?";
            }
            if (c instanceof HttpTimeoutException) {
                return server + " did not answer in time (" + c.getMessage() + "); it may be overloaded or "
                        + "unreachable";
            }
            if (c instanceof UnknownHostException || c instanceof java.nio.channels.UnresolvedAddressException) {
                return "cannot resolve the host of " + server + ": check the URL";
            }
        }
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return "cannot reach " + server + ": " + (root.getMessage() != null ? root.getMessage()
                : root.getClass().getSimpleName());
    }

    /**
     * An integrity violation: one line of what, one of what to do, the evidence in a file beside the trusted state
     * (and on stdout with {@code --json}). Starting afresh is left to the user, deliberately: never automatic.
     */
    void violation(IntegrityViolation v) {
        cx.violations.remove(v);
        if (reported.contains(v)) {
            return;
        }
        reported.add(v);
        Path file = writeEvidence(v);
        cx.err.println("INTEGRITY VIOLATION (" + v.kind() + "): " + v.evidence().message());
        cx.err.println("  " + advice(v));
        cx.err.println("  evidence: " + (file != null ? file : "(could not be written; use --json to print it)"));
        if (cx.json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("error", "integrity_violation");
            m.put("kind", v.kind().name());
            m.put("evidenceFile", file == null ? null : file.toString());
            m.put("evidence", v.evidence().toMap());
            cx.printJson(m);
        }
    }

    private String advice(IntegrityViolation v) {
        Settings s = cx.resolvedSettings();
        String state = s == null ? "the trusted state file" : s.stateFile.toString();
        if (v.kind() == IntegrityViolation.Kind.SERVER_IDENTITY) {
            return "This client trusts another server's history (" + state + "). If the server was deliberately "
                    + "reset or replaced, start afresh with: ledger-cli trust reset (keeps the old file), or use "
                    + "--state NEWFILE; otherwise keep the evidence and ask the operator";
        }
        return "The server contradicted what this client verified before (" + state + "): keep the evidence and "
                + "report it to the operator or an auditor; do not reset the trusted state unless you know why";
    }

    private Path writeEvidence(IntegrityViolation v) {
        Settings s = cx.resolvedSettings();
        Path dir = (s == null ? Path.of(System.getProperty("user.home"), ".glassledger")
                : s.stateFile.toAbsolutePath().getParent()).resolve("violations");
        Path file = dir.resolve(v.kind().name().toLowerCase(java.util.Locale.ROOT) + "-shard" + v.evidence().shard()
                + "-" + STAMP.format(Instant.now()) + ".json");
        try {
            Files.createDirectories(dir);
            Files.write(file, Context.JSON.writeValueAsBytes(v.evidence().toMap()));
            return file;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
