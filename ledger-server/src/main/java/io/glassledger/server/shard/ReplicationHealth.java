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
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ReplicationHealth.class);

    @Bean
    HealthIndicator replicationHealthIndicator(Shard shard) {
        Transitions t = new Transitions("the shard's replica");
        return () -> shard.replicas().map(r -> t.of(r.notReady(), r.describe(), r.refusedCalls()))
                .orElseGet(() -> Health.up().build());
    }

    @Bean
    HealthIndicator directoryHealthIndicator(Directory directory) {
        Transitions t = new Transitions("this member of the cluster directory");
        return () -> directory.enabled() ? t.of(directory.notReady(), directory.describe(), directory.refusedCalls())
                : Health.up().build();
    }

    /**
     * Builds the health and logs each change of readiness with its reason (the probes show only UP or DOWN: the
     * reason is for the operator's log).
     */
    private static final class Transitions {
        private final String what;
        private String last;

        Transitions(String what) {
            this.what = what;
        }

        synchronized Health of(String notReady, java.util.Map<String, Object> details, long refused) {
            if (!java.util.Objects.equals(notReady, last) && (notReady == null) != (last == null)) {
                if (notReady == null) {
                    LOG.info("{} is ready again", what);
                } else {
                    LOG.warn("{} is not ready: {}", what, notReady);
                }
            }
            last = notReady;
            Health.Builder b = notReady == null ? Health.up() : Health.down().withDetail("reason", notReady);
            return b.withDetails(details).withDetail("refusedRaftCalls", refused).build();
        }
    }
}
