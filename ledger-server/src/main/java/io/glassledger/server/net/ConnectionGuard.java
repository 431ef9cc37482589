package io.glassledger.server.net;

import io.glassledger.api.net.ReadAfterDrain;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.ssl.SslHandler;
import java.lang.management.ManagementFactory;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.web.embedded.netty.NettyReactiveWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;
import reactor.netty.NettyPipeline;
import reactor.netty.http.Http2SettingsSpec;
import reactor.netty.http.server.HttpServer;

/**
 * Bounds what a client can hold without a key (docs/ARCHITECTURE.md "Hostile connections and engine failure"):
 * Reactor Netty's idle and request-body timeouts and HTTP/2 stream bound, and three handlers of our own on each
 * accepted connection, since Reactor Netty has no such settings: a cap on open connections (checked before TLS, so
 * a refused connection costs no handshake), a TLS handshake deadline, and an HTTP/1.1 request-header deadline that
 * starts at a request's first byte and ends when the codec has decoded its headers (Reactor Netty's read and request
 * timeouts only start after the headers, so they leave a slowloris client alone). HTTP/2 frames are decoded whole;
 * an HTTP/2 connection is bounded by the idle timeout, the stream bound and the cap.
 *
 * <p>It customises the server last ({@link Ordered#LOWEST_PRECEDENCE}): Spring Boot's own customiser replaces
 * Reactor Netty's whole HTTP/2 settings to set the header list size, which left the stream bound at Netty's 100.
 *
 * <p>Threading: each handler belongs to one channel and runs on its event loop; only the counters are shared.
 */
