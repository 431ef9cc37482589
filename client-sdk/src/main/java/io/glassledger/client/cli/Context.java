package io.glassledger.client.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.glassledger.client.ClientConfig;
import io.glassledger.client.GlassLedgerClient;
import io.glassledger.client.IntegrityViolation;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.SignedHead;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/** One run of the CLI: its streams, environment, command line, connection settings and the violations it saw. */
final class Context {
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    final PrintStream out;
    final PrintStream err;
    final InputStream in;
    final Map<String, String> env;
    final Args args;
    final boolean json;
    /** Violations reported by the SDK's handler (background checks included), in order. */
    final List<IntegrityViolation> violations = new CopyOnWriteArrayList<>();
    private Settings settings;

    Context(PrintStream out, PrintStream err, InputStream in, Map<String, String> env, Args args) {
        this.out = out;
        this.err = err;
        this.in = in;
        this.env = env;
        this.args = args;
        this.json = args.json;
    }

    /** The connection settings, resolved on first use (offline commands never need them). */
    Settings settings() {
        if (settings == null) {
            settings = Settings.resolve(args, env);
        }
        return settings;
    }

    /** The settings if a command resolved them, else null. */
    Settings resolvedSettings() {
        return settings;
    }

    GlassLedgerClient connect() {
        return connect(b -> b);
    }

    /** Connects with the settings' configuration as {@code tune} changes it (a command's own options). */
    GlassLedgerClient connect(java.util.function.UnaryOperator<ClientConfig.Builder> tune) {
        return GlassLedgerClient.connect(tune.apply(settings().config()).violationHandler(violations::add).build());
    }

    void printJson(Object o) {
        try {
            out.println(JSON.writeValueAsString(o));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** UTF-8 text if the bytes are printable text, else {@code base64:...}. */
    static String text(Bytes b) {
        try {
            String s = StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(b.unsafeArray()))
                    .toString();
            if (s.codePoints().noneMatch(c -> Character.isISOControl(c) && c != '\t')) {
                return s;
            }
        } catch (java.nio.charset.CharacterCodingException e) {
            // not UTF-8
        }
        return "base64:" + Base64.getEncoder().encodeToString(b.unsafeArray());
    }

    static Map<String, Object> digest(Digest d) {
        if (d == null) {
            return null;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("block", d.blockNo());
        m.put("hash", d.root().hex());
        return m;
    }

    static Map<String, Object> head(SignedHead h) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("shard", h.shard());
        m.put("block", h.digest().blockNo());
        m.put("hash", h.digest().root().hex());
        m.put("timestamp", h.timestamp());
        m.put("serverKey", h.serverKey().hex());
        m.put("signature", h.signature().hex());
        return m;
    }
}
