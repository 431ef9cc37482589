package io.glassledger.auditor;

import io.glassledger.api.contract.OpenApiContract;
import io.glassledger.api.contract.StrictJson;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import java.math.BigDecimal;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.boot.autoconfigure.jackson.Jackson2ObjectMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.server.ResponseStatusException;

/**
 * The auditor's API contract: its OpenAPI document at {@code /v3/api-docs} (the answers of {@code /v1/audit}, the
 * problem responses, the bodies' shapes of {@code ledger-api}'s {@code OpenApiShapes}), strict JSON reading, and
 * every refusal as a problem body with a stable {@code code} (docs/API.md "Auditor").
 */
@Configuration(proxyBeanMethods = false)
class AuditorContract {
    private static final Logger LOG = LoggerFactory.getLogger(AuditorContract.class);

    @Bean
    OpenApiCustomizer auditorApiContract() {
        return AuditorContract::apply;
    }

    @Bean
    Jackson2ObjectMapperBuilderCustomizer auditorStrictJson() {
        return b -> b.postConfigurer(StrictJson::apply);
    }

    static void apply(OpenAPI api) {
        OpenApiContract.apply(api, (path, method, op) -> {
            OpenApiContract.jsonSuccess(op);
            boolean body = op.getRequestBody() != null;
            if (path.equals("/v1/gossip")) {
                OpenApiContract.problem(op, 401, "unauthenticated, bad_gossip_signature or stale_gossip: not signed "
                        + "now by a peer's auditor key");
                OpenApiContract.problem(op, 403, "unknown_peer: the key is not one of this auditor's peer-keys");
            }
            if (path.equals("/v1/audit")) {
                answers(op);
                OpenApiContract.problem(op, 409, "fork or inconsistent: the digest is not on the auditor's history");
                OpenApiContract.problem(op, 503, "halted: the shard's audit stopped at an earlier violation");
            }
            if (body) {
                OpenApiContract.problem(op, 400, "malformed or bad_signed_head: the request cannot be read");
                OpenApiContract.problem(op, 413, "too_large: the body is over the limit");
                OpenApiContract.problem(op, 415, "unsupported_media_type: the body is not application/json");
            }
            OpenApiContract.transportRefusals(op);
        });
    }

    /** 200 consistent and 202 pending, as {@link AuditController#audit} writes them. */
    private static void answers(Operation op) {
        op.getResponses().addApiResponse("200", new ApiResponse().description("the digest is on the auditor's "
                + "re-executed history").content(json(answer("consistent", "auditedBlock",
                new IntegerSchema().format("int64").minimum(BigDecimal.ZERO)))));
        op.getResponses().addApiResponse("202", new ApiResponse().description("the auditor has not verified that "
                + "block yet").content(json(answer("pending", "detail", new StringSchema()))));
    }

    private static Schema<?> answer(String status, String extra, Schema<?> extraSchema) {
        Schema<Object> s = new Schema<>();
        s.setType("object");
        s.setTypes(Set.of("object"));
        s.addProperty("shard", new IntegerSchema().minimum(BigDecimal.ZERO));
        s.addProperty("block", new IntegerSchema().format("int64").minimum(BigDecimal.ZERO));
        s.addProperty("status", new StringSchema()._enum(List.of(status)));
        s.addProperty(extra, extraSchema);
        s.setRequired(List.of("shard", "block", "status", extra));
        return s;
    }

    private static Content json(Schema<?> s) {
        return new Content().addMediaType(OpenApiContract.JSON, new MediaType().schema(s));
    }

    /**
     * Spring's own refusals (unreadable JSON, wrong content type, body over the limit) with the server's codes; first,
     * before Spring Boot's problem-details handler, which has no codes.
     */
    @RestControllerAdvice
    @Order(Ordered.HIGHEST_PRECEDENCE)
    static class Refusals {
        @ExceptionHandler(Throwable.class)
        ResponseEntity<ProblemDetail> handle(Throwable t) {
            HttpStatus status = HttpStatus.INTERNAL_SERVER_ERROR;
            String code = "internal";
            String detail = "internal error: " + t.getClass().getSimpleName();
            if (t instanceof ResponseStatusException r) {
                status = HttpStatus.valueOf(r.getStatusCode().value());
                code = switch (status.value()) {
                    case 400 -> "malformed";
                    case 413 -> "too_large";
                    default -> status.name().toLowerCase(Locale.ROOT);
                };
                detail = r.getReason() != null ? r.getReason() : status.getReasonPhrase();
            } else {
                LOG.error("request failed", t);
            }
            ProblemDetail p = ProblemDetail.forStatusAndDetail(status, detail);
            p.setType(URI.create("https://glassledger.io/problems/" + code.replace('_', '-')));
            p.setProperty("code", code);
            p.setProperty("retryable", status == HttpStatus.SERVICE_UNAVAILABLE);
            return ResponseEntity.status(status).contentType(org.springframework.http.MediaType.APPLICATION_PROBLEM_JSON)
                    .body(p);
        }
    }
}
