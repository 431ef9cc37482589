package io.glassledger.api.contract;

import io.glassledger.api.OpenApiShapes;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.media.BooleanSchema;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Writes {@link OpenApiShapes} and the RFC 9457 problem responses into an OpenAPI document (the server's and the
 * auditor's springdoc customizers call it). Fails at start-up if the shapes name a property a body does not have,
 * so a renamed field cannot silently lose its contract.
 */
public final class OpenApiContract {
    public static final String PROBLEM = "Problem";
    public static final String PROBLEM_JSON = "application/problem+json";
    public static final String JSON = "application/json";

    private OpenApiContract() {
    }

    /** The problem body of every refusal: {@code Problems.body} (server) and the auditor's. */
    @SuppressWarnings("rawtypes")
    public static Schema<?> problemSchema() {
        Schema<Object> s = new Schema<>();
        s.setType("object");
        s.setTypes(Set.of("object"));
        s.setDescription("RFC 9457 problem details; `code` is stable (docs/API.md \"Errors\")");
        s.addProperty("type", new StringSchema().format("uri"));
        s.addProperty("title", new StringSchema());
        s.addProperty("status", new IntegerSchema().minimum(BigDecimal.valueOf(400)).maximum(BigDecimal.valueOf(599)));
        s.addProperty("detail", new StringSchema());
        s.addProperty("instance", new StringSchema());
        s.addProperty("code", new StringSchema().pattern("^[a-z_]+$"));
        s.addProperty("retryable", new BooleanSchema());
        s.setRequired(List.of("type", "title", "status", "code", "retryable"));
        return s;
    }

    /** Adds the Problem schema and applies required fields, nullability and rules to the bodies present. */
    /** What a service adds to each operation of its document. */
    @FunctionalInterface
    public interface OperationRule {
        void apply(String path, io.swagger.v3.oas.models.PathItem.HttpMethod method, Operation op);
    }

    /** Adds the bodies' shapes to {@code api}'s components, then applies {@code rule} to every operation. */
    public static void apply(io.swagger.v3.oas.models.OpenAPI api, OperationRule rule) {
        if (api.getComponents() == null) {
            api.setComponents(new Components());
        }
        applyShapes(api.getComponents());
        if (api.getPaths() == null) {
            return;
        }
        api.getPaths().forEach((path, item) -> item.readOperationsMap()
                .forEach((method, op) -> rule.apply(path, method, op)));
    }

    public static void applyShapes(Components components) {
        @SuppressWarnings("rawtypes")
        Map<String, Schema> schemas = components.getSchemas();
        components.addSchemas(PROBLEM, problemSchema());
        if (schemas == null) {
            return;
        }
        OpenApiShapes.REQUIRED_IN_REQUESTS.forEach((name, required) -> {
            Schema<?> s = schemas.get(name);
            if (s != null) {
                properties(name, s, required);
                s.setRequired(required.isEmpty() ? null : new ArrayList<>(new TreeSet<>(required)));
                nullable(name, s, OpenApiShapes.NULLABLE_IN_REQUESTS.getOrDefault(name, Set.of()));
            }
        });
        OpenApiShapes.NULLABLE_IN_RESPONSES.forEach((name, nullable) -> {
            Schema<?> s = schemas.get(name);
            if (s != null) {
                s.setRequired(new ArrayList<>(new TreeSet<>(s.getProperties().keySet())));
                nullable(name, s, nullable);
            }
        });
        OpenApiShapes.RULES.forEach((at, rule) -> {
            int dot = at.indexOf('.');
            Schema<?> s = schemas.get(at.substring(0, dot));
            if (s == null) {
                return;
            }
            Schema<?> p = property(at.substring(0, dot), s, at.substring(dot + 1));
            apply(p.getItems() != null ? p.getItems() : p, rule);  // an array's rule is its items'
        });
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void apply(Schema target, OpenApiShapes.Rule rule) {
        if (rule.pattern() != null) {
            target.setPattern(rule.pattern());
        }
        if (rule.minimum() != null) {
            target.setMinimum(BigDecimal.valueOf(rule.minimum()));
        }
        if (rule.values() != null) {
            List<Object> values = new ArrayList<>(rule.values());
            if (target.getTypes() != null && target.getTypes().contains("null")) {
                values.add(null);  // enum constrains every type: a nullable enumeration lists null
            }
            target.setEnum(values);
        }
    }

    /** OpenAPI 3.1 (springdoc's default): a nullable property's type includes "null"; a reference joins it. */
    private static void nullable(String name, Schema<?> s, Set<String> nullable) {
        for (String n : nullable) {
            Schema<?> p = property(name, s, n);
            if (p.get$ref() != null || p.getAllOf() != null) {
                Schema<?> ref = p.get$ref() != null ? new Schema<>().$ref(p.get$ref()) : p;
                Schema<Object> either = new Schema<>();
                either.setAnyOf(List.of(ref, nullSchema()));
                s.getProperties().put(n, either);
            } else {
                Set<String> types = new LinkedHashSet<>(p.getTypes() != null ? p.getTypes() : Set.of(p.getType()));
                types.add("null");
                p.setTypes(types);
            }
        }
    }

    private static Schema<?> nullSchema() {
        Schema<Object> s = new Schema<>();
        s.setTypes(Set.of("null"));
        return s;
    }

    private static void properties(String name, Schema<?> s, Set<String> names) {
        names.forEach(n -> property(name, s, n));
    }

    private static Schema<?> property(String name, Schema<?> s, String property) {
        Schema<?> p = s.getProperties() == null ? null : s.getProperties().get(property);
        if (p == null) {
            throw new IllegalStateException("OpenApiShapes names " + name + "." + property
                    + ", which the OpenAPI document does not have");
        }
        return p;
    }

    /** A problem response for {@code status}, unless the operation already declares it. */
    public static void problem(Operation op, int status, String description) {
        ApiResponses rs = op.getResponses() == null ? new ApiResponses() : op.getResponses();
        op.setResponses(rs);
        rs.computeIfAbsent(Integer.toString(status), k -> new ApiResponse().description(description)
                .content(new Content().addMediaType(PROBLEM_JSON,
                        new MediaType().schema(new Schema<>().$ref("#/components/schemas/" + PROBLEM)))));
    }

    /**
     * The refusals of the HTTP layer itself, before any route runs: a request line over 4 KiB ({@code 414}) or
     * header fields over 8 KiB ({@code 431}) (Reactor Netty's limits, {@code server.netty.max-initial-line-length}
     * and {@code server.max-http-request-header-size}). They carry no body and close the connection.
     */
    public static void transportRefusals(Operation op) {
        ApiResponses rs = op.getResponses() == null ? new ApiResponses() : op.getResponses();
        op.setResponses(rs);
        rs.computeIfAbsent("414", k -> new ApiResponse().description("the request line (path and query) is over "
                + "4 KiB: refused by the HTTP layer with no body, and the connection closed"));
        rs.computeIfAbsent("431", k -> new ApiResponse().description("the header fields are over 8 KiB: refused by "
                + "the HTTP layer with no body, and the connection closed"));
    }

    /** Success bodies are {@code application/json}, not springdoc's {@code * / *}. */
    public static void jsonSuccess(Operation op) {
        if (op.getResponses() == null) {
            return;
        }
        op.getResponses().forEach((code, r) -> {
            if (code.startsWith("2") && r.getContent() != null && r.getContent().containsKey("*/*")) {
                MediaType m = r.getContent().remove("*/*");
                r.getContent().addMediaType(JSON, m);
            }
        });
    }

    /** Declares {@code status} with the body of the operation's 200 (e.g. 201 Created), keeping or dropping 200. */
    public static void success(Operation op, int status, String description, boolean keep200) {
        ApiResponse ok = op.getResponses().get("200");
        if (ok == null) {
            throw new IllegalStateException(op.getOperationId() + " has no 200 response");
        }
        op.getResponses().addApiResponse(Integer.toString(status), new ApiResponse().description(description)
                .content(ok.getContent()));
        if (!keep200) {
            op.getResponses().remove("200");
        }
    }
}
