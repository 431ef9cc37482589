package io.glassledger.auditor;

import io.glassledger.api.net.ReadAfterDrain;
import org.springframework.boot.web.embedded.netty.NettyServerCustomizer;
import org.springframework.stereotype.Component;
import reactor.netty.NettyPipeline;
import reactor.netty.http.server.HttpServer;

/**
 * Installs {@link ReadAfterDrain} (reactor-netty issue 4361; the server's {@code ConnectionGuard} does too,
 * docs/ARCHITECTURE.md "Hostile connections and engine failure"): a request queued behind the one being served and
 * then refused before its body was read (RouteFilter's 415, a 404) left the connection's next request unread until
 * the client gave up. The auditor speaks HTTP/1.1 only, so the traffic handler is in place when the channel is
 * initialised.
 */
@Component
class KeepAliveReads implements NettyServerCustomizer {
    @Override
    public HttpServer apply(HttpServer server) {
        return server.doOnChannelInit((observer, channel, remote) -> {
            var pipeline = channel.pipeline();
            if (pipeline.get(NettyPipeline.HttpTrafficHandler) != null && pipeline.get(ReadAfterDrain.NAME) == null) {
                pipeline.addAfter(NettyPipeline.HttpTrafficHandler, ReadAfterDrain.NAME, new ReadAfterDrain());
            }
        });
    }
}
