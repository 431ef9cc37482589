package io.glassledger.server.api;

import io.glassledger.verify.LedgerException;
import io.glassledger.verify.codec.MalformedException;
import io.glassledger.core.ledger.ProofTooLargeException;
import io.glassledger.core.txn.TxnException;
import io.glassledger.server.auth.AuthStore;
import java.net.URI;
import java.util.Locale;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebInputException;

/** The one mapping from exceptions to RFC 9457 problem details with stable {@code type} URIs and codes. */
public final class Problems {
    public static final String TYPE_BASE = "https://glassledger.io/problems/";

    private Problems() {
    }

    public static ProblemDetail body(String code, HttpStatusCode status, String detail, boolean retryable) {
        ProblemDetail p = ProblemDetail.forStatusAndDetail(status, detail);
        p.setType(URI.create(TYPE_BASE + code.replace('_', '-')));
        HttpStatus known = HttpStatus.resolve(status.value());
        // Spring still names 421 after WebDAV's withdrawn "Destination Locked"; RFC 9110 calls it Misdirected Request.
        p.setTitle(status.value() == 421 ? "Misdirected Request" : known != null ? known.getReasonPhrase() : "Error");
        p.setProperty("code", code);
        p.setProperty("retryable", retryable);
        return p;
    }

    public static ResponseEntity<ProblemDetail> response(Throwable t) {
        ApiException e = translate(t);
        var b = ResponseEntity.status(e.status()).contentType(org.springframework.http.MediaType.APPLICATION_PROBLEM_JSON);
        if (e.status().value() == 503) {
            b.header(HttpHeaders.RETRY_AFTER, "1");
        }
        ProblemDetail p = body(e.code(), e.status(), e.getMessage(), e.retryable());
        if (e.leader() != null) {
            p.setProperty("leader", e.leader());
        }
        return b.body(p);
    }

    static ApiException translate(Throwable t) {
        while (t instanceof java.util.concurrent.CompletionException || t instanceof java.util.concurrent.ExecutionException) {
            if (t.getCause() == null) {
                break;
            }
            t = t.getCause();
        }
        if (t instanceof ApiException a) {
            return a;
        }
        if (t instanceof TxnException x) {
            return fromReason(x);
        }
        if (t instanceof io.glassledger.server.shard.Participant.Refused r) {
            return new ApiException(r.code(), HttpStatusCode.valueOf(r.status()), r.getMessage(), r.retryable());
        }
        if (t instanceof AuthStore.KeyRegisteredException k) {
            return new ApiException("key_registered", HttpStatus.CONFLICT, k.getMessage());
        }
        if (t instanceof io.glassledger.core.store.StoreClosedException
                || t instanceof java.util.concurrent.RejectedExecutionException) {
            return new ApiException("unavailable", HttpStatus.SERVICE_UNAVAILABLE, "the shard is shutting down", true);
        }
        if (t instanceof io.glassledger.server.directory.Directory.Unavailable d) {
            return new ApiException("unavailable", HttpStatus.SERVICE_UNAVAILABLE, d.getMessage()
                    + " (a majority of the directory's voters must be up; the change may yet apply: list the keys "
                    + "before trying again)", true);
        }
        if (t instanceof AuthStore.UnknownApiKeyException k) {
            return new ApiException("unknown_api_key", HttpStatus.NOT_FOUND, k.getMessage());
        }
        if (t instanceof AuthStore.LastAdminKeyException k) {
            return new ApiException("last_admin_key", HttpStatus.CONFLICT, k.getMessage());
        }
        if (t instanceof AuthStore.KeyInUseException k) {
            return new ApiException("key_in_use", HttpStatus.CONFLICT, k.getMessage());
        }
        if (t instanceof DataBufferLimitException d) {
            return ApiException.tooLarge("request body over the limit: " + d.getMessage());
        }
        if (t instanceof ServerWebInputException w) {
            Throwable c = w.getMostSpecificCause();
            if (c instanceof DataBufferLimitException) {
                return ApiException.tooLarge("request body over the limit");
            }
            return ApiException.malformed("cannot read the request: " + w.getReason());
        }
        if (t instanceof MalformedException || t instanceof IllegalArgumentException) {
            return ApiException.malformed(t.getMessage());
        }
        if (t instanceof ResponseStatusException r) {
            return framework(r);
        }
        if (t instanceof ProofTooLargeException x) {
            return ResponseBudget.responseTooLarge(x.getMessage() + ", what this request's response may hold "
                    + "(glassledger.limits.max-response-bytes): ask for fewer keys or items");
        }
        if (t instanceof LedgerException l) {
            return new ApiException("internal", HttpStatus.INTERNAL_SERVER_ERROR, l.getMessage());
        }
        return new ApiException("internal", HttpStatus.INTERNAL_SERVER_ERROR, "internal error: " + t.getClass().getSimpleName());
    }

