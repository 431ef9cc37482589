package io.glassledger.server.api;

import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;

/** A refusal with a stable problem code (docs/API.md "Errors"); the request changed nothing. */
public class ApiException extends RuntimeException {
    private final String code;
    private final HttpStatusCode status;
    private final boolean retryable;
    private final String leader;

    public ApiException(String code, HttpStatusCode status, String detail) {
        this(code, status, detail, false);
    }

    public ApiException(String code, HttpStatusCode status, String detail, boolean retryable) {
        this(code, status, detail, retryable, null);
    }

    /** @param leader for {@code not_leader} and {@code outcome_unknown}: the shard leader's base URL, or null */
    public ApiException(String code, HttpStatusCode status, String detail, boolean retryable, String leader) {
        super(detail);
        this.code = code;
        this.status = status;
        this.retryable = retryable;
        this.leader = leader;
    }

    /** The shard leader's base URL, for a client to send the request there (null: unknown or not applicable). */
    public String leader() {
        return leader;
    }

    public String code() {
        return code;
    }

    public HttpStatusCode status() {
        return status;
    }

    public boolean retryable() {
        return retryable;
    }

    public static ApiException malformed(String detail) {
        return new ApiException("malformed", HttpStatus.BAD_REQUEST, detail);
    }

    public static ApiException tooLarge(String detail) {
        return new ApiException("too_large", HttpStatus.PAYLOAD_TOO_LARGE, detail);
    }
}
