package io.glassledger.server.api;

import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;

/** A refusal with a stable problem code (docs/API.md "Errors"); the request changed nothing. */
public class ApiException extends RuntimeException {
    private final String code;
    private final HttpStatusCode status;
    private final boolean retryable;

    public ApiException(String code, HttpStatusCode status, String detail) {
        this(code, status, detail, false);
    }

    public ApiException(String code, HttpStatusCode status, String detail, boolean retryable) {
        super(detail);
        this.code = code;
        this.status = status;
        this.retryable = retryable;
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