    /**
     * Spring's own refusals (no body reader for the content type, a body over the codec's limit, ...) under the
     * same codes as ours: one code per condition, whoever detects it.
     */
    private static ApiException framework(ResponseStatusException r) {
        int status = r.getStatusCode().value();
        String detail = r.getReason() != null ? r.getReason() : r.getMessage();
        return switch (status) {
            case 400 -> ApiException.malformed(detail);
            // Spring's reason repeats the Content-Type header; an answer never repeats what a caller sent.
            case 415 -> new ApiException("unsupported_media_type", r.getStatusCode(), "the request body must be "
                    + "application/json");
            // Spring's own 413 has no reason ("413 PAYLOAD_TOO_LARGE"): say which limit
            case 413 -> ApiException.tooLarge(r.getReason() != null ? r.getReason() : "the request body is over the "
                    + "limit (spring.codec.max-in-memory-size, 8 MiB by default; docs/API.md \"Limits\")");
            default -> {
                HttpStatus s = HttpStatus.resolve(status);
                String code = s == null ? "http_" + status : s.name().toLowerCase(Locale.ROOT);
                yield new ApiException(code, r.getStatusCode(), detail, status == 503);
            }
        };
    }

    private static ApiException fromReason(TxnException x) {
        return switch (x.reason()) {
            case OVERLOADED -> new ApiException("overloaded", HttpStatus.SERVICE_UNAVAILABLE, x.getMessage(), true);
            case UNAVAILABLE -> new ApiException("unavailable", HttpStatus.SERVICE_UNAVAILABLE, x.getMessage(), true);
            case CONFLICT -> new ApiException("conflict", HttpStatus.CONFLICT, x.getMessage(), true);
            case BAD_SIGNATURE -> new ApiException("bad_signature", HttpStatus.BAD_REQUEST, x.getMessage());
            case DUPLICATE -> new ApiException("duplicate", HttpStatus.CONFLICT, x.getMessage());
            case STALE -> new ApiException("stale", HttpStatus.BAD_REQUEST, x.getMessage());
            case WRONG_SHARD -> new ApiException("wrong_shard", HttpStatusCode.valueOf(421), x.getMessage());
            case UNKNOWN_TRANSACTION -> new ApiException("unknown_transaction", HttpStatus.NOT_FOUND, x.getMessage());
            case ALREADY_DECIDED -> new ApiException("already_decided", HttpStatus.CONFLICT, x.getMessage());
            // Size limits are the server's (the engine gets the same transaction limit), checked before the engine.
            case INVALID -> ApiException.malformed(x.getMessage());
            // A replica that does not lead its shard's group: the client sends the request to the leader (named
            // when known). 421, as for a request that reached the wrong shard.
            case NOT_LEADER -> new ApiException("not_leader", HttpStatusCode.valueOf(421), x.getMessage(), true,
                    x.leader());
            case OUTCOME_UNKNOWN -> new ApiException("outcome_unknown", HttpStatus.SERVICE_UNAVAILABLE,
                    x.getMessage(), true, x.leader());
        };
    }
}
