package io.glassledger.server.shard;

import io.glassledger.core.txn.TxnEngine;
import io.glassledger.core.txn.TxnException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The shard's Micrometer metrics (docs/API.md "Metrics"): commits, aborts by cause, a latency histogram per phase
 * (commit as the server sees it, WAL fsync, persist per epoch, proof traversal), block sizes, proof sizes and the
 * queue depth; and the engine's failures, each also one ERROR log line (docs/ARCHITECTURE.md "Hostile connections and
 * engine failure").
 */
@Component
public class ShardMetrics implements TxnEngine.Observer {
    private static final Logger LOG = LoggerFactory.getLogger(ShardMetrics.class);
    private final String shardTag;
    private final Counter retriedFailures;
    private final Counter fatalFailures;
    private final Counter commits;
    private final Map<TxnException.Reason, Counter> aborts = new EnumMap<>(TxnException.Reason.class);
    private final Timer commitPhase;
    private final Timer walFsync;
    private final Timer persistPhase;
    private final Timer proofPhase;
    private final DistributionSummary blockKeys;
    private final DistributionSummary proofBytes;
    private final Counter keysCommitted;

    public ShardMetrics(MeterRegistry registry, Shard shard) {
        String s = Integer.toString(shard.number());
        shardTag = s;
        retriedFailures = Counter.builder("glassledger.engine.failures")
                .description("engine failures: fatal=false while the store is retried, true when the engine stops")
                .tag("shard", s).tag("fatal", "false").register(registry);
        fatalFailures = Counter.builder("glassledger.engine.failures")
                .description("engine failures: fatal=false while the store is retried, true when the engine stops")
                .tag("shard", s).tag("fatal", "true").register(registry);
        commits = Counter.builder("glassledger.commits").description("transactions committed").tag("shard", s)
                .register(registry);
        keysCommitted = Counter.builder("glassledger.committed.writes").description("writes committed")
                .tag("shard", s).register(registry);
        for (TxnException.Reason r : TxnException.Reason.values()) {
            aborts.put(r, Counter.builder("glassledger.aborts").description("transactions refused, by cause")
                    .tag("shard", s).tag("cause", r.name().toLowerCase(Locale.ROOT)).register(registry));
        }
        commitPhase = phase(registry, s, "commit");
        walFsync = Timer.builder("glassledger.wal.fsync").description("WAL group-commit write and fsync")
                .tag("shard", s).publishPercentileHistogram().minimumExpectedValue(Duration.ofNanos(50_000))
                .maximumExpectedValue(Duration.ofSeconds(2)).register(registry);
        persistPhase = phase(registry, s, "persist");
        proofPhase = phase(registry, s, "proof");
        blockKeys = DistributionSummary.builder("glassledger.block.keys").description("writes per block")
                .tag("shard", s).publishPercentileHistogram().register(registry);
        proofBytes = DistributionSummary.builder("glassledger.proof.bytes").description("encoded proof sizes")
                .tag("shard", s).baseUnit("bytes").publishPercentileHistogram().register(registry);
        Gauge.builder("glassledger.queue.depth", shard, x -> x.engine().queueDepth()).description("requests waiting")
                .tag("shard", s).register(registry);
        Gauge.builder("glassledger.unpersisted.writes", shard, x -> x.engine().stats().unpersistedWrites())
                .description("committed writes not yet in the ledger").tag("shard", s).register(registry);
        Gauge.builder("glassledger.head.block", shard, x -> x.engine().digest().blockNo())
                .description("latest persisted block").tag("shard", s).register(registry);
        shard.onEngine(e -> e.observe(this));
    }

    private static Timer phase(MeterRegistry registry, String shard, String phase) {
        return Timer.builder("glassledger.phase").description("latency of a transaction phase")
                .tag("shard", shard).tag("phase", phase).publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofNanos(50_000)).maximumExpectedValue(Duration.ofSeconds(30))
                .register(registry);
    }

    public void committed(int writes, long nanos) {
        commits.increment();
        keysCommitted.increment(writes);
        commitPhase.record(nanos, TimeUnit.NANOSECONDS);
    }

    public void refused(Throwable t) {
        Throwable c = t;
        while (c != null && !(c instanceof TxnException)) {
            c = c.getCause();
        }
        if (c instanceof TxnException x) {
            aborts.get(x.reason()).increment();
        }
    }

    public void proofSize(int bytes) {
        proofBytes.record(bytes);
    }

    @Override
    public void walSynced(long nanos, int requests) {
        walFsync.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void persisted(List<Integer> keysPerBlock, long nanos) {
        persistPhase.record(nanos, TimeUnit.NANOSECONDS);
        keysPerBlock.forEach(blockKeys::record);
    }

    @Override
    public void proved(int keys, long nanos) {
        proofPhase.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void failed(Throwable cause, boolean fatal) {
        if (fatal) {
            fatalFailures.increment();
            LOG.error("shard {} engine failed and refuses every request until restarted (liveness DOWN): {}",
                    shardTag, cause.toString(), cause);
        } else {
            retriedFailures.increment();
            LOG.error("shard {} store failed; retrying block writes, readiness DOWN until it recovers: {}", shardTag,
                    cause.toString(), cause);
        }
    }

    @Override
    public void recovered(long nanos) {
        LOG.warn("shard {} store recovered after {} ms; readiness UP", shardTag, TimeUnit.NANOSECONDS.toMillis(nanos));
    }
}
