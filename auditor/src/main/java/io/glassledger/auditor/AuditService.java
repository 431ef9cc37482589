package io.glassledger.auditor;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PreDestroy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/** One {@link ShardAuditor} per shard of the configured cluster, each polled on its own thread. */
@Component
class AuditService {
    private static final Logger LOG = LoggerFactory.getLogger(AuditService.class);

    private final List<ShardAuditor> shards = new ArrayList<>();
    private final ScheduledExecutorService timer;

    AuditService(AuditorProperties props, ObjectMapper json, MeterRegistry registry) {
        List<URI> urls = new ArrayList<>(props.shards());
        String pin = props.pin();
        if (props.cluster() != null) {
            Properties p = new Properties();
            try (var in = Files.newBufferedReader(props.cluster())) {
                p.load(in);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read cluster file " + props.cluster(), e);
            }
            int n = Integer.parseInt(p.getProperty("shards", "0").trim());
            urls.clear();
            for (int i = 0; i < n; i++) {
                urls.add(URI.create(p.getProperty("url." + i).trim()));
            }
            if (pin.isBlank() && p.getProperty("pin") != null) {
                pin = p.getProperty("pin").trim();
            }
        }
        if (urls.isEmpty()) {
            throw new IllegalStateException("no shards to audit: set glassledger.auditor.cluster (a cluster.properties "
                    + "file) or glassledger.auditor.shards and glassledger.auditor.pin");
        }
        if (props.apiKey().isBlank()) {
            throw new IllegalStateException("glassledger.auditor.api-key: an API key with role auditor is required");
        }
        try {
            Files.createDirectories(props.dataDir());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Violations violations = new Violations(props.dataDir().resolve("violations.jsonl"), json, registry,
                props.webhook());
        for (int i = 0; i < urls.size(); i++) {
            ShardAuditor a = new ShardAuditor(i, new ShardHttp(urls.get(i), pin, props.apiKey(), json),
                    props.dataDir().resolve("shard-" + i), json, violations, Math.max(1, props.spotCheckEvery()));
            shards.add(a);
            String s = Integer.toString(i);
            FunctionCounter.builder("glassledger.auditor.blocks.verified", a, ShardAuditor::blocksVerified)
                    .description("blocks re-executed and matched").tag("shard", s).register(registry);
            FunctionCounter.builder("glassledger.auditor.writes.verified", a, ShardAuditor::writesApplied)
                    .description("writes re-executed in matched blocks").tag("shard", s).register(registry);
            Gauge.builder("glassledger.auditor.lag.blocks", a, ShardAuditor::lag)
                    .description("blocks the shard's head is ahead of the audit").tag("shard", s).register(registry);
            Gauge.builder("glassledger.auditor.audited.block", a, ShardAuditor::auditedBlock)
                    .description("the last block verified").tag("shard", s).register(registry);
            Gauge.builder("glassledger.auditor.halted", a, x -> x.halted() == null ? 0 : 1)
                    .description("1 once a violation stopped the shard's audit").tag("shard", s).register(registry);
        }
        timer = Executors.newScheduledThreadPool(shards.size(), r -> {
            Thread t = new Thread(r, "auditor-poll");
            t.setDaemon(true);
            return t;
        });
        long every = props.pollInterval().toMillis();
        for (ShardAuditor a : shards) {
            timer.scheduleWithFixedDelay(a::poll, 0, every, TimeUnit.MILLISECONDS);
        }
        LOG.info("auditing {} shard(s): {}; state in {}", shards.size(), urls, props.dataDir().toAbsolutePath());
    }

    List<ShardAuditor> shards() {
        return shards;
    }

    @PreDestroy
    void close() throws InterruptedException {
        timer.shutdownNow();
        timer.awaitTermination(30, TimeUnit.SECONDS);
        shards.forEach(ShardAuditor::close);
    }
}
