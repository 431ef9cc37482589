package io.glassledger.server.net;

import io.glassledger.api.net.ReadAfterDrain;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2FrameStreamEvent;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.web.embedded.netty.NettyReactiveWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.core.Ordered;
import reactor.netty.NettyPipeline;
import reactor.netty.http.Http2SettingsSpec;
import reactor.netty.http.server.HttpServer;

/**
 * Bounds what a client can hold without a key on one server, the API's or the management port's
 * (docs/ARCHITECTURE.md "Hostile connections and engine failure"): Reactor Netty's idle and request-body timeouts
 * and HTTP/2 stream bound, and handlers of our own on each accepted connection, since Reactor Netty has no such
 * settings: admission ({@link Admission}: a cap in all and per client address, idle connections giving way to new
 * ones; checked before TLS, so a refused connection costs no handshake), a TLS handshake deadline, an HTTP/1.1
 * request-header deadline that starts at a request's first byte and ends when the codec has decoded its headers
 * (Reactor Netty's read and request timeouts only start after the headers, so they leave a slowloris client
 * alone), and what tells admission when a request is in progress. HTTP/2 frames are decoded whole; an HTTP/2
 * connection is bounded by the idle timeout, the stream bound and admission.
 *
 * <p>It customises its server last ({@link Ordered#LOWEST_PRECEDENCE}): Spring Boot's own customiser replaces
 * Reactor Netty's whole HTTP/2 settings to set the header list size, which left the stream bound at Netty's 100.
 *
 * <p>Threading: each handler belongs to one channel and runs on its event loop; admission and the counters are
 * shared.
 */
