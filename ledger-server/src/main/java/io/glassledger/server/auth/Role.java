package io.glassledger.server.auth;

import java.util.Locale;

/** What an API key may do (docs/API.md "Authentication and roles"). */
public enum Role {
    CLIENT, AUDITOR, ADMIN,
    /** Another shard of the cluster, with the cluster's peer key: may only ask for 2PC outcomes. */
    PEER;

    public static Role parse(String s) {
        try {
            return valueOf(s.trim().toUpperCase(Locale.ROOT));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("role must be client, auditor, admin or peer");
        }
    }

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