@Component
class ConnectionGuard implements WebServerFactoryCustomizer<NettyReactiveWebServerFactory>, Ordered {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionGuard.class);
    private static final long WARN_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);
    static final String GUARD = "glassledger.connectionGuard";
    static final String REQUEST_HEAD = "glassledger.requestHead";
    static final String REQUEST_SEEN = "glassledger.requestSeen";
    static final String TLS_ERRORS = "glassledger.tlsErrors";
    static final String H2_ERRORS = "glassledger.http2Errors";

    private final ConnectionProperties props;
    private final int cap;
    private final AtomicInteger open = new AtomicInteger();
    private final Counter refused;
    private final Counter handshakeTimeouts;
    private final Counter headerTimeouts;
    private final AtomicLong lastWarn = new AtomicLong(System.nanoTime() - WARN_EVERY_NANOS);
    private final AtomicLong refusedSinceWarn = new AtomicLong();

    ConnectionGuard(ConnectionProperties props, MeterRegistry registry) {
        this.props = props;
        long fdLimit = maxFileDescriptors();
        this.cap = cap(props.maxOpen(), props.reservedFileDescriptors(), fdLimit);
        Gauge.builder("glassledger.connections.open", open, AtomicInteger::get)
                .description("open client connections (TCP, counted before TLS)").register(registry);
        Gauge.builder("glassledger.connections.max", () -> cap)
                .description("the cap on open connections in force").register(registry);
        refused = Counter.builder("glassledger.connections.refused")
                .description("connections closed at once because the cap was reached").register(registry);
        handshakeTimeouts = timeouts(registry, "handshake");
        headerTimeouts = timeouts(registry, "header");
        LOG.info("connections: at most {} open (glassledger.connections.max-open {}, file descriptor limit {}, {} "
                        + "reserved), {} HTTP/2 streams each; timeouts: handshake {}, header {}, request body {}, "
                        + "idle {}",
                cap, props.maxOpen(), fdLimit < 0 ? "unknown" : fdLimit, props.reservedFileDescriptors(),
                props.maxStreams(), props.handshakeTimeout(), props.headerTimeout(), props.requestTimeout(),
                props.idleTimeout());
    }

    private static Counter timeouts(MeterRegistry registry, String kind) {
        return Counter.builder("glassledger.connections.timeouts")
                .description("connections closed by a deadline of our own").tag("kind", kind).register(registry);
    }

    /**
     * The cap in force: the configured one, lowered so that clients never take the descriptors RocksDB and the WAL
     * need (and, with a small limit, at most half of them).
     */
    static int cap(int configured, int reserved, long fdLimit) {
        if (fdLimit <= 0) {
            return configured;
        }
        long room = Math.max(fdLimit / 2, fdLimit - reserved);
        return (int) Math.max(1, Math.min(configured, room));
    }

    private static long maxFileDescriptors() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean u) {
            return u.getMaxFileDescriptorCount();
        }
        return -1;
    }

    /** Open connections now. */
    int open() {
        return open.get();
    }

    int cap() {
        return cap;
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public void customize(NettyReactiveWebServerFactory factory) {
        factory.addServerCustomizers(this::apply);
    }

    HttpServer apply(HttpServer server) {
        Http2SettingsSpec h2 = server.configuration().http2SettingsSpec();
        return server.idleTimeout(props.idleTimeout()).requestTimeout(props.requestTimeout())
                .http2Settings(b -> keep(h2, b).maxConcurrentStreams(props.maxStreams()))
                .doOnChannelInit((observer, channel, remote) -> {
                    if (channel.parent() == null || channel.pipeline().get(GUARD) != null) {
                        return;  // only accepted connections
                    }
                    channel.pipeline().addFirst(GUARD, new Guard());
                    if (channel.pipeline().get(NettyPipeline.SslHandler) != null) {
                        channel.pipeline().addAfter(NettyPipeline.SslHandler, TLS_ERRORS, new QuietErrors.Connection());
                    }
                });
    }

    /**
     * Reactor Netty's {@code http2Settings} replaces all settings: what earlier customisers set (Spring Boot's
     * header list size) is carried over.
     */
    static Http2SettingsSpec.Builder keep(Http2SettingsSpec old, Http2SettingsSpec.Builder b) {
        if (old == null) {
            return b;
        }
        java.util.Optional.ofNullable(old.connectProtocolEnabled()).ifPresent(b::connectProtocolEnabled);
        java.util.Optional.ofNullable(old.headerTableSize()).ifPresent(b::headerTableSize);
        java.util.Optional.ofNullable(old.initialWindowSize()).ifPresent(b::initialWindowSize);
        java.util.Optional.ofNullable(old.maxConcurrentStreams()).ifPresent(b::maxConcurrentStreams);
        java.util.Optional.ofNullable(old.maxFrameSize()).ifPresent(b::maxFrameSize);
        java.util.Optional.ofNullable(old.maxHeaderListSize()).ifPresent(b::maxHeaderListSize);
        java.util.Optional.ofNullable(old.maxStreams()).ifPresent(b::maxStreams);
        java.util.Optional.ofNullable(old.pingAckDropThreshold()).ifPresent(b::pingAckDropThreshold);
        java.util.Optional.ofNullable(old.pingAckTimeout()).ifPresent(b::pingAckTimeout);
        if (old.maxDecodedRstFramesPerWindow() != null && old.maxDecodedRstFramesSecondsPerWindow() != null) {
            b.maxDecodedRstFramesPerWindow(old.maxDecodedRstFramesPerWindow(),
                    old.maxDecodedRstFramesSecondsPerWindow());
        }
        if (old.maxEncodedRstFramesPerWindow() != null && old.maxEncodedRstFramesSecondsPerWindow() != null) {
            b.maxEncodedRstFramesPerWindow(old.maxEncodedRstFramesPerWindow(),
                    old.maxEncodedRstFramesSecondsPerWindow());
        }
        return b;
    }

    private void refuse() {
        refused.increment();
        refusedSinceWarn.incrementAndGet();
        long now = System.nanoTime();
        long last = lastWarn.get();
        if (now - last >= WARN_EVERY_NANOS && lastWarn.compareAndSet(last, now)) {
            LOG.warn("refused {} connection(s) in the last {} s: {} open, at most {} allowed "
                            + "(glassledger.connections.max-open)", refusedSinceWarn.getAndSet(0),
                    TimeUnit.NANOSECONDS.toSeconds(now - last), open.get(), cap);
        }
    }

    /**
     * First in the pipeline (it sees TLS records): counts the connection and times its handshake. Reactor Netty
     * starts a TLS connection with an SNI handler that becomes the {@link SslHandler} once the ClientHello is in, so
     * the handshake is looked for after each read.
     */
    private final class Guard extends ChannelInboundHandlerAdapter {
        private boolean counted;
        private boolean tlsSeen;
        private ScheduledFuture<?> handshake;

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            if (open.incrementAndGet() > cap) {
                open.decrementAndGet();
                refuse();
                ctx.close();
                return;
            }
            counted = true;
            if (ctx.pipeline().get(NettyPipeline.SslHandler) != null) {
                handshake = ctx.executor().schedule(() -> {
                    SslHandler ssl = ctx.pipeline().get(SslHandler.class);
                    if (ssl == null || !ssl.handshakeFuture().isSuccess()) {
                        handshakeTimeouts.increment();
                        LOG.debug("closing {}: no TLS handshake within {}", ctx.channel(), props.handshakeTimeout());
                        ctx.close();
                    }
                }, props.handshakeTimeout().toNanos(), TimeUnit.NANOSECONDS);
            } else {
                tlsSeen = true;
                ctx.pipeline().addAfter(ctx.name(), REQUEST_HEAD, new RequestHead());
            }
            ctx.fireChannelActive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.fireChannelRead(msg);
            if (!tlsSeen) {
                SslHandler ssl = ctx.pipeline().get(SslHandler.class);
                if (ssl != null) {
                    tlsSeen = true;
                    // Runs as the handshake completes, before the first application data is decrypted.
                    ssl.handshakeFuture().addListener(f -> {
                        handshake.cancel(false);
                        var sslCtx = ctx.pipeline().context(ssl);
                        if (f.isSuccess() && ctx.channel().isActive() && sslCtx != null) {
                            ctx.pipeline().addAfter(sslCtx.name(), REQUEST_HEAD, new RequestHead());
                        }
                    });
                }
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (counted) {
                counted = false;
                open.decrementAndGet();
            }
            if (handshake != null) {
                handshake.cancel(false);
            }
            ctx.fireChannelInactive();
        }
    }

    /**
     * After TLS (it sees plaintext): starts the header deadline at the first byte of a request. Its partner
     * {@link RequestSeen}, after the HTTP/1.1 codec, ends it when the headers are decoded.
     */
    private final class RequestHead extends ChannelInboundHandlerAdapter {
        private boolean watching;
        private boolean inRequest;
        private ScheduledFuture<?> deadline;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!watching) {
                ChannelHandler codec = ctx.pipeline().get(NettyPipeline.HttpCodec);
                if (codec instanceof HttpServerCodec) {
                    ctx.pipeline().addAfter(NettyPipeline.HttpCodec, REQUEST_SEEN, new RequestSeen(this));
                    if (ctx.pipeline().get(NettyPipeline.HttpTrafficHandler) != null) {
                        ctx.pipeline().addAfter(NettyPipeline.HttpTrafficHandler, ReadAfterDrain.NAME,
                                new ReadAfterDrain());
                    }
                    watching = true;
                } else if (codec != null || ctx.pipeline().get(NettyPipeline.H2MultiplexHandler) != null) {
                    // HTTP/2, set up by ALPN before the first frame is read. Reactor Netty calls no channel
                    // initialiser of ours on its streams, so peers' protocol errors are caught on the connection.
                    if (ctx.pipeline().get(NettyPipeline.H2MultiplexHandler) != null) {
                        ctx.pipeline().addBefore(NettyPipeline.H2MultiplexHandler, H2_ERRORS,
                                new QuietErrors.Http2Peer());
                    }
                    ctx.pipeline().remove(this);
                    ctx.fireChannelRead(msg);
                    return;
                }
            }
            if (watching && !inRequest && deadline == null && msg instanceof ByteBuf b && b.isReadable()) {
                deadline = ctx.executor().schedule(() -> {
                    headerTimeouts.increment();
                    LOG.debug("closing {}: request headers incomplete after {}", ctx.channel(), props.headerTimeout());
                    ctx.close();
                }, props.headerTimeout().toNanos(), TimeUnit.NANOSECONDS);
            }
            ctx.fireChannelRead(msg);
        }

        void headersIn() {
            if (deadline != null) {
                deadline.cancel(false);
                deadline = null;
            }
            inRequest = true;
        }

        void requestEnd() {
            inRequest = false;
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (deadline != null) {
                deadline.cancel(false);
            }
            ctx.fireChannelInactive();
        }
    }

    /** After the HTTP/1.1 codec: tells {@link RequestHead} where requests begin and end. */
    private static final class RequestSeen extends ChannelInboundHandlerAdapter {
        private final RequestHead head;

        RequestSeen(RequestHead head) {
            this.head = head;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpRequest) {
                head.headersIn();
            }
            if (msg instanceof LastHttpContent) {
                head.requestEnd();
            }
            ctx.fireChannelRead(msg);
        }
    }
}
