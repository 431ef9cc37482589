package io.glassledger.server.auth;

import org.springframework.web.server.ServerWebExchange;

/** The authenticated caller of a request. */
public record Principal(String clientId, Role role) {
    static final String ATTRIBUTE = "glassledger.principal";

    public static Principal of(ServerWebExchange exchange) {
        Principal p = exchange.getAttribute(ATTRIBUTE);
        if (p == null) {
            throw new IllegalStateException("request was not authenticated");
        }
        return p;
    }
}
