package io.glassledger.server.api;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

@RestControllerAdvice
class ProblemHandler {
    private static final Logger LOG = LoggerFactory.getLogger(ProblemHandler.class);

    @ExceptionHandler(Throwable.class)
    ResponseEntity<ProblemDetail> handle(Throwable t) {
        ResponseEntity<ProblemDetail> r = Problems.response(t);
        if (r.getStatusCode().is5xxServerError() && r.getStatusCode().value() != 503) {
            LOG.error("request failed", t);
        }
        return r;
    }
}
