package io.glassledger.client;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A response body read into memory up to a cap: a {@code Content-Length} over the cap is refused before any byte is
 * read, and a body that grows past it (chunked, or longer than declared) is cancelled as soon as it does, so a
 * server cannot make the client buffer an unbounded answer. Fails with {@link TooLarge}.
 */
final class CappedBody implements HttpResponse.BodySubscriber<byte[]> {
    /** The body is longer than the cap. */
    static final class TooLarge extends IOException {
        TooLarge(String message) {
            super(message);
        }
    }

    private final long max;
    private final long declared;
    private final CompletableFuture<byte[]> body = new CompletableFuture<>();
    private final ByteArrayOutputStream buf = new ByteArrayOutputStream();
    private Flow.Subscription subscription;

    /** @param declared the response's {@code Content-Length}, or -1 */
    CappedBody(long max, long declared) {
        this.max = max;
        this.declared = declared;
    }

    @Override
    public CompletionStage<byte[]> getBody() {
        return body;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        if (declared > max) {
            s.cancel();
            body.completeExceptionally(new TooLarge("the response declares " + declared + " bytes, more than the "
                    + max + " this client reads"));
            return;
        }
        s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
        if (body.isDone()) {
            return;
        }
        for (ByteBuffer b : items) {
            if ((long) buf.size() + b.remaining() > max) {
                subscription.cancel();
                body.completeExceptionally(new TooLarge("the response is longer than the " + max
                        + " bytes this client reads"));
                return;
            }
            byte[] chunk = new byte[b.remaining()];
            b.get(chunk);
            buf.write(chunk, 0, chunk.length);
        }
    }

    @Override
    public void onError(Throwable t) {
        body.completeExceptionally(t);
    }

    @Override
    public void onComplete() {
        body.complete(buf.toByteArray());
    }
}
