package io.glassledger.server.auth;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.glassledger.api.CanonicalPath;
import io.glassledger.server.api.Problems;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Decides every request from the handler that will run (docs/API.md "Authentication and roles",
 * docs/ARCHITECTURE.md "Authorization"), in this order:
 * <ol>
 *   <li>a path that is not canonical ({@link CanonicalPath}) is refused, 400 {@code non_canonical_path}, before
 *       anything is routed: so the path routed is the path received;</li>
 *   <li>the handler is resolved as the dispatcher will ({@link RouteAccess}); a {@link Public} one runs;</li>
 *   <li>otherwise the caller authenticates with {@code Authorization: Bearer <api key>} (401);</li>
 *   <li>no handler is 404 (a refusing mapping: its status, such as 405), only now, so that routes are not probed
 *       without a key;</li>
 *   <li>a role the handler does not declare is 403, and so is every role for a handler that declares none.</li>
 * </ol>
 * It is the last filter, so no filter after it can change what the dispatcher routes on.
 */
@Component
@Order(Ordered.LOWEST_PRECEDENCE)
class AuthFilter implements WebFilter {
    private final AuthStore store;
    private final RouteAccess routes;
    private final ObjectMapper json;
    private final long mapVersion;

    AuthFilter(AuthStore store, RouteAccess routes, ObjectMapper json, io.glassledger.server.LedgerProperties props) {
        this.store = store;
        this.routes = routes;
        this.json = json;
        this.mapVersion = props.cluster().mapVersion();
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        String raw = exchange.getRequest().getPath().value();
        Optional<String> bad = CanonicalPath.violation(raw);
        if (bad.isPresent()) {
            return refuse(exchange, CanonicalPath.PROBLEM_CODE, HttpStatus.BAD_REQUEST, "the request path has "
                    + bad.get() + "; only canonical paths are served (docs/API.md, Errors)");
        }
        // A mapping's refusal (405, 415) is kept aside, not thrown: it is answered only after authentication.
        return routes.resolve(exchange)
                .map(route -> new Resolution(route, null))
                .onErrorResume(e -> Mono.just(new Resolution(RouteAccess.Route.NONE, e)))
                .flatMap(r -> decide(exchange, chain, r.route(), r.mappingError()));
    }

    private record Resolution(RouteAccess.Route route, Throwable mappingError) {
    }

    private Mono<Void> decide(ServerWebExchange exchange, WebFilterChain chain, RouteAccess.Route route,
                              Throwable mappingError) {
        if (route.access().isPublic()) {
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
        if (mappingError != null) {
            var r = Problems.response(mappingError);
            return write(exchange, r.getStatusCode(), r.getBody());
        }
        if (route.handler() == null) {
            return refuse(exchange, "not_found", HttpStatus.NOT_FOUND, "no route " + exchange.getRequest().getMethod()
                    + " " + exchange.getRequest().getPath().value());
        }
        if (!route.access().permits(p.get().role())) {
            return refuse(exchange, "forbidden", HttpStatus.FORBIDDEN, "role " + p.get().role().wire()
                    + " may not " + exchange.getRequest().getMethod() + " " + exchange.getRequest().getPath().value());
        }
        String routed = exchange.getRequest().getHeaders().getFirst(io.glassledger.api.Wire.SHARD_MAP_HEADER);
        if (routed != null && !routed.trim().equals(Long.toString(mapVersion))) {
            // The header is not repeated: an answer says only what was wrong, never what a caller sent.
            return refuse(exchange, "stale_shard_map", HttpStatus.CONFLICT, "the request was routed with another "
                    + "shard map version (" + io.glassledger.api.Wire.SHARD_MAP_HEADER + ") than this cluster's, "
                    + "version " + mapVersion + " (GET /v1/info)");
        }
        exchange.getAttributes().put(Principal.ATTRIBUTE, p.get());
        return chain.filter(exchange);
    }

    private Mono<Void> refuse(ServerWebExchange exchange, String code, HttpStatus status, String detail) {
        ProblemDetail body = Problems.body(code, status, detail, false);
        if (CanonicalPath.violation(exchange.getRequest().getPath().value()).isEmpty()) {
            body.setInstance(java.net.URI.create(exchange.getRequest().getPath().value()));
        }
        if (status == HttpStatus.UNAUTHORIZED) {
            exchange.getResponse().getHeaders().set(HttpHeaders.WWW_AUTHENTICATE, "Bearer");
        }
        return write(exchange, status, body);
    }

    private Mono<Void> write(ServerWebExchange exchange, HttpStatusCode status, ProblemDetail body) {
        byte[] bytes;
        try {
            bytes = json.writeValueAsBytes(body);
        } catch (Exception e) {
            bytes = ("{\"status\":" + status.value() + "}").getBytes(StandardCharsets.UTF_8);
        }
        var resp = exchange.getResponse();
        resp.setStatusCode(status);
        resp.getHeaders().setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        return resp.writeWith(Mono.just(resp.bufferFactory().wrap(bytes)));
    }
}
