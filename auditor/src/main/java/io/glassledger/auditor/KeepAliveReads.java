package io.glassledger.auditor;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.LastHttpContent;
import org.springframework.boot.web.embedded.netty.NettyServerCustomizer;
import org.springframework.stereotype.Component;
import reactor.netty.NettyPipeline;
import reactor.netty.channel.ChannelOperations;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;

/**
 * Re-arms the read that Reactor Netty 1.2.18 can forget on a kept-alive HTTP/1.1 connection (reactor-netty issue
 * 4361; the servers' {@code ConnectionGuard.ReadAfterDrain} does the same, docs/ARCHITECTURE.md "Hostile connections
 * and engine failure"): a request queued behind the one being served and then refused before its body was read
 * (RouteFilter's 415, a 404) left the connection's next request unread until the client gave up. A request's last
 * piece that reaches the end of the pipeline with no exchange bound to it (its response is sent) asks for the next
 * read. The auditor speaks HTTP/1.1 only, so the traffic handler is in place when the channel is initialised.
 */
@Component
class KeepAliveReads implements NettyServerCustomizer {
    static final String NAME = "glassledger.readAfterDrain";

    @Override
    public HttpServer apply(HttpServer server) {
        return server.doOnChannelInit((observer, channel, remote) -> {
            var pipeline = channel.pipeline();
            if (pipeline.get(NettyPipeline.HttpTrafficHandler) != null && pipeline.get(NAME) == null) {
                pipeline.addAfter(NettyPipeline.HttpTrafficHandler, NAME, new ReadAfterDrain());
            }
        });
    }

    private static final class ReadAfterDrain extends ChannelInboundHandlerAdapter {
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
}
