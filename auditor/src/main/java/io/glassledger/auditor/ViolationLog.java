package io.glassledger.auditor;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The auditor's record of every violation it found (the SDK's {@code Violations} only hands a client's to its
 * handler), made impossible to miss: appended (fsynced) to {@code <data>/violations.jsonl}, which is reloaded
 * at start; counted in {@code glassledger_auditor_violations_total{shard,kind}} for alerts; logged at ERROR; and,
 * if configured, POSTed as JSON to the webhook.
 */
final class ViolationLog {
    private static final Logger LOG = LoggerFactory.getLogger(ViolationLog.class);

    private final Path file;
    private final ObjectMapper json;
    private final MeterRegistry registry;
    private final URI webhook;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<Violation> all = new CopyOnWriteArrayList<>();

    ViolationLog(Path file, ObjectMapper json, MeterRegistry registry, URI webhook) {
        this.file = file;
        this.json = json;
        this.registry = registry;
        this.webhook = webhook;
        try {
            if (Files.exists(file)) {
                for (String line : Files.readAllLines(file)) {
                    if (!line.isBlank()) {
                        Violation v = json.readValue(line, Violation.class);
                        all.add(v);
                        counter(v).increment();
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    private Counter counter(Violation v) {
        return Counter.builder("glassledger.auditor.violations").description("integrity violations found")
                .tag("shard", Integer.toString(v.shard())).tag("kind", v.kind()).register(registry);
    }

    synchronized void report(Violation v) {
        try {
            Files.writeString(file, json.writeValueAsString(v) + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.SYNC);
        } catch (IOException e) {
            LOG.error("cannot record a violation in {}: {}", file, e.toString());
        }
        all.add(v);
        counter(v).increment();
        LOG.error("INTEGRITY VIOLATION on shard {} at block {}: {}: {}", v.shard(), v.block(), v.kind(), v.detail());
        if (webhook != null) {
            try {
                HttpRequest req = HttpRequest.newBuilder(webhook).timeout(Duration.ofSeconds(10))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(v))).build();
                http.sendAsync(req, HttpResponse.BodyHandlers.discarding()).exceptionally(e -> {
                    LOG.error("violation webhook {} failed: {}", webhook, e.toString());
                    return null;
                });
            } catch (IOException e) {
                LOG.error("violation webhook {} failed: {}", webhook, e.toString());
            }
        }
    }

    List<Violation> of(int shard) {
        List<Violation> out = new ArrayList<>();
        for (Violation v : all) {
            if (v.shard() == shard) {
                out.add(v);
            }
        }
        return out;
    }
}
