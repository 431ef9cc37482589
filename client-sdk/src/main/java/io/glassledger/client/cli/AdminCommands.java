package io.glassledger.client.cli;

import io.glassledger.api.Dto;
import io.glassledger.client.AdminClient;
import io.glassledger.client.ClientConfig;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code ledger-cli admin ...}: API keys for identities, with an {@code admin} API key (docs/API.md, "Client keys").
 * These never register a signing key and keep no trusted state: they verify nothing, they manage access.
 */
final class AdminCommands {
    static final List<String> ROLES = List.of("client", "auditor", "admin");

    private final Context cx;
    private final Args a;

    AdminCommands(Context cx) {
        this.cx = cx;
        this.a = cx.args;
    }

    int run() {
        if (a.words.size() < 2) {
            throw new Usage("expected: admin create-key ID --role ROLE | admin list-keys | admin revoke-key KEYID");
        }
        return switch (a.word(1)) {
            case "create-key" -> createKey();
            case "list-keys" -> listKeys();
            case "revoke-key" -> revokeKey();
            default -> throw new Usage("unknown admin command " + a.word(1)
                    + " (create-key, list-keys, revoke-key)");
        };
    }

    private AdminClient connect() {
        Settings s = cx.settings();
        if (s.cluster != null) {
            // Each shard keeps its own API keys and would mint a different key: one identity needs one key.
            throw new Usage("admin commands act on one server (--url): a cluster's shards each keep their own API "
                    + "keys, so a key made on one is unknown to the others");
        }
        return AdminClient.connect(s.url, s.requireApiKey(), s.pin == null ? null : s.pin.value(),
                ClientConfig.DEFAULT_REQUEST_TIMEOUT);
    }

    private int createKey() {
        String id = a.arity(3, "admin create-key ID --role client|auditor|admin").get(2);
        String role = a.opt("--role");
        if (role == null || !ROLES.contains(role)) {
            throw new Usage("admin create-key needs --role client, auditor or admin");
        }
        if (!id.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new Usage("an identity is 1-64 of A-Z a-z 0-9 . _ -, got " + id);
        }
        try (AdminClient admin = connect()) {
            Dto.ApiKeyResponse r = admin.createKey(id, role);
            if (cx.json) {
                cx.printJson(r);
            } else {
                cx.out.println(r.apiKey());
                cx.err.println("API key " + r.keyId() + " for identity " + r.clientId() + " (" + r.role() + "); it is "
                        + "shown once. Use it with --api-key or GLASSLEDGER_API_KEY, and a key file of its own "
                        + "(--key-file): the identity registers the first Ed25519 key that uses it, for good");
            }
            return Exit.OK;
        }
    }

    private int listKeys() {
        a.arity(2, "admin list-keys");
        try (AdminClient admin = connect()) {
            List<Dto.ApiKeyDto> keys = admin.listKeys();
            if (cx.json) {
                cx.printJson(keys);
            } else {
                cx.out.printf("%-16s  %-24s  %-7s  %s%n", "KEYID", "IDENTITY", "ROLE", "SIGNING KEY (Ed25519)");
                for (Dto.ApiKeyDto k : keys) {
                    cx.out.printf("%-16s  %-24s  %-7s  %s%n", k.keyId(), k.clientId(), k.role(),
                            k.publicKey() == null ? "(none registered)" : k.publicKey());
                }
            }
            return Exit.OK;
        }
    }

    private int revokeKey() {
        String keyId = a.arity(3, "admin revoke-key KEYID").get(2);
        if (!keyId.matches("[0-9a-f]{16}")) {
            throw new Usage("a key id is 16 hex digits, as admin list-keys shows them; got " + keyId);
        }
        try (AdminClient admin = connect()) {
            Dto.ApiKeyDto k = admin.revokeKey(keyId);
            if (cx.json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("revoked", k);
                cx.printJson(m);
            } else {
                cx.out.println("revoked API key " + k.keyId() + " of " + k.clientId() + " (" + k.role() + ")"
                        + (k.publicKey() == null ? "" : "; its identity's signing key stays registered, so its "
                        + "past signatures remain checkable"));
            }
            return Exit.OK;
        }
    }
}