class ConnectionGuard implements WebServerFactoryCustomizer<NettyReactiveWebServerFactory>, Ordered {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionGuard.class);
    private static final long WARN_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final AttributeKey<Admission.Ticket> TICKET = AttributeKey.valueOf("glassledger.admission");
    static final String GUARD = "glassledger.connectionGuard";
    static final String REQUEST_HEAD = "glassledger.requestHead";
    static final String REQUEST_SEEN = "glassledger.requestSeen";
    static final String TLS_ERRORS = "glassledger.tlsErrors";
    static final String H2_ERRORS = "glassledger.http2Errors";
    static final String H2_STREAMS = "glassledger.http2Streams";

    private final String port;
    private final ConnectionProperties props;
    private final Admission admission;
    private final Counter refusedByAddress;
    private final Counter refusedFull;
    private final Counter evicted;
    private final Counter handshakeTimeouts;
    private final Counter headerTimeouts;
    private final AtomicLong lastWarn = new AtomicLong(System.nanoTime() - WARN_EVERY_NANOS);
    private final AtomicLong refusedSinceWarn = new AtomicLong();
    private final AtomicLong evictedSinceWarn = new AtomicLong();

    /**
     * @param port the server's name in the meters' {@code port} tag and the log: {@code api} or {@code management}
     * @param cap  the cap on its open connections ({@link #cap})
     */
    ConnectionGuard(String port, ConnectionProperties props, int cap, MeterRegistry registry) {
        this.port = port;
        this.props = props;
        this.admission = new Admission(cap, props.maxPerAddress());
        Gauge.builder("glassledger.connections.open", admission, Admission::open).tag("port", port)
                .description("open client connections (TCP, counted before TLS)").register(registry);
        Gauge.builder("glassledger.connections.idle", admission, Admission::idle).tag("port", port)
                .description("open connections with no request in progress: the first to give way at the cap")
                .register(registry);
        Gauge.builder("glassledger.connections.max", admission, Admission::cap).tag("port", port)
                .description("the cap on open connections in force").register(registry);
        refusedByAddress = refused(registry, "per-address");
        refusedFull = refused(registry, "full");
        evicted = Counter.builder("glassledger.connections.evicted").tag("port", port)
                .description("idle connections closed to admit a new one at the cap").register(registry);
        handshakeTimeouts = timeouts(registry, "handshake");
        headerTimeouts = timeouts(registry, "header");
    }

    private Counter refused(MeterRegistry registry, String reason) {
        return Counter.builder("glassledger.connections.refused").tag("port", port).tag("reason", reason)
                .description("connections closed at once: their address at its cap, or every connection busy")
                .register(registry);
    }

    private Counter timeouts(MeterRegistry registry, String kind) {
        return Counter.builder("glassledger.connections.timeouts").tag("port", port).tag("kind", kind)
                .description("connections closed by a deadline of our own").register(registry);
    }

    /**
     * The API's cap in force: the configured one, lowered so that clients never take the descriptors RocksDB and the
     * WAL need (and, with a small limit, at most half of them).
     */
    static int cap(int configured, int reserved, long fdLimit) {
        if (fdLimit <= 0) {
            return configured;
        }
        long room = Math.max(fdLimit / 2, fdLimit - reserved);
        return (int) Math.max(1, Math.min(configured, room));
    }

    static long maxFileDescriptors() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean u) {
            return u.getMaxFileDescriptorCount();
        }
        return -1;
    }

    /** Open connections now. */
    int open() {
        return admission.open();
    }

    int cap() {
        return admission.cap();
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

    /** Counts a refusal or an eviction, with a WARN line at most every 10 s. */
    private void counted(Admission.Verdict v) {
        if (v.refusal() == Admission.Refusal.ADDRESS) {
            refusedByAddress.increment();
            refusedSinceWarn.incrementAndGet();
        } else if (v.refusal() == Admission.Refusal.FULL) {
            refusedFull.increment();
            refusedSinceWarn.incrementAndGet();
        } else if (v.evicted()) {
            evicted.increment();
            evictedSinceWarn.incrementAndGet();
        } else {
            return;
        }
        long now = System.nanoTime();
        long last = lastWarn.get();
        if (now - last >= WARN_EVERY_NANOS && lastWarn.compareAndSet(last, now)) {
            LOG.warn("{} port, in the last {} s: refused {} connection(s) (an address at its cap of {}, "
                            + "glassledger.connections.max-per-address, or all {} busy), closed {} idle one(s) to "
                            + "admit new ones; {} open", port, TimeUnit.NANOSECONDS.toSeconds(now - last),
                    refusedSinceWarn.getAndSet(0), admission.perAddress(), admission.cap(),
                    evictedSinceWarn.getAndSet(0), admission.open());
        }
    }

    private static InetAddress addressOf(ChannelHandlerContext ctx) {
        return ctx.channel().remoteAddress() instanceof InetSocketAddress a ? a.getAddress()
                : InetAddress.getLoopbackAddress();
    }

    private static Admission.Ticket ticket(ChannelHandlerContext ctx) {
        Admission.Ticket t = ctx.channel().attr(TICKET).get();
        if (t == null && ctx.channel().parent() != null) {
            t = ctx.channel().parent().attr(TICKET).get();
        }
        return t;
    }

    /**
     * First in the pipeline (it sees TLS records): admits the connection and times its handshake. Reactor Netty
     * starts a TLS connection with an SNI handler that becomes the {@link SslHandler} once the ClientHello is in, so
     * the handshake is looked for after each read.
     */
    private final class Guard extends ChannelInboundHandlerAdapter {
        private Admission.Ticket ticket;
        private boolean tlsSeen;
        private ScheduledFuture<?> handshake;

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            Admission.Verdict v = admission.admit(addressOf(ctx), () -> ctx.channel().close());
            counted(v);
            if (v.ticket() == null) {
                ctx.close();
                return;
            }
            ticket = v.ticket();
            ctx.channel().attr(TICKET).set(ticket);
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
            if (ticket != null) {
                ticket.release();
            }
            if (handshake != null) {
                handshake.cancel(false);
            }
            ctx.fireChannelInactive();
        }
    }

    /**
     * After TLS (it sees plaintext): starts the header deadline at the first byte of a request. Its partner
     * {@link RequestSeen}, after the HTTP/1.1 codec, ends it when the headers are decoded. On HTTP/2 it hands over
     * to {@link Http2Streams} and the peer-error handler and leaves.
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
                    // initialiser of ours on its streams, so they are watched on the connection.
                    if (codec instanceof Http2ConnectionHandler h2
                            && ctx.pipeline().get(NettyPipeline.H2MultiplexHandler) != null) {
                        ctx.pipeline().addBefore(NettyPipeline.H2MultiplexHandler, H2_STREAMS, new Http2Streams(h2));
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

    /**
     * After the HTTP/1.1 codec: tells {@link RequestHead} where requests begin and end, and admission that a request
     * is in progress from its headers until its response's last piece is written (an informational response, such
     * as 100 Continue, ends nothing).
     */
    private static final class RequestSeen extends ChannelDuplexHandler {
        private final RequestHead head;

        RequestSeen(RequestHead head) {
            this.head = head;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpRequest) {
                head.headersIn();
                Admission.Ticket t = ticket(ctx);
                if (t != null) {
                    t.busy();
                }
            }
            if (msg instanceof LastHttpContent) {
                head.requestEnd();
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            boolean informational = msg instanceof HttpResponse r
                    && r.status().codeClass() == HttpStatusClass.INFORMATIONAL;
            if (msg instanceof LastHttpContent && !informational) {
                Admission.Ticket t = ticket(ctx);
                if (t != null) {
                    t.idle();
                }
            }
            ctx.write(msg, promise);
        }
    }

    /**
     * On an HTTP/2 connection, before the stream multiplexer: the connection has a request in progress while any of
     * its streams is active (the codec reports each change of a stream's state; its count is already up to date).
     */
    private static final class Http2Streams extends ChannelInboundHandlerAdapter {
        private final Http2ConnectionHandler codec;
        private boolean busy;

        Http2Streams(Http2ConnectionHandler codec) {
            this.codec = codec;
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt instanceof Http2FrameStreamEvent) {
                boolean now = codec.connection().numActiveStreams() > 0;
                Admission.Ticket t = ticket(ctx);
                if (now != busy && t != null) {
                    if (now) {
                        t.busy();
                    } else {
                        t.idle();
                    }
                }
                busy = now;
            }
            ctx.fireUserEventTriggered(evt);
        }
    }
}
