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
            throw new Usage("expected: admin create-key ID --role ROLE | admin list-keys | admin revoke-key KEYID"
                    + " | admin replicas | admin add-replica ID --raft HOST:PORT --replica-url URL"
                    + " | admin remove-replica ID");
        }
        return switch (a.word(1)) {
            case "create-key" -> createKey();
            case "list-keys" -> listKeys();
            case "revoke-key" -> revokeKey();
            case "replicas" -> replicas();
            case "add-replica" -> addReplica();
            case "remove-replica" -> removeReplica();
            default -> throw new Usage("unknown admin command " + a.word(1)
                    + " (create-key, list-keys, revoke-key, replicas, add-replica, remove-replica)");
        };
    }

    /**
     * A replicated shard's admin API: with --cluster, shard {@code --shard N}'s replicas (its leader is found among
     * them); with --url, that server.
     */
    private AdminClient connectShard() {
        Settings s = cx.settings();
        if (s.cluster == null) {
            return AdminClient.connect(s.url, s.requireApiKey(), s.pin == null ? null : s.pin.value(),
                    ClientConfig.DEFAULT_REQUEST_TIMEOUT);
        }
        String n = a.opt("--shard");
        int shard;
        try {
            shard = n == null ? 0 : Integer.parseInt(n);
        } catch (NumberFormatException e) {
            throw new Usage("--shard takes a shard number, got " + n);
        }
        ClientConfig c = ClientConfig.builder().clusterFile(s.cluster).apiKey(s.requireApiKey())
                .signingKey(io.glassledger.verify.crypto.SigningKey.generate()).build();
        if (shard < 0 || shard >= c.shards().size()) {
            throw new Usage("--shard: the cluster has shards 0 to " + (c.shards().size() - 1));
        }
        return AdminClient.connect(c.replicas(shard), s.requireApiKey(), c.pinnedCertSha256(),
                ClientConfig.DEFAULT_REQUEST_TIMEOUT);
    }

    private int printReplicas(Dto.ReplicasResponse r) {
        if (cx.json) {
            cx.printJson(r);
        } else {
            cx.out.printf("shard %d, term %d, commit index %d (as replica %s sees it)%n", r.shard(), r.term(),
                    r.commitIndex(), r.self());
            for (Dto.ReplicaDto p : r.replicas()) {
                cx.out.printf("  %-5s %-8s %-22s %s%n", p.id(), p.role(), p.raft(), p.url());
            }
        }
        return Exit.OK;
    }

    private int replicas() {
        a.arity(2, "admin replicas [--shard N]");
        try (AdminClient admin = connectShard()) {
            return printReplicas(admin.replicas());
        }
    }

    private int addReplica() {
        String id = a.arity(3, "admin add-replica ID --raft HOST:PORT --replica-url URL [--shard N]").get(2);
        String raft = a.opt("--raft");
        String url = a.opt("--replica-url");
        if (raft == null || url == null) {
            throw new Usage("admin add-replica needs --raft HOST:PORT and --replica-url https://HOST:PORT");
        }
        try (AdminClient admin = connectShard()) {
            return printReplicas(admin.addReplica(id, raft, url));
        }
    }

    private int removeReplica() {
        String id = a.arity(3, "admin remove-replica ID [--shard N]").get(2);
        try (AdminClient admin = connectShard()) {
            return printReplicas(admin.removeReplica(id));
        }
    }

    /**
     * The API-key admin API: with --url, that server; with --cluster, a member of shard {@code --shard N} (default 0):
     * a cluster's keys live in its directory, so a key made, listed or revoked at any member holds at every member
     * of every shard.
     */
    private AdminClient connect() {
        return connectShard();
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
