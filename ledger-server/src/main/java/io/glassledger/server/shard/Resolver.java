package io.glassledger.server.shard;

import io.glassledger.verify.hash.Bytes;
import io.glassledger.verify.txn.Transaction;
import io.glassledger.core.txn.TxState;
import io.glassledger.core.txn.TxnEngine;
import io.glassledger.core.txn.TxnException;
import io.glassledger.server.LedgerProperties;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PreDestroy;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Resolves 2PC transactions left prepared here past {@code glassledger.cluster.prepare-timeout}, so that no client
 * that died (and no shard that restarted) keeps keys locked: the primary participant (the first in the
 * transaction's participant list) holds the decision. Here as primary, the transaction is aborted unless already
 * decided; elsewhere the primary is asked ({@code POST /v1/tx/{id}/resolve}, which records an abort if it has no
 * decision; through {@link PeerLink}) and its answer is applied. An unreachable primary is asked again at the next round.
 */
@Component
public class Resolver {
    private static final Logger LOG = LoggerFactory.getLogger(Resolver.class);

    private final Shard shard;
    private final LedgerProperties.Cluster cluster;
    private final PeerLink peers;
    private final ScheduledExecutorService timer;
    private final Counter committed;
    private final Counter aborted;
    private final Counter failures;

    public Resolver(Shard shard, LedgerProperties props, PeerLink peers, MeterRegistry registry) {
        this.shard = shard;
        this.cluster = props.cluster();
        this.peers = peers;
        if (!cluster.peers().isEmpty() && cluster.peers().size() != cluster.shards()) {
            throw new IllegalStateException("glassledger.cluster.peers lists " + cluster.peers().size()
                    + " URLs for " + cluster.shards() + " shards");
        }
        if (props.shard() >= cluster.shards()) {
            throw new IllegalStateException("glassledger.shard " + props.shard() + " is outside the shard map of "
                    + cluster.shards() + " shards");
        }
        String s = Integer.toString(shard.number());
        committed = counter(registry, s, "committed");
        aborted = counter(registry, s, "aborted");
        failures = counter(registry, s, "failed");
        Gauge.builder("glassledger.2pc.prepared", shard, x -> x.engine().preparedTransactions().size())
                .description("transactions prepared and not yet decided").tag("shard", s).register(registry);
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "glassledger-resolver");
            t.setDaemon(true);
            return t;
        });
        long every = cluster.resolveInterval().toMillis();
        timer.scheduleWithFixedDelay(this::round, every, every, TimeUnit.MILLISECONDS);
    }

    private static Counter counter(MeterRegistry registry, String shard, String outcome) {
        return Counter.builder("glassledger.2pc.resolved").description("prepared transactions resolved after the "
                + "prepare timeout, by outcome").tag("shard", shard).tag("outcome", outcome).register(registry);
    }

    private void round() {
        long now = System.nanoTime();
        long timeout = cluster.prepareTimeout().toNanos();
        if (!shard.engine().isLeader()) {
            return;  // a follower's prepared transactions are its leader's to resolve
        }
        for (TxnEngine.Held h : shard.engine().held()) {
            if (now - h.sinceNanos() >= timeout) {
                try {
                    resolve(h.stx().tx());
                } catch (Exception e) {
                    failures.increment();
                    LOG.warn("cannot resolve prepared transaction {} yet: {}", h.stx().txId().hex(), e.toString());
                }
            }
        }
    }

    private void resolve(Transaction tx) throws Exception {
        int primary = tx.participants().get(0);
        Bytes id = tx.txId();
        TxState outcome = primary == shard.number() ? shard.engine().resolve(id).get(30, TimeUnit.SECONDS)
                : ask(primary, id);
        switch (outcome) {
            case COMMITTED -> apply(id, true);
            case ABORTED -> apply(id, false);
            case PREPARED -> throw new IllegalStateException("primary shard " + primary + " still holds it prepared");
            default -> {
                failures.increment();
                LOG.error("transaction {} is prepared here but its primary shard {} has no decision it can vouch for "
                        + "(older than its decision retention); an operator must decide it with POST "
                        + "/v1/tx/{}/commit or /abort (admin)", id.hex(), primary, id.hex());
                return;
            }
        }
        LOG.info("resolved transaction {} prepared past the timeout: {} (primary shard {})", id.hex(),
                outcome.name().toLowerCase(Locale.ROOT), primary);
    }

    private void apply(Bytes id, boolean commit) throws Exception {
        try {
            shard.engine().decide(id, commit).get(30, TimeUnit.SECONDS);
            (commit ? committed : aborted).increment();
        } catch (ExecutionException e) {
            // Decided meanwhile (the client's decision arrived): nothing left to do.
            if (!(e.getCause() instanceof TxnException t) || (t.reason() != TxnException.Reason.UNKNOWN_TRANSACTION
                    && t.reason() != TxnException.Reason.ALREADY_DECIDED)) {
                throw e;
            }
        }
    }

    private TxState ask(int primary, Bytes id) throws Exception {
        try {
            return peers.resolve(primary, id).get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception c ? c : e;
        }
    }

    @PreDestroy
    void close() {
        timer.shutdownNow();
    }
}
