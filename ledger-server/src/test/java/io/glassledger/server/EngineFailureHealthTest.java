package io.glassledger.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.core.store.ForwardingNodeStore;
import io.glassledger.core.store.NodeStore;
import io.glassledger.core.store.StoreBatch;
import io.glassledger.core.store.StoreException;
import io.glassledger.verify.txn.TxnDraft;
import io.glassledger.server.shard.Shard;
import io.glassledger.server.shard.ShardMetrics;
import io.glassledger.server.shard.StoreDecorator;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.RocksDBException;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A storage failure under a running server (the real RocksDB store behind a switch that makes its writes fail as
 * RocksDB does when the process is out of file descriptors): readiness goes DOWN, one ERROR line is logged and
 * {@code glassledger.engine.failures} counts it; when the store works again, readiness is UP and nothing acknowledged
 * is lost; a store that stays broken past the retry window also turns liveness DOWN.
 */
class EngineFailureHealthTest {
    @TempDir
    Path dir;
    volatile boolean broken;
    ConfigurableApplicationContext ctx;
    final ListAppender<ILoggingEvent> log = new ListAppender<>();

    /** The real store; while {@link #broken}, a write throws what RocksDbNodeStore throws for EMFILE. */
    final class Switchable extends ForwardingNodeStore {
        Switchable(NodeStore real) {
            super(real);
        }

        @Override
        public void write(StoreBatch batch) {
            if (broken) {
                throw new StoreException("RocksDB write failed: IO error: 000042.log: Too many open files",
                        new RocksDBException("IO error: 000042.log: Too many open files"));
            }
            inner.write(batch);
        }
    }

    /** The management port, where the probes are. */
    Https probes;

    Https start(String retryWindow) throws Exception {
        // Registered by an initializer, not a @Configuration class, which the server's component scan would find.
        SpringApplication app = new SpringApplication(GlassLedgerServer.class);
        app.addInitializers(c -> c.getBeanFactory().registerSingleton("faultyStore",
                (StoreDecorator) Switchable::new));
        ctx = app.run("--server.port=0", "--glassledger.data-dir=" + dir.resolve("data"),
                "--glassledger.persist-interval=20ms", "--logging.level.root=WARN",
                "--glassledger.store-retry-window=" + retryWindow);
        ch.qos.logback.classic.Logger l = (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(ShardMetrics.class);
        log.start();
        l.addAppender(log);
        int port = ((WebServerApplicationContext) ctx).getWebServer().getPort();
        String pin = ctx.getEnvironment().getProperty("glassledger.tls.fingerprint");
        probes = new Https("https://127.0.0.1:" + ctx.getEnvironment().getProperty("local.management.port"), pin);
        return new Https("https://127.0.0.1:" + port, pin);
    }

    @AfterEach
    void stop() {
        ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(ShardMetrics.class)).detachAppender(log);
        if (ctx != null) {
            ctx.close();
        }
    }

    String apiKey() throws Exception {
        for (String line : java.nio.file.Files.readAllLines(dir.resolve("data").resolve("credentials.txt"))) {
            String[] f = line.split("\t");
            if (f.length == 3 && f[0].equals("default")) {
                return f[2];
            }
        }
        throw new IllegalStateException("no credentials");
    }

    /** A health probe's status, on the management port. */
    int status(String probe) throws Exception {
        return probes.get("/actuator/health/" + probe, null).status();
    }

    double failures(boolean fatal) {
        return ctx.getBean(MeterRegistry.class).get("glassledger.engine.failures").tag("fatal", Boolean.toString(fatal))
                .counter().count();
    }

    List<ILoggingEvent> errors() {
        return log.list.stream().filter(e -> e.getLevel() == Level.ERROR).toList();
    }

    @Test
    void storeFailure_turnsReadinessDown_logsAndCounts_thenRecoversLosingNothing() throws Exception {
        Https https = start("5m");
        String client = apiKey();
        SigningKey key = SigningKey.generate();
        assertEquals(201, https.post("/v1/clients/key", client, Map.of("publicKey", key.publicKey().hex())).status());
        assertEquals(200, status("readiness"));

        broken = true;
        var during = OverloadTest.commit(https, client, new TxnDraft(key, 0, System.currentTimeMillis())
                .put(Bytes.utf8("k"), Bytes.utf8("v")).sign());
        assertEquals(200, during.status(), String.valueOf(during.body()));  // in the WAL: acknowledged
        await().atMost(Duration.ofSeconds(10)).until(() -> status("readiness") == 503);
        assertEquals(200, status("liveness"), "retrying, not dead");
        assertEquals(1.0, failures(false));
        assertEquals(1, errors().size(), () -> log.list.toString());
        assertTrue(errors().get(0).getFormattedMessage().contains("Too many open files"));

        broken = false;
        await().atMost(Duration.ofSeconds(10)).until(() -> status("readiness") == 200);
        long block = during.body().get("block").asLong();
        await().atMost(Duration.ofSeconds(10)).until(() -> ctx.getBean(Shard.class).engine().persistedBlock() >= block);
        var got = https.post("/v1/get", client, Map.of("keys", List.of(OverloadTest.b64("k")))).body().get("items");
        assertEquals(OverloadTest.b64("v"), got.get(0).get("value").asText());
        var after = OverloadTest.commit(https, client, new TxnDraft(key, 0, System.currentTimeMillis())
                .put(Bytes.utf8("k2"), Bytes.utf8("v2")).sign());
        assertEquals(200, after.status());
        assertEquals(1, errors().size(), "one ERROR line for one failure");
    }

    @Test
    void storeThatStaysBroken_turnsLivenessDown_andRefusesCommits() throws Exception {
        Https https = start("300ms");
        String client = apiKey();
        SigningKey key = SigningKey.generate();
        assertEquals(201, https.post("/v1/clients/key", client, Map.of("publicKey", key.publicKey().hex())).status());
        broken = true;
        OverloadTest.commit(https, client, new TxnDraft(key, 0, System.currentTimeMillis())
                .put(Bytes.utf8("k"), Bytes.utf8("v")).sign());
        await().atMost(Duration.ofSeconds(10)).until(() -> status("liveness") == 503);
        assertEquals(503, status("readiness"));
        assertEquals(1.0, failures(true));
        assertTrue(errors().stream().anyMatch(e -> e.getFormattedMessage().contains("until restarted")),
                () -> log.list.toString());
        var refused = OverloadTest.commit(https, client, new TxnDraft(key, 0, System.currentTimeMillis())
                .put(Bytes.utf8("x"), Bytes.utf8("y")).sign());
        assertEquals(503, refused.status());
    }
}
