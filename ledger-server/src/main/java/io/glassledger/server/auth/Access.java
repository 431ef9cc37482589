package io.glassledger.server.auth;

import java.util.EnumSet;
import java.util.Set;

/**
 * Who may call a handler: anyone ({@link #PUBLIC}), the API keys of some roles, or no one ({@link #DENIED}, what a
 * handler without a declaration gets).
 */
record Access(boolean isPublic, Set<Role> roles) {
    static final Access PUBLIC = new Access(true, Set.of());
    static final Access DENIED = new Access(false, Set.of());

    Access {
        roles = roles.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(roles));
    }

    static Access of(Role... roles) {
        return new Access(false, Set.of(roles));
    }

    boolean permits(Role role) {
        return roles.contains(role);
    }
}
