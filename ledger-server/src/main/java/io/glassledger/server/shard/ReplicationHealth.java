package io.glassledger.server.shard;

import io.glassledger.server.directory.Directory;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A member's part in its Raft groups, in the readiness probe (application.yml puts {@code replication} and
 * {@code directory} in the readiness group, not the liveness group: a restart mends none of these): DOWN while the
 * shard's replica is quarantined, its Raft server or log is closed, it is not in its group's configuration, or it is
 * out of touch with a majority; and while the member is cut off from the cluster directory. UP for a server with no
 * Raft group.
 */
@Configuration(proxyBeanMethods = false)
class ReplicationHealth {
    @Bean
    HealthIndicator replicationHealthIndicator(Shard shard) {
        return () -> shard.replicas().map(r -> of(r.notReady(), r.describe(), r.refusedCalls()))
                .orElseGet(() -> Health.up().build());
    }

    @Bean
    HealthIndicator directoryHealthIndicator(Directory directory) {
        return () -> directory.enabled() ? of(directory.notReady(), directory.describe(), directory.refusedCalls())
                : Health.up().build();
    }

    private static Health of(String notReady, java.util.Map<String, Object> details, long refused) {
        Health.Builder b = notReady == null ? Health.up() : Health.down().withDetail("reason", notReady);
        return b.withDetails(details).withDetail("refusedRaftCalls", refused).build();
    }
}
