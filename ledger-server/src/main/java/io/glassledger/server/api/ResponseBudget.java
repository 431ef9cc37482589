package io.glassledger.server.api;

import io.glassledger.server.LedgerProperties;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Bounds the bytes of response bodies, charged before they are made: each request gets a {@link Lease} of at most
 * {@code glassledger.limits.max-response-bytes} (over it: 413 {@code response_too_large}), and all leases together
 * hold at most {@code max-response-bytes-in-flight} (over it: 503 {@code overloaded}, retryable). A lease is released
 * when its response has been written, or the exchange ends otherwise; so many concurrent medium responses cannot fill
 * the heap either. Charges are of encoded JSON bytes: base64 of keys, values and proofs, plus a little per field.
 * Thread-safe.
 */
@Component
public class ResponseBudget implements WebFilter {
    private static final String ATTRIBUTE = ResponseBudget.class.getName() + ".lease";
    /** JSON punctuation and field names around one encoded item, charged on top of its base64. */
    static final int FIELD_BYTES = 64;

    private final long perRequest;
    private final long total;
    private final AtomicLong inFlight = new AtomicLong();

    ResponseBudget(LedgerProperties props) {
        this.perRequest = props.limits().maxResponseBytes();
        this.total = props.limits().maxResponseBytesInFlight();
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        Lease lease = open();
        exchange.getAttributes().put(ATTRIBUTE, lease);
        return chain.filter(exchange).doFinally(s -> lease.close());
    }

    /** The lease of the request being served (every request has one, opened by this filter). */
    static Lease of(ServerWebExchange exchange) {
        Lease l = exchange.getAttribute(ATTRIBUTE);
        if (l == null) {
            throw new IllegalStateException("no response budget on this exchange");
        }
        return l;
    }

    /** A lease outside the filter; its holder must close it. */
    public Lease open() {
        return new Lease();
    }

    /** Bytes charged by leases not yet closed. */
    public long inFlight() {
        return inFlight.get();
    }

    /** Base64 length of {@code n} bytes. */
    static long base64(long n) {
        return (n + 2) / 3 * 4;
    }

    /** One response's share of the budget. */
    public final class Lease implements AutoCloseable {
        private long charged;
        private boolean closed;

        private Lease() {
        }

        /**
         * Charges {@code bytes} of the response about to be made. Throws 413 {@code response_too_large} if the
         * response would go over the per-request limit ({@code advice} says what to ask for instead), 503
         * {@code overloaded} if responses in flight would go over theirs; nothing is charged then.
         */
        public synchronized void charge(long bytes, String advice) {
            if (charged + bytes > perRequest) {
                throw tooLarge(advice);
            }
            reserve(bytes);
        }

        /**
         * Charges a response that must be served whatever its size (a block: auditors need every one) to the bytes in
         * flight only, capped at their bound so that it can always be served once the others have gone.
         */
        public synchronized void chargeInFlight(long bytes) {
            reserve(Math.min(bytes, total - charged));
        }

        private void reserve(long bytes) {
            if (closed) {
                throw new ApiException("overloaded", HttpStatus.SERVICE_UNAVAILABLE, "the request has ended", true);
            }
            long now;
            do {
                now = inFlight.get();
                if (now + bytes > total) {
                    throw new ApiException("overloaded", HttpStatus.SERVICE_UNAVAILABLE, "responses being sent hold "
                            + now + " bytes and this one needs " + bytes + " more, over "
                            + "glassledger.limits.max-response-bytes-in-flight (" + total + "); retry shortly", true);
                }
            } while (!inFlight.compareAndSet(now, now + bytes));
            charged += bytes;
        }

        /** Bytes this response may still take; the share of raw bytes (before base64) is three quarters of it. */
        public synchronized long remaining() {
            return perRequest - charged;
        }

        ApiException tooLarge(String advice) {
            return responseTooLarge("the response would be over glassledger.limits.max-response-bytes ("
                    + perRequest + " bytes); " + advice);
        }

        @Override
        public synchronized void close() {
            if (!closed) {
                closed = true;
                inFlight.addAndGet(-charged);
            }
        }
    }

    static ApiException responseTooLarge(String detail) {
        return new ApiException("response_too_large", HttpStatus.PAYLOAD_TOO_LARGE, detail);
    }
}
