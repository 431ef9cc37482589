package io.glassledger.server.shard;

import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.block.Block;
import io.glassledger.verify.proof.Digest;
import io.glassledger.verify.proof.SignedHead;
import io.glassledger.core.txn.EngineConfig;
import io.glassledger.core.txn.TxnEngine;
import io.glassledger.server.LedgerProperties;
import io.glassledger.api.PrivateFiles;
import jakarta.annotation.PreDestroy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The shard: its engine (opened from {@code <data>/shard-N}), the server's Ed25519 key ({@code <data>/server.key},
 * hex seed, mode 600, made at first start) that signs ledger heads, and the executor for blocking ledger reads and
 * proofs, which never run on a Netty event-loop thread.
 */
@Component
public class Shard {
    private static final Logger LOG = LoggerFactory.getLogger(Shard.class);

    /** How long shutdown waits for the reads and proofs in flight. */
    static final java.time.Duration READS_DRAIN = java.time.Duration.ofSeconds(10);

    private volatile TxnEngine engine;
    private final io.glassledger.server.replication.ReplicaGroup replicas;
    private final java.util.List<java.util.function.Consumer<TxnEngine>> engineListeners =
            new java.util.concurrent.CopyOnWriteArrayList<>();
    private final java.util.concurrent.CompletableFuture<TxnEngine> firstEngine =
            new java.util.concurrent.CompletableFuture<>();
    private final SigningKey serverKey;
    private final ExecutorService readExecutor;
    private final Scheduler reads;
    private final AtomicReference<SignedHead> head = new AtomicReference<>();

