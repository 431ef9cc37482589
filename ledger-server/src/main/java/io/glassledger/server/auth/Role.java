package io.glassledger.server.auth;

import java.util.Locale;

/** What an API key may do (docs/API.md "Authentication and roles"). */
public enum Role {
    CLIENT, AUDITOR, ADMIN;

    public static Role parse(String s) {
        try {
            return valueOf(s.trim().toUpperCase(Locale.ROOT));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("role must be client, auditor or admin");
        }
    }

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
