package io.glassledger.server.net;

import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Settings under {@code glassledger.connections.*} (docs/API.md "Limits"), for the API port and the management port
 * alike unless named for one. Every timeout closes the connection.
 *
 * @param maxOpen          open connections to the API port (TCP, counted before TLS); at this cap a new one closes the
 *                         connection idle the longest (no request in progress), or is closed at once if every one
 *                         is busy; lowered at start to the process's file-descriptor limit minus
 *                         {@code reserved-file-descriptors}
 * @param maxPerAddress    open connections from one client address, on each port; beyond it a new one from that
 *                         address is closed at once (behind a NAT or a proxy that hides clients' addresses, raise
 *                         it)
 * @param managementMaxOpen open connections to the management port (health probes, metrics), counted apart from the
 *                         API's so that the API's connections cannot take them; at this cap as for
 *                         {@code max-open}
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
                                   @Min(1) @DefaultValue("256") int maxPerAddress,
                                   @Min(1) @DefaultValue("64") int managementMaxOpen,
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
