package io.glassledger.server.net;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameStreamException;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.io.IOException;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a client does wrong at the connection level is its problem, not the server's: one log line, not Netty's and
 * Reactor Netty's stack traces (a failed TLS handshake logged two of 20 lines each; a request body the server had
 * already refused with 413, cut short on an HTTP/2 stream, an ERROR trace; a peer's reset a WARN trace). The
 * connection or stream is closed, as before. Anything else passes on unchanged.
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
     * First on an HTTP/2 stream: a stream error (a body cut short after the server answered, a content-length
     * mismatch) has already reset the stream; it is logged in one line at debug and the stream closed.
     */
    static final class Stream extends ChannelInboundHandlerAdapter {
        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (cause instanceof Http2Exception || cause instanceof Http2FrameStreamException) {
                LOG.debug("HTTP/2 stream {}: {}", ctx.channel(), cause.getMessage());
                ctx.close();
            } else {
                ctx.fireExceptionCaught(cause);
            }
        }
    }
}
