package io.glassledger.server.net;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameStreamException;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a client does wrong at the connection level is its problem, not the server's: one log line, not Netty's and
 * Reactor Netty's stack traces (a failed TLS handshake logged two of 20 lines each; a request body the server had
 * already refused with 413, cut short on an HTTP/2 stream, an ERROR trace; a peer's reset a WARN trace; HTTP/2
 * protocol errors a trace per frame). The connection or stream is closed, as before. Anything else passes on
 * unchanged.
 */
final class QuietErrors {
    private static final Logger LOG = LoggerFactory.getLogger(QuietErrors.class);

    private QuietErrors() {
    }

    /** Right after the TLS handler of an accepted connection: handshake failures and peer resets. */
    static final class Connection extends ChannelInboundHandlerAdapter {
        private boolean logged;

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            Throwable tls = tlsFailure(cause);
            if (tls != null) {
                once(ctx, tls);
                ctx.close();
            } else if (cause instanceof IOException) {
                LOG.debug("connection {}: {}", ctx.channel().remoteAddress(), cause.toString());
                ctx.close();
            } else {
                ctx.fireExceptionCaught(cause);
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof SslHandshakeCompletionEvent e && !e.isSuccess()) {
                once(ctx, e.cause());
                ctx.close();
                return;
            }
            ctx.fireUserEventTriggered(evt);
        }

        private void once(ChannelHandlerContext ctx, Throwable cause) {
            if (!logged) {
                logged = true;
                String why = cause instanceof NotSslRecordException ? "not TLS (plain HTTP on the HTTPS port?)"
                        : cause.getMessage();
                LOG.info("TLS handshake from {} failed: {}", ctx.channel().remoteAddress(), why);
            }
        }

        private static Throwable tlsFailure(Throwable cause) {
            for (Throwable t = cause; t != null; t = t.getCause()) {
                if (t instanceof SSLException) {
                    return t;
                }
                if (!(t instanceof DecoderException)) {
                    return null;
                }
            }
            return null;
        }
    }

    /**
     * On an HTTP/2 connection, just before the stream multiplexer: a peer's protocol error on a stream (a
     * WINDOW_UPDATE of 0, a frame the stream's state does not allow, a body longer than its content-length) has
     * already reset that stream when it gets here, and a connection error has already sent GOAWAY. Each was passed on
     * to the stream, whose Reactor Netty handlers logged it as a WARN or ERROR with a stack trace: 500 such frames
     * wrote 2.4 MB of log in half a second. Now they share one rate-limited INFO line ({@link #PEER_ERRORS}) and go
     * no further; a reset stream still closes, as the multiplexer ends it on the stream's close.
     */
    static final class Http2Peer extends ChannelInboundHandlerAdapter {
        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            Throwable h2 = cause instanceof Http2FrameStreamException s && s.getCause() != null ? s.getCause() : cause;
            if (h2 instanceof Http2Exception || cause instanceof Http2FrameStreamException) {
                PEER_ERRORS.log(ctx.channel().remoteAddress(), h2.getMessage());
                if (!(h2 instanceof Http2Exception.StreamException)) {
                    ctx.close();  // a connection error: Netty has sent GOAWAY
                }
            } else if (cause instanceof IOException) {
                LOG.debug("connection {}: {}", ctx.channel().remoteAddress(), cause.toString());
                ctx.close();
            } else {
                ctx.fireExceptionCaught(cause);
            }
        }
    }

    /** The one log line for peers' HTTP/2 protocol errors, for every connection of the process. */
    static final RateLimitedLine PEER_ERRORS = new RateLimitedLine(TimeUnit.SECONDS.toNanos(1));

    /**
     * At most one INFO line per interval, however many peers misbehave; each line counts the ones left out since the
     * line before. Thread-safe: event loops of every connection share it.
     */
    static final class RateLimitedLine {
        private final long intervalNanos;
        private final AtomicLong last;
        private final AtomicLong suppressed = new AtomicLong();

        RateLimitedLine(long intervalNanos) {
            this.intervalNanos = intervalNanos;
            this.last = new AtomicLong(System.nanoTime() - intervalNanos);
        }

        /** Logs now, or counts it for the next line; returns whether it logged. */
        boolean log(java.net.SocketAddress peer, String what) {
            long now = System.nanoTime();
            long before = last.get();
            if (now - before < intervalNanos || !last.compareAndSet(before, now)) {
                suppressed.incrementAndGet();
                return false;
            }
            long more = suppressed.getAndSet(0);
            if (more == 0) {
                LOG.info("HTTP/2 protocol error from {}: {}", peer, what);
            } else {
                LOG.info("HTTP/2 protocol error from {}: {} (and {} more since the last such line)", peer, what, more);
            }
            return true;
        }
    }
}
