package io.glassledger.auditor;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.glassledger.verify.hash.Bytes;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PreDestroy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;

/** One {@link ShardAuditor} per shard of the configured cluster, each polled on its own thread. */
@Component
class AuditService {
    private static final Logger LOG = LoggerFactory.getLogger(AuditService.class);

    private final List<ShardAuditor> shards = new ArrayList<>();
    private final ScheduledExecutorService timer;
    private final Duration maxSilence;

    /**
     * @param clock what a shard's silence is measured by ({@link ShardContact}): a {@link Clock} bean (a test's),
     *              else the system's
     */
    AuditService(AuditorProperties props, ObjectMapper json, MeterRegistry registry, ObjectProvider<Clock> clock) {
        this.maxSilence = props.maxSilence();
        Clock time = clock.getIfAvailable(Clock::systemUTC);
        List<List<URI>> urls = new ArrayList<>(props.shards().stream().map(List::of).toList());
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
                // A replicated shard lists its replicas, separated by commas: the auditor reads from any of them.
                List<URI> rs = new ArrayList<>();
                for (String u : p.getProperty("url." + i, "").split(",")) {
                    if (!u.isBlank()) {
                        rs.add(URI.create(u.trim()));
                    }
                }
                if (rs.isEmpty()) {
                    throw new IllegalStateException(props.cluster() + ": url." + i + " is missing");
                }
                urls.add(List.copyOf(rs));
            }
            if (pin.isBlank() && p.getProperty("pin") != null) {
                pin = p.getProperty("pin").trim();
            }
        }
        if (pin.isBlank() && props.pinCertificate() != null) {
            pin = io.glassledger.api.SelfSignedCertificate.pemFingerprint(props.pinCertificate().toString());
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
        ViolationLog violations = new ViolationLog(props.dataDir().resolve("violations.jsonl"), json, registry,
                props.webhook());
        Map<Bytes, String> clientKeys = props.clientKeys() == null ? null : clientKeys(props.clientKeys());
        timer = Executors.newScheduledThreadPool(urls.size(), r -> {
            Thread t = new Thread(r, "auditor-poll");
            t.setDaemon(true);
            return t;
        });
        ShardAuditor.Limits limits = new ShardAuditor.Limits(timer, props.auditCatchUpInterval(),
                Duration.ofSeconds(10), props.maxClientKeys(), props.replayWindow());
        for (int i = 0; i < urls.size(); i++) {
            ShardContact contact = new ShardContact(time, props.maxSilence());
            ShardAuditor a = new ShardAuditor(i, new ShardHttp(urls.get(i), pin, props.apiKey(), json, contact::heard),
                    props.dataDir().resolve("shard-" + i), json, violations, Math.max(1, props.spotCheckEvery()),
                    clientKeys, limits, contact);
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
        long every = props.pollInterval().toMillis();
        for (ShardAuditor a : shards) {
            timer.scheduleWithFixedDelay(a::poll, 0, every, TimeUnit.MILLISECONDS);
        }
        LOG.info("auditing {} shard(s): {}; state in {}", shards.size(), urls, props.dataDir().toAbsolutePath());
    }

    /** {@code <hex public key> [client id]} per line; blank lines and {@code #} comments skipped. */
    static Map<Bytes, String> clientKeys(Path file) {
        Map<Bytes, String> keys = new java.util.LinkedHashMap<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new IllegalStateException("glassledger.auditor.client-keys: cannot read " + file + ": " + e, e);
        }
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\\s+", 2);
            Bytes k;
            try {
                k = Bytes.fromHex(f[0]);
            } catch (IllegalArgumentException e) {
                k = null;
            }
            if (k == null || k.length() != 32) {
                throw new IllegalStateException("glassledger.auditor.client-keys: " + file + ":" + (i + 1)
                        + ": not a 32-byte Ed25519 public key in hex");
            }
            keys.put(k, f.length > 1 ? f[1] : "line " + (i + 1));
        }
        if (keys.isEmpty()) {
            throw new IllegalStateException("glassledger.auditor.client-keys: " + file + " lists no key");
        }
        return Map.copyOf(keys);
    }

    List<ShardAuditor> shards() {
        return shards;
    }

    /** {@code glassledger.auditor.max-silence}: how long a shard may go unheard before the auditor is not ready. */
    Duration maxSilence() {
        return maxSilence;
    }

    @PreDestroy
    void close() throws InterruptedException {
        timer.shutdownNow();
        timer.awaitTermination(30, TimeUnit.SECONDS);
        shards.forEach(ShardAuditor::close);
    }
}
