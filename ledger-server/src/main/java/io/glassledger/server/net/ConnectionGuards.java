package io.glassledger.server.net;

import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The API port's connection guard. The management port has its own ({@link ManagementConnections}), with its own
 * admission, so that the API's connections can never take the health probes' place.
 */
@Configuration(proxyBeanMethods = false)
class ConnectionGuards {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionGuards.class);

    @Bean
    ConnectionGuard apiConnectionGuard(ConnectionProperties props, MeterRegistry registry) {
        long fdLimit = ConnectionGuard.maxFileDescriptors();
        int cap = ConnectionGuard.cap(props.maxOpen(), props.reservedFileDescriptors(), fdLimit);
        LOG.info("connections: at most {} open (glassledger.connections.max-open {}, file descriptor limit {}, {} "
                        + "reserved), {} from one address, {} HTTP/2 streams each; timeouts: handshake {}, header {}, "
                        + "request body {}, idle {}",
                cap, props.maxOpen(), fdLimit < 0 ? "unknown" : fdLimit, props.reservedFileDescriptors(),
                props.maxPerAddress(), props.maxStreams(), props.handshakeTimeout(), props.headerTimeout(),
                props.requestTimeout(), props.idleTimeout());
        return new ConnectionGuard("api", props, cap, registry);
    }
}
