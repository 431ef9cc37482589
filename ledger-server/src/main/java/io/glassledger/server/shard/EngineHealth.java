package io.glassledger.server.shard;

import io.glassledger.core.txn.TxnEngine;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The engine's state in the health probes (application.yml puts {@code engine} in the readiness group and
 * {@code engineLiveness} in the liveness group): readiness is DOWN while the engine is not UP (a failing store being
 * retried, or failed), liveness only once it has failed for good, so that an orchestrator restarts the process and
 * WAL replay recovers it.
 */
@Configuration(proxyBeanMethods = false)
class EngineHealth {
    @Bean
    HealthIndicator engineHealthIndicator(Shard shard) {
        return () -> of(shard.engine(), shard.engine().health() == TxnEngine.Health.UP);
    }

    @Bean
    HealthIndicator engineLivenessHealthIndicator(Shard shard) {
        return () -> of(shard.engine(), shard.engine().health() != TxnEngine.Health.FAILED);
    }

    private static Health of(TxnEngine e, boolean up) {
        Health.Builder b = up ? Health.up() : Health.down();
        b.withDetail("engine", e.health().name());
        Throwable cause = e.failureCause();
        if (cause != null) {
            b.withDetail("cause", String.valueOf(cause.getMessage()));
        }
        return b.build();
    }
}
