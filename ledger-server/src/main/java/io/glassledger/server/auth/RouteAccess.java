package io.glassledger.server.auth;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.actuate.endpoint.web.reactive.AbstractWebFluxEndpointHandlerMapping;
import org.springframework.context.event.ContextRefreshedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.stereotype.Component;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.reactive.DispatcherHandler;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.util.pattern.PathPattern;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Finds the handler that the {@link DispatcherHandler} will run for a request, asking its handler mappings in its
 * order exactly as it does, and what that handler declares about access.
 *
 * <ul>
 *   <li>Our controllers: {@link Allow} or {@link Public} on the method, else on its class.</li>
 *   <li>Framework handlers, declared here and only here: the OpenAPI document (springdoc) is public; of the
 *       actuator, health (and its probe groups, {@code /{*path}}) is public and prometheus is for {@code admin} and
 *       {@code auditor}.</li>
 *   <li>Anything else (another actuator endpoint, the actuator's links page, a CORS pre-flight, a handler someone
 *       forgot to annotate) is {@link Access#DENIED}. A controller method without a declaration also stops the
 *       server at start.</li>
 * </ul>
 *
 * The actuator's handlers are one generic class for every endpoint; which endpoint matched is the pattern its own
 * mapping reports as matched (from {@link PathMappedEndpoints}, so a changed base path changes nothing here). They
 * are served on the management port, whose requests are resolved against that server's own mappings.
 */
@Component
class RouteAccess {
    /** A handler the dispatcher would run, or none; and its declared access. */
    record Route(Object handler, Access access) {
        static final Route NONE = new Route(null, Access.DENIED);
    }

    private final ObjectProvider<DispatcherHandler> dispatcher;
    private final ObjectProvider<PathMappedEndpoints> endpoints;

    RouteAccess(ObjectProvider<DispatcherHandler> dispatcher, ObjectProvider<PathMappedEndpoints> endpoints) {
        this.dispatcher = dispatcher;
        this.endpoints = endpoints;
    }

    /**
     * The route of {@code exchange}: {@link Route#NONE} if no mapping has a handler; an error if a mapping refuses
     * the request (a 405 or 415 {@code ResponseStatusException}), as the dispatcher would.
     */
    Mono<Route> resolve(ServerWebExchange exchange) {
        List<HandlerMapping> mappings = dispatcherOf(exchange).getHandlerMappings();
        if (mappings == null) {
            return Mono.just(Route.NONE);
        }
        return Flux.fromIterable(mappings)
                .concatMap(m -> m.getHandler(exchange).map(h -> new Route(h, access(m, h, exchange))))
                .next()
                .defaultIfEmpty(Route.NONE);
    }

    /**
     * The dispatcher that will serve {@code exchange}: the API's, or, for a request to the management port, that
     * server's own (Spring Boot runs it in a child context whose mappings are the actuator's; this filter, a bean of
     * the parent, applies there too).
     */
    private DispatcherHandler dispatcherOf(ServerWebExchange exchange) {
        org.springframework.context.ApplicationContext ctx = exchange.getApplicationContext();
        return ctx != null ? ctx.getBean(DispatcherHandler.class) : dispatcher.getObject();
    }

    private Access access(HandlerMapping mapping, Object handler, ServerWebExchange exchange) {
        if (mapping instanceof AbstractWebFluxEndpointHandlerMapping) {
            return actuator(exchange.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE));
        }
        if (handler instanceof HandlerMethod hm) {
            return declared(hm);
        }
        return Access.DENIED;
    }

    private Access actuator(Object matched) {
        PathMappedEndpoints pe = endpoints.getIfAvailable();
        if (pe == null || !(matched instanceof PathPattern p)) {
            return Access.DENIED;
        }
        String health = pe.getPath(EndpointId.of("health"));
        String prometheus = pe.getPath(EndpointId.of("prometheus"));
        Map<String, Access> declared = new java.util.HashMap<>();
        if (health != null) {
            declared.put(health, Access.PUBLIC);
            declared.put(health + "/{*path}", Access.PUBLIC); // the probe groups: liveness, readiness
        }
        if (prometheus != null) {
            declared.put(prometheus, Access.of(Role.ADMIN, Role.AUDITOR));
        }
        return declared.getOrDefault(p.getPatternString(), Access.DENIED);
    }

    /** What a controller method declares; DENIED if nothing. */
    static Access declared(HandlerMethod hm) {
        if (org.springdoc.webflux.api.OpenApiResource.class.isAssignableFrom(hm.getBeanType())) {
            return Access.PUBLIC;
        }
        Access a = declared(hm.getMethod());
        return a != null ? a : java.util.Objects.requireNonNullElse(declared(hm.getBeanType()), Access.DENIED);
    }

    private static Access declared(java.lang.reflect.AnnotatedElement e) {
        Allow allow = AnnotatedElementUtils.findMergedAnnotation(e, Allow.class);
        boolean open = AnnotatedElementUtils.hasAnnotation(e, Public.class);
        if (allow != null && open) {
            throw new IllegalStateException(e + " is both @Public and @Allow");
        }
        return open ? Access.PUBLIC : allow == null ? null : Access.of(allow.value());
    }

    /** Controller methods that declare no access: none may exist (they would answer 403 to everyone). */
    List<String> undeclared(Iterable<RequestMappingHandlerMapping> mappings) {
        List<String> out = new ArrayList<>();
        for (RequestMappingHandlerMapping m : mappings) {
            m.getHandlerMethods().forEach((info, hm) -> {
                if (declared(hm) == Access.DENIED && hm.getBeanType().getName().startsWith("io.glassledger.")) {
                    out.add(info + " -> " + hm);
                }
            });
        }
        return out;
    }

    @EventListener
    void checkDeclarations(ContextRefreshedEvent event) {
        List<String> missing = undeclared(event.getApplicationContext()
                .getBeansOfType(RequestMappingHandlerMapping.class).values());
        if (!missing.isEmpty()) {
            throw new IllegalStateException("handlers without @Allow or @Public (denied to everyone): " + missing);
        }
    }
}
