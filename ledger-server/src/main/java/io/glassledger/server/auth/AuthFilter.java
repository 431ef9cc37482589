package io.glassledger.server.auth;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.glassledger.server.api.Problems;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Authenticates every request but health and the OpenAPI document with {@code Authorization: Bearer <api key>},
 * and checks the role against the route (docs/API.md "Authentication and roles").
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 10)
class AuthFilter implements WebFilter {
    private final AuthStore store;
    private final ObjectMapper json;
    private final long mapVersion;

    AuthFilter(AuthStore store, ObjectMapper json, io.glassledger.server.LedgerProperties props) {
        this.store = store;
        this.json = json;
        this.mapVersion = props.cluster().mapVersion();
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        String path = exchange.getRequest().getPath().pathWithinApplication().value();
        if (path.startsWith("/actuator/health") || path.startsWith("/v3/api-docs")) {
            return chain.filter(exchange);
        }
        String h = exchange.getRequest().getHeaders().getFirst(HttpHeaders.AUTHORIZATION);
        if (h == null || !h.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return refuse(exchange, "unauthenticated", HttpStatus.UNAUTHORIZED, "missing Authorization: Bearer <api key>");
        }
        Optional<Principal> p = store.authenticate(h.substring(7).trim());
        if (p.isEmpty()) {
            return refuse(exchange, "unauthenticated", HttpStatus.UNAUTHORIZED, "unknown API key");
        }
        if (!allowed(p.get().role(), exchange.getRequest().getMethod(), path)) {
            return refuse(exchange, "forbidden", HttpStatus.FORBIDDEN, "role " + p.get().role().wire()
                    + " may not " + exchange.getRequest().getMethod() + " " + path);
        }
        String routed = exchange.getRequest().getHeaders().getFirst(io.glassledger.api.Wire.SHARD_MAP_HEADER);
        if (routed != null && !routed.trim().equals(Long.toString(mapVersion))) {
            return refuse(exchange, "stale_shard_map", HttpStatus.CONFLICT, "the request was routed with shard map "
                    + "version " + routed.trim() + "; this cluster's map is version " + mapVersion
                    + " (GET /v1/info)");
        }
        exchange.getAttributes().put(Principal.ATTRIBUTE, p.get());
        return chain.filter(exchange);
    }

    static boolean allowed(Role role, HttpMethod method, String path) {
        if (role == Role.ADMIN) {
            return true;
        }
        if (role == Role.PEER) {
            return path.startsWith("/v1/tx/") && (path.endsWith("/resolve") && HttpMethod.POST.equals(method)
                    || HttpMethod.GET.equals(method)) || path.equals("/v1/info");
        }
        if (path.endsWith("/resolve")) {
            return false;
        }
        if (path.startsWith("/v1/admin") || path.startsWith("/actuator")) {
            return role == Role.AUDITOR && path.startsWith("/actuator/prometheus");
        }
        if (role == Role.CLIENT) {
            return true;
        }
        // Auditors read: any GET, and the POST endpoints that only read.
        return HttpMethod.GET.equals(method) || path.equals("/v1/get") || path.equals("/v1/history")
                || path.equals("/v1/scan") || path.startsWith("/v1/proofs/");
    }

    private Mono<Void> refuse(ServerWebExchange exchange, String code, HttpStatus status, String detail) {
        ProblemDetail body = Problems.body(code, status, detail, false);
        body.setInstance(java.net.URI.create(exchange.getRequest().getPath().value()));
        byte[] bytes;
        try {
            bytes = json.writeValueAsBytes(body);
        } catch (Exception e) {
            bytes = ("{\"code\":\"" + code + "\"}").getBytes(StandardCharsets.UTF_8);
        }
        var resp = exchange.getResponse();
        resp.setStatusCode(status);
        resp.getHeaders().setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        if (status == HttpStatus.UNAUTHORIZED) {
            resp.getHeaders().set(HttpHeaders.WWW_AUTHENTICATE, "Bearer");
        }
        return resp.writeWith(Mono.just(resp.bufferFactory().wrap(bytes)));
    }
}
