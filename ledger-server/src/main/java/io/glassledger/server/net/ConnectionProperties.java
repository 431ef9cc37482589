package io.glassledger.server.net;

import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Settings under {@code glassledger.connections.*} (docs/API.md "Limits"). Every timeout closes the connection.
 *
 * @param maxOpen          open connections (TCP, before TLS) beyond which a new one is closed at once; lowered at
 *                         start to the process's file-descriptor limit minus {@code reserved-file-descriptors}
 * @param reservedFileDescriptors descriptors kept for RocksDB, the WAL, peers and the JVM, never used by clients
 * @param handshakeTimeout a connection must complete its TLS handshake within this of being accepted
 * @param headerTimeout    once the first byte of an HTTP/1.1 request has arrived, its request line and headers must
 *                         be complete within this (slowloris)
 * @param requestTimeout   the request body, once its headers are in, must be read completely within this
 * @param idleTimeout      a connection with no request in progress is closed after this
 * @param maxStreams       HTTP/2 streams a client may have open at once on one connection
 *                         ({@code SETTINGS_MAX_CONCURRENT_STREAMS})
 */
@Validated
@ConfigurationProperties("glassledger.connections")
public record ConnectionProperties(@Min(1) @DefaultValue("4096") int maxOpen,
                                   @Min(0) @DefaultValue("1024") int reservedFileDescriptors,
                                   @NotNull @DefaultValue("10s") Duration handshakeTimeout,
                                   @NotNull @DefaultValue("10s") Duration headerTimeout,
                                   @NotNull @DefaultValue("60s") Duration requestTimeout,
                                   @NotNull @DefaultValue("60s") Duration idleTimeout,
                                   @Min(1) @DefaultValue("1000") int maxStreams) {
    public ConnectionProperties {
        for (Duration d : new Duration[] {handshakeTimeout, headerTimeout, requestTimeout, idleTimeout}) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("glassledger.connections timeouts must be positive");
            }
        }
    }
}
