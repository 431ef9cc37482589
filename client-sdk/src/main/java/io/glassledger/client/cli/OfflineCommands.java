package io.glassledger.client.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.glassledger.client.ValueProof;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.hash.Hash;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.VerificationException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** The commands that need no server: {@code verify} a saved proof, check an auditor's {@code evidence}. */
final class OfflineCommands {
    private final Context cx;
    private final Args a;

    OfflineCommands(Context cx) {
        this.cx = cx;
        this.a = cx.args;
    }

    int verify() {
        String name = a.arity(2, "verify FILE [--digest BLOCK:HASH] [--server-key HEX]").get(1);
        Digest expected = a.has("--digest") ? parseDigest(a.opt("--digest")) : null;
        Bytes serverKey = a.has("--server-key") ? hexKey(a.opt("--server-key")) : null;
        ValueProof p;
        try {
            p = ValueProof.fromJson(Files.readAllBytes(Path.of(name)));
        } catch (IOException e) {
            cx.err.println("error: cannot read " + name + ": " + e.getMessage());
            return Exit.FAILED;
        } catch (IllegalArgumentException e) {
            return failed("the file is not a valid proof: " + e.getMessage());
        }
        try {
            p.verify(serverKey, expected);
        } catch (VerificationException e) {
            return failed(e.getMessage());
        }
        if (cx.json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("verified", true);
            m.put("key", Context.text(p.key()));
            m.put("value", p.value() == null ? null : Context.text(p.value()));
            m.put("block", p.block());
            m.put("digest", Context.digest(p.digest()));
            m.put("signedHead", Context.head(p.signedHead()));
            m.put("trusted", p.trusted() == null ? null : Context.digest(p.trusted().digest()));
            cx.printJson(m);
        } else {
            cx.out.println("verified: " + Context.text(p.key()) + " = " + (p.value() == null ? "(absent)"
                    : Context.text(p.value())) + " in the state of block " + p.block() + " of shard " + p.shard());
            cx.out.println("  against digest " + p.digest().blockNo() + ":" + p.digest().root().hex());
            cx.out.println("  signed by server key " + p.signedHead().serverKey().hex() + " at block "
                    + p.signedHead().digest().blockNo());
            if (serverKey == null) {
                // Without a pinned key the file is only consistent with itself: whoever made it signed it.
                cx.out.println("  note: that key was taken from the file itself, so this shows only that the file is "
                        + "consistent, not that the shard's server signed it. Pass --server-key HEX, the shard's key "
                        + "(\"serverKey\" of GET /v1/info, or ledger-cli digest), to check that");
            }
            if (p.trusted() != null) {
                cx.out.println("  extending the digest trusted before, " + p.trusted().digest().blockNo() + ":"
                        + p.trusted().digest().root().hex());
            }
        }
        return Exit.OK;
    }

    /** An auditor's violation, checked with nothing but the file ({@link EvidenceCheck}). */
    int evidence() {
        String name = a.arity(2, "evidence FILE [--server-key HEX]").get(1);
        Bytes pinned = a.has("--server-key") ? hexKey(a.opt("--server-key")) : null;
        JsonNode root;
        try {
            root = Context.JSON.readTree(Files.readAllBytes(Path.of(name)));
        } catch (IOException e) {
            cx.err.println("error: cannot read " + name + ": " + e.getMessage());
            return Exit.FAILED;
        }
        EvidenceCheck.Result r = EvidenceCheck.check(root, pinned, Context.JSON);
        if (cx.json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("kind", r.kind());
            m.put("proven", r.proven() != null);
            m.put("conclusion", r.proven());
            m.put("findings", r.findings());
            cx.printJson(m);
        } else {
            cx.out.println("violation " + r.kind() + ": " + r.detail());
            r.findings().forEach(f -> cx.out.println("  " + f));
            cx.out.println(r.proven() != null ? r.proven() : "not proven by this file alone");
        }
        return r.proven() != null ? Exit.OK : Exit.FAILED;
    }

    private int failed(String why) {
        if (cx.json) {
            cx.printJson(Map.of("verified", false, "error", why));
        } else {
            cx.err.println("verification FAILED: " + why);
        }
        return Exit.FAILED;
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
}
