package io.glassledger.server.net;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.actuate.autoconfigure.web.server.ConditionalOnManagementPort;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.context.annotation.Bean;

/**
 * The management port's connection guard (health probes and metrics, docs/API.md "Metrics"): the same deadlines as
 * the API's, and admission of its own, capped at {@code glassledger.connections.management-max-open}.
 *
 * <p>Spring Boot serves the management port from a child application context of its own, whose web server takes
 * only that context's customisers; this class is imported there through
 * {@code META-INF/spring/...ManagementContextConfiguration.imports}. It is deliberately not a
 * {@code @Configuration}: component scanning would put it in the API's context as well, and its guard on the API's
 * server.
 */
class ManagementConnections {
    @Bean
    @ConditionalOnManagementPort(ManagementPortType.DIFFERENT)
    ConnectionGuard managementConnectionGuard(ConnectionProperties props, MeterRegistry registry) {
        return new ConnectionGuard("management", props, props.managementMaxOpen(), registry);
    }
}
