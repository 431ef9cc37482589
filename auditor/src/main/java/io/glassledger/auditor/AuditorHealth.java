package io.glassledger.auditor;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The shards' contact in the readiness probe (application.yml puts {@code shards} in the readiness group, with its
 * details): DOWN while any shard being audited has been silent for longer than
 * {@code glassledger.auditor.max-silence} ({@link ShardContact}), since the auditor then vouches for nothing about
 * it. Liveness is not affected: a restart would not bring the shard back.
 */
@Configuration(proxyBeanMethods = false)
class AuditorHealth {
    @Bean
    HealthIndicator shardsHealthIndicator(AuditService service) {
        return () -> {
            boolean silent = false;
            Map<String, Object> shards = new LinkedHashMap<>();
            for (ShardAuditor a : service.shards()) {
                ShardContact.Report c = a.contact();
                silent |= c.silent();
                Map<String, Object> d = new LinkedHashMap<>();
                d.put("silent", c.silent());
                d.put("silentForMillis", c.silentForMillis());
                d.put("lastHeardAtMillis", c.lastHeardAtMillis());
                d.put("lastError", c.lastError());
                d.put("lastErrorAtMillis", c.lastErrorAtMillis());
                shards.put(Integer.toString(a.shard), d);
            }
            return (silent ? Health.down() : Health.up())
                    .withDetail("maxSilenceMillis", service.maxSilence().toMillis())
                    .withDetail("shards", shards).build();
        };
    }
}
