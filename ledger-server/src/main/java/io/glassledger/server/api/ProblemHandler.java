package io.glassledger.server.api;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import reactor.netty.channel.AbortedException;

@RestControllerAdvice
class ProblemHandler {
    private static final Logger LOG = LoggerFactory.getLogger(ProblemHandler.class);

    @ExceptionHandler(Throwable.class)
    ResponseEntity<ProblemDetail> handle(Throwable t) {
        ResponseEntity<ProblemDetail> r = Problems.response(t);
        if (t instanceof AbortedException) {
            // The client closed the connection before its request was read: no one hears the answer, and it is
            // not the server's failure (it was an ERROR with a stack trace).
            LOG.debug("request abandoned by the client: {}", t.getMessage());
        } else if (r.getStatusCode().is5xxServerError() && r.getStatusCode().value() != 503) {
            LOG.error("request failed", t);
        }
        return r;
    }
}
