package io.glassledger.core.txn;

import io.glassledger.verify.txn.TxnDraft;
import io.glassledger.verify.txn.Promise;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.glassledger.verify.crypto.SigningKey;
import io.glassledger.verify.hash.Bytes;
import io.glassledger.core.store.StoreException;
import io.glassledger.core.txn.TxnEngine.Health;
import io.glassledger.core.txn.TxnException.Reason;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store that fails under the engine (docs/ARCHITECTURE.md "Hostile connections and engine failure"): a failing
 * block write is retried and the engine recovers when the store does; one that keeps failing, or any other failure,
 * stops the engine (FAILED) and a restart recovers every acknowledged commit.
 */
class EngineFailureTest {
    @TempDir
    Path dir;
    final SigningKey client = SigningKey.generate();
    final List<String> events = new CopyOnWriteArrayList<>();
    FaultyStore store;

    TxnEngine open(Duration retryWindow) {
        TxnEngine e = TxnEngine.open(EngineConfig.defaults(dir).withPersistInterval(Duration.ofMillis(20))
                .withStoreRetryWindow(retryWindow), real -> store = new FaultyStore(real));
        e.observe(new TxnEngine.Observer() {
            @Override
            public void failed(Throwable cause, boolean fatal) {
                events.add((fatal ? "fatal: " : "retrying: ") + cause.getMessage());
            }

            @Override
            public void recovered(long nanos) {
                events.add("recovered");
            }
        });
        return e;
    }

    Promise put(TxnEngine e, String k, String v) throws Exception {
        return e.commit(new TxnDraft(client, 0, System.currentTimeMillis()).put(Bytes.utf8(k), Bytes.utf8(v)).sign())
                .get();
    }

    @Test
    void storeFailure_isRetried_degradesThenRecovers_andLosesNothing() throws Exception {
        try (TxnEngine e = open(Duration.ofMinutes(5))) {
            Promise before = put(e, "a", "1");
            e.awaitPersisted(before.blockNo()).get();
            store.fail(FaultyStore.TOO_MANY_OPEN_FILES);
            Promise during = put(e, "b", "2");  // acknowledged: it is in the WAL
            await().atMost(Duration.ofSeconds(10)).until(() -> e.health() == Health.DEGRADED);
            await().atMost(Duration.ofSeconds(10)).until(() -> store.failedWrites.get() >= 2);  // retried
            assertInstanceOf(StoreException.class, e.failureCause());
            assertTrue(e.persistedBlock() < during.blockNo(), "nothing persisted while the store fails");
            assertEquals(Bytes.utf8("2"), e.get(Bytes.utf8("b")).value(), "an acknowledged write stays readable");

            store.heal();
            e.awaitPersisted(during.blockNo()).get();
            await().atMost(Duration.ofSeconds(10)).until(() -> e.health() == Health.UP);
            Promise after = put(e, "c", "3");
            e.awaitPersisted(after.blockNo()).get();
            assertEquals(List.of("retrying: " + FaultyStore.TOO_MANY_OPEN_FILES.get().getMessage(), "recovered"),
                    events);
            assertEquals(Bytes.utf8("2"), e.ledger().latestEntry(Bytes.utf8("b")).value());
        }
    }

    @Test
    void storeFailure_beyondRetryWindow_failsTheEngine_andRestartRecoversAcknowledgedCommits() throws Exception {
        Promise during;
        try (TxnEngine e = open(Duration.ofMillis(200))) {
            put(e, "a", "1");
            store.fail(FaultyStore.TOO_MANY_OPEN_FILES);
            during = put(e, "b", "2");
            await().atMost(Duration.ofSeconds(10)).until(() -> e.health() == Health.FAILED);
            ExecutionException x = assertThrows(ExecutionException.class, () -> put(e, "c", "3"));
            assertEquals(Reason.UNAVAILABLE, assertInstanceOf(TxnException.class, x.getCause()).reason());
            assertEquals(2, events.size(), String.valueOf(events));
            assertTrue(events.get(0).startsWith("retrying: ") && events.get(1).startsWith("fatal: "), events::toString);
        }
        events.clear();
        try (TxnEngine e = open(Duration.ofMinutes(5))) {
            assertEquals(Health.UP, e.health());
            e.awaitPersisted(during.blockNo()).get();
            assertEquals(Bytes.utf8("2"), e.ledger().latestEntry(Bytes.utf8("b")).value());
            assertEquals(Bytes.utf8("1"), e.get(Bytes.utf8("a")).value());
            assertTrue(events.isEmpty(), events::toString);
        }
    }

    @Test
    void nonStoreFailure_failsTheEngineAtOnce() throws Exception {
        try (TxnEngine e = open(Duration.ofMinutes(5))) {
            store.fail(() -> new IllegalStateException("invariant broken"));
            put(e, "a", "1");
            await().atMost(Duration.ofSeconds(10)).until(() -> e.health() == Health.FAILED);
            assertEquals(List.of("fatal: invariant broken"), events);
            assertEquals(1, store.failedWrites.get(), "not retried");
            assertFalse(e.failureCause() instanceof StoreException);
        }
    }
}
