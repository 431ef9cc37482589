package io.glassledger.server.api;

import io.glassledger.api.OpenApiShapes;
import io.glassledger.api.contract.OpenApiContract;
import io.glassledger.api.contract.StrictJson;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.parameters.Parameter;
import java.math.BigDecimal;
import java.util.Map;
import java.util.Set;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.boot.autoconfigure.jackson.Jackson2ObjectMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The one place that states, in the OpenAPI document at {@code /v3/api-docs}, what the handlers really answer: the
 * problem responses of every operation, the 201s, and the bodies' required fields, patterns and nullability
 * ({@link OpenApiShapes}). Controllers carry no documentation annotations. The status sets are generous where a
 * refusal can come from outside the handler: 400, 401, 403, 409 ({@code stale_shard_map}) and 503 on every
 * authenticated operation, 413 and 415 on every one with a body (docs/API.md "Errors").
 */
@Configuration(proxyBeanMethods = false)
class ApiContract {
    /** Operations that can answer 404: unknown block, transaction or client. */
    private static final Set<String> NOT_FOUND = Set.of("GET /v1/head", "GET /v1/clients/{clientId}",
            "POST /v1/get", "POST /v1/scan", "POST /v1/tx/{txId}/commit", "POST /v1/tx/{txId}/abort",
            "POST /v1/tx/{txId}/resolve", "GET /v1/tx/{txId}", "POST /v1/proofs/keys", "GET /v1/proofs/append-only",
            "POST /v1/proofs/batch", "GET /v1/blocks/{number}", "POST /v1/admin/api-keys/revoke",
            "POST /v1/admin/replicas/remove");
    /**
     * Operations that take keys or transactions, which may belong to another shard (421 {@code wrong_shard}), or
     * that only a replicated shard's leader answers (421 {@code not_leader}).
     */
    private static final Set<String> MISDIRECTED = Set.of("POST /v1/get", "POST /v1/history", "POST /v1/proofs/keys",
            "POST /v1/proofs/batch", "POST /v1/tx/commit", "POST /v1/tx/prepare", "POST /v1/tx/{txId}/commit",
            "POST /v1/tx/{txId}/abort", "POST /v1/tx/{txId}/resolve", "GET /v1/tx/{txId}",
            "POST /v1/admin/replicas/add", "POST /v1/admin/replicas/remove");
    /** Reads whose answer is bounded in size (a proof, a block): 413 also without a request body. */
    private static final Set<String> BOUNDED_READS = Set.of("GET /v1/proofs/append-only", "GET /v1/blocks/{number}");
    /** Parameters by name: their range or pattern (path and query). */
    private static final Map<String, String> PARAMETER_PATTERNS = Map.of("txId", "^[0-9a-fA-F]{32}$",
            "clientId", OpenApiShapes.CLIENT_ID);
    private static final Set<String> BLOCK_PARAMETERS = Set.of("number", "block", "from", "to");

    @Bean
    OpenApiCustomizer glassLedgerContract() {
        return ApiContract::apply;
    }

    @Bean
    Jackson2ObjectMapperBuilderCustomizer strictJson() {
        return b -> b.postConfigurer(StrictJson::apply);
    }

    static void apply(OpenAPI api) {
        OpenApiContract.apply(api, (path, method, op) -> operation(method + " " + path, method, op));
    }

    private static void operation(String id, PathItem.HttpMethod method, Operation op) {
        OpenApiContract.jsonSuccess(op);
        if (id.equals("POST /v1/clients/key")) {
            OpenApiContract.success(op, 201, "the key is registered (200: the same key was registered before)", true);
        } else if (id.equals("POST /v1/admin/api-keys")) {
            OpenApiContract.success(op, 201, "the new API key (shown once)", false);
        }
        if (op.getParameters() != null) {
            // Fresh schemas: springdoc shares one schema object among parameters of the same Java type.
            for (Parameter p : op.getParameters()) {
                if (BLOCK_PARAMETERS.contains(p.getName())) {
                    p.setSchema(new IntegerSchema().format("int64").minimum(BigDecimal.ZERO));
                }
                String pattern = PARAMETER_PATTERNS.get(p.getName());
                if (pattern != null) {
                    p.setSchema(new StringSchema().pattern(pattern));
                }
            }
        }
        boolean body = op.getRequestBody() != null;
        OpenApiContract.problem(op, 400, "malformed: a body, parameter or path that cannot be read (or another "
                + "400 code of docs/API.md \"Errors\")");
        OpenApiContract.problem(op, 401, "unauthenticated: no or unknown API key");
        OpenApiContract.problem(op, 403, "forbidden or wrong_client_key: the key's role may not do this");
        if (NOT_FOUND.contains(id)) {
            OpenApiContract.problem(op, 404, "unknown_block, unknown_transaction, unknown_client, unknown_api_key or "
                    + "unknown_replica");
        }
        OpenApiContract.problem(op, 409, "stale_shard_map on any operation; conflict, duplicate, already_decided, "
                + "stale_digest, key_registered, last_admin_key, not_replicated, replica_exists or last_replica where "
                + "they apply");
        if (body || BOUNDED_READS.contains(id) || method == PathItem.HttpMethod.POST) {
            OpenApiContract.problem(op, 413, "too_large: a key, value, transaction, body, count or answer over its "
                    + "limit");
        }
        if (body) {
            OpenApiContract.problem(op, 415, "unsupported_media_type: the body is not application/json");
        }
        if (MISDIRECTED.contains(id)) {
            OpenApiContract.problem(op, 421, "wrong_shard: a key or transaction of another shard; not_leader: a "
                    + "replica that does not lead its shard's group (the problem's leader names the one that does)");
        }
        OpenApiContract.problem(op, 503, "overloaded, unavailable or not_persisted (with Retry-After): try again; "
                + "outcome_unknown: ask the transaction's status");
        OpenApiContract.transportRefusals(op);
    }
}