    /**
     * @param storeDecorator a test's fault injection around the engine's store ({@link StoreDecorator}); none in
     *                       production
     */
    public Shard(LedgerProperties props, ObjectProvider<StoreDecorator> storeDecorator,
                 io.glassledger.server.auth.AuthStore auth) {
        Path data = props.dataDir();
        try {
            Files.createDirectories(data);
            this.serverKey = loadOrCreateKey(data.resolve("server.key"), props.auth().serverKey());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        EngineConfig cfg = EngineConfig.defaults(LedgerProperties.shardDir(data, props.shard()))
                .withShard(props.shard())
                .withPersistInterval(props.persistInterval())
                .withMaxUnpersistedWrites(props.maxUnpersistedWrites())
                .withLedgerCacheBytes(props.ledgerCache().toBytes())
                .withMaxTxBytes(props.limits().maxTransactionBytes())
                .withBatching(props.batching())
                .withStoreRetryWindow(props.storeRetryWindow());
        if (props.replication().enabled()) {
            // One replica of a Raft group: the engine opens inside Ratis's state machine, and reopens there after a
            // snapshot install or a lost leadership; every engine it opens is announced here.
            this.replicas = new io.glassledger.server.replication.ReplicaGroup(props.replication(), cfg,
                    data.resolve("raft-" + props.shard()), auth, this::engineOpened,
                    // The shard's Raft port takes only holders of the shard's signing key: its replicas.
                    io.glassledger.server.raft.GroupIdentity.tls(serverKey.seed(), "shard " + props.shard()),
                    io.glassledger.server.replication.LogSeal.of(serverKey, props.shard()));
            replicas.start();
            try {
                this.engine = firstEngine.get(10, TimeUnit.MINUTES);
            } catch (Exception e) {
                replicas.close();
                throw new IllegalStateException("shard " + props.shard() + ": the replica's engine did not open", e);
            }
        } else {
            this.replicas = null;
            this.engine = TxnEngine.open(cfg, storeDecorator.getIfAvailable(() -> s -> s));
        }
        int threads = Math.max(2, Runtime.getRuntime().availableProcessors());
        this.readExecutor = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "glassledger-read");
            t.setDaemon(true);
            return t;
        });
        this.reads = Schedulers.fromExecutorService(readExecutor, "glassledger-read");
        LOG.info("shard {} open at {}: head block {}, server key {}", props.shard(), data.toAbsolutePath(),
                engine.digest().blockNo(), serverKey.publicKey().hex());
    }

    /**
     * The shard's signing key: {@code configured} (a seed in hex, from {@code glassledger.auth.server-key}) when
     * given, else the one in {@code server.key}, made at random at the first start. A configured key is written to
     * {@code server.key} too, so that the data directory names its signer; a data directory that already holds
     * another key is refused (its ledger is signed by that key: clients pinned it).
     */
    static SigningKey loadOrCreateKey(Path p, String configured) throws IOException {
        SigningKey onDisk = Files.exists(p)
                ? SigningKey.fromSeed(HexFormat.of().parseHex(Files.readString(p, StandardCharsets.UTF_8).trim()))
                : null;
        if (configured.isEmpty()) {
            if (onDisk != null) {
                return onDisk;
            }
            SigningKey k = SigningKey.generate();
            PrivateFiles.write(p, HexFormat.of().formatHex(k.seed()) + "\n");
            return k;
        }
        SigningKey k = SigningKey.fromSeed(HexFormat.of().parseHex(configured));
        if (onDisk == null) {
            PrivateFiles.write(p, HexFormat.of().formatHex(k.seed()) + "\n");
        } else if (!onDisk.publicKey().equals(k.publicKey())) {
            throw new IllegalStateException(p.toAbsolutePath() + " holds the signing key " + onDisk.publicKey().hex()
                    + ", but glassledger.auth.server-key is the key " + k.publicKey().hex() + ": this data directory's "
                    + "ledger is signed by the first, which its clients pinned. Configure that key, or start on an "
                    + "empty data directory");
        }
        return k;
    }

    public TxnEngine engine() {
        return engine;
    }

    private void engineOpened(TxnEngine e) {
        this.engine = e;
        head.set(null);
        engineListeners.forEach(l -> l.accept(e));
        firstEngine.complete(e);
    }

    /** Calls {@code l} with the current engine now, and with every engine this replica opens later. */
    public void onEngine(java.util.function.Consumer<TxnEngine> l) {
        engineListeners.add(l);
        l.accept(engine);
    }

    /** This shard's replica of its Raft group, or empty for a single-replica shard. */
    /**
     * Completes when a latest read (or a transaction's status) may be answered here: at once for a single server; at a
     * replica, once it has confirmed that it leads its group now (ReplicaGroup#confirmLeadership), so that a leader cut
     * off from its group answers no stale read. Fails with {@code NOT_LEADER} otherwise.
     */
    public java.util.concurrent.CompletableFuture<Void> confirmLeader() {
        if (replicas == null) {
            return java.util.concurrent.CompletableFuture.completedFuture(null);
        }
        return replicas.confirmLeadership().handle((v, err) -> {
            if (err == null) {
                return null;
            }
            Throwable c = err instanceof java.util.concurrent.CompletionException && err.getCause() != null
                    ? err.getCause() : err;
            String hint = c instanceof io.glassledger.core.txn.ReplicatedLog.NotCommittedException n ? n.leader() : null;
            throw new java.util.concurrent.CompletionException(new io.glassledger.core.txn.TxnException(
                    io.glassledger.core.txn.TxnException.Reason.NOT_LEADER, "shard " + number() + ": this replica "
                    + "could not confirm that it leads (" + c.getMessage() + ")", hint));
        });
    }

    public java.util.Optional<io.glassledger.server.replication.ReplicaGroup> replicas() {
        return java.util.Optional.ofNullable(replicas);
    }

    public int number() {
        return engine.shard();
    }

    public SigningKey serverKey() {
        return serverKey;
    }

    /** Where blocking ledger reads and proof traversals run. */
    public Scheduler reads() {
        return reads;
    }

    /** The latest persisted digest, signed; re-signed only when the head moves. */
    public SignedHead signedHead() {
        return signedHead(engine.digest());
    }

    /** The signed head of an older (or the latest) persisted digest. */
    public SignedHead signedHead(Digest d) {
        SignedHead cached = head.get();
        if (cached != null && cached.digest().equals(d)) {
            return cached;
        }
        Block b = engine.ledger().block(d.blockNo());
        SignedHead h = SignedHead.sign(serverKey, engine.shard(), d, b.timestamp());
        if (d.equals(engine.digest())) {
            head.set(h);
        }
        return h;
    }

    /**
     * Stops the reads first, then the engine: no new read is accepted ({@code unavailable}), those in flight get
     * {@link #READS_DRAIN} to finish, and only then is RocksDB closed. A read still running after that meets a
     * closed store and fails cleanly ({@link io.glassledger.core.store.StoreClosedException}, {@code unavailable}),
     * never a closed native handle.
     */
    @PreDestroy
    public void close() {
        readExecutor.shutdown();
        try {
            if (!readExecutor.awaitTermination(READS_DRAIN.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("shard {}: reads still running after {}; closing the engine under them", number(),
                        READS_DRAIN);
                readExecutor.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (replicas != null) {
                replicas.close();  // closes the engine inside the Raft server
            } else {
                engine.close();
            }
        }
    }
}
