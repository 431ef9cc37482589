package io.glassledger.auditor;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.glassledger.api.CanonicalPath;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.actuate.endpoint.web.reactive.AbstractWebFluxEndpointHandlerMapping;
import org.springframework.context.ApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.stereotype.Component;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.reactive.DispatcherHandler;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import org.springframework.web.util.pattern.PathPattern;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The auditor's endpoints need no key (docs/API.md, "Auditor"), but only its declared routes answer, decided as
 * on the servers from the handler that will run rather than from the path string: a non-canonical path
 * ({@link CanonicalPath}) is 400 {@code non_canonical_path} before routing; then the handler is resolved as the
 * {@link DispatcherHandler} will, and only these run: {@link AuditController}'s methods, the status page (the
 * welcome page at {@code /}), and the actuator's health and prometheus. Anything else is 404 {@code not_found} (a
 * mapping's own refusal, such as 405, keeps its status). The last filter, so nothing after it changes the route.
 */
@Component
@Order(Ordered.LOWEST_PRECEDENCE)
class RouteFilter implements WebFilter {
    private final ObjectProvider<DispatcherHandler> dispatcher;
    private final ObjectProvider<PathMappedEndpoints> endpoints;
    private final ApplicationContext context;
    private final ObjectMapper json;

    RouteFilter(ObjectProvider<DispatcherHandler> dispatcher, ObjectProvider<PathMappedEndpoints> endpoints,
                ApplicationContext context, ObjectMapper json) {
        this.dispatcher = dispatcher;
        this.endpoints = endpoints;
        this.context = context;
        this.json = json;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        Optional<String> bad = CanonicalPath.violation(exchange.getRequest().getPath().value());
        if (bad.isPresent()) {
            return refuse(exchange, CanonicalPath.PROBLEM_CODE, HttpStatus.BAD_REQUEST, "the request path has "
                    + bad.get() + "; only canonical paths are served");
        }
        if (exchange.getRequest().getHeaders().containsKey(org.springframework.http.HttpHeaders.CONTENT_TYPE)
                && !json(exchange)) {
            // Refused before anything reads the body: a multipart body without its boundary left the request
            // unanswered (found by schemathesis), and every body this auditor takes is JSON.
            return refuse(exchange, "unsupported_media_type", HttpStatus.UNSUPPORTED_MEDIA_TYPE, "the request body "
                    + "must be application/json");
        }
        List<HandlerMapping> mappings = dispatcher.getObject().getHandlerMappings();
        // Either whether the handler is declared, or a mapping's refusal (405, 415), kept to be answered here.
        Mono<Object> decision = Flux.fromIterable(mappings == null ? List.<HandlerMapping>of() : mappings)
                .concatMap(m -> m.getHandler(exchange).map(h -> (Object) declared(m, h, exchange)))
                .next()
                .defaultIfEmpty(Boolean.FALSE)
                .onErrorResume(ResponseStatusException.class, Mono::just);
        return decision.flatMap(ok -> {
                    if (ok instanceof ResponseStatusException e) {
                        return refuse(exchange, HttpStatus.valueOf(e.getStatusCode().value()).name()
                                .toLowerCase(java.util.Locale.ROOT), e.getStatusCode(), e.getReason());
                    }
                    if (Boolean.TRUE.equals(ok)) {
                        return chain.filter(exchange);
                    }
                    return refuse(exchange, "not_found", HttpStatus.NOT_FOUND, "no route "
                            + exchange.getRequest().getMethod() + " " + exchange.getRequest().getPath().value());
                });
    }

    private static boolean json(ServerWebExchange exchange) {
        try {
            MediaType t = exchange.getRequest().getHeaders().getContentType();
            return t == null || MediaType.APPLICATION_JSON.isCompatibleWith(t) || t.getSubtype().endsWith("+json");
        } catch (org.springframework.http.InvalidMediaTypeException e) {
            return false;
        }
    }

    private boolean declared(HandlerMapping mapping, Object handler, ServerWebExchange exchange) {
        if (mapping instanceof AbstractWebFluxEndpointHandlerMapping) {
            PathMappedEndpoints pe = endpoints.getIfAvailable();
            Object matched = exchange.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
            if (pe == null || !(matched instanceof PathPattern p)) {
                return false;
            }
            String health = pe.getPath(EndpointId.of("health"));
            String prometheus = pe.getPath(EndpointId.of("prometheus"));
            return health != null && Set.of(health, health + "/{*path}").contains(p.getPatternString())
                    || prometheus != null && prometheus.equals(p.getPatternString());
        }
        if (handler instanceof HandlerMethod hm) {
            // Its controller, and its OpenAPI document (springdoc), which is public like the server's.
            return hm.getBeanType() == AuditController.class
                    || org.springdoc.webflux.api.OpenApiResource.class.isAssignableFrom(hm.getBeanType());
        }
        // The status page: Spring Boot's welcome page (static/index.html at /), a router function of its own mapping.
        return context.containsBean("welcomePageRouterFunctionMapping")
                && mapping == context.getBean("welcomePageRouterFunctionMapping");
    }

    private Mono<Void> refuse(ServerWebExchange exchange, String code, HttpStatusCode status, String detail) {
        ProblemDetail p = ProblemDetail.forStatusAndDetail(status, detail);
        p.setType(URI.create("https://glassledger.io/problems/" + code.replace('_', '-')));
        p.setProperty("code", code);
        p.setProperty("retryable", false);
        byte[] bytes;
        try {
            bytes = json.writeValueAsBytes(p);
        } catch (Exception e) {
            bytes = ("{\"code\":\"" + code + "\"}").getBytes(StandardCharsets.UTF_8);
        }
        var resp = exchange.getResponse();
        resp.setStatusCode(status);
        resp.getHeaders().setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        return resp.writeWith(Mono.just(resp.bufferFactory().wrap(bytes)));
    }
}
