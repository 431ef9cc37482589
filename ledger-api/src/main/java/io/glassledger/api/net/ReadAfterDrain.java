package io.glassledger.api.net;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.LastHttpContent;
import reactor.netty.channel.ChannelOperations;
import reactor.netty.http.server.HttpServerRequest;

/**
 * Placed after Reactor Netty's HTTP/1.1 traffic handler (as {@link #NAME}): re-arms the read that it can forget
 * (reactor-netty issue 4361, unfixed in 1.2.18). It reads on demand, and a request that arrives while the one before
 * it is still being served is queued with its body; when it is then answered at once (a refusal, before its body is
 * read), the queue drains the body into the finished exchange and nobody calls {@code read()}: the connection's next
 * request sat unread until the client gave up (no idle timeout is armed on that path either). So a piece of a
 * request that reaches the end of the pipeline with no exchange bound to it, which only happens once that request's
 * response has been sent, asks for the next read. An extra read costs nothing: the traffic handler queues what it
 * brings until the exchange in progress ends. The server's {@code ConnectionGuard} and the auditor's
 * {@code KeepAliveReads} install it; remove it once a 1.2.x release carries reactor-netty PR 4347.
 */
public final class ReadAfterDrain extends ChannelInboundHandlerAdapter {
    public static final String NAME = "glassledger.readAfterDrain";

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        boolean orphan = msg instanceof LastHttpContent
                && !(ChannelOperations.get(ctx.channel()) instanceof HttpServerRequest);
        ctx.fireChannelRead(msg);
        if (orphan && ctx.channel().isActive()) {
            ctx.read();
        }
    }
}
