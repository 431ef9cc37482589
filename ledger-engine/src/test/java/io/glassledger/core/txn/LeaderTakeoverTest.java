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
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31: a replica elected leader takes requests only once it has persisted every block sealed before its term,
 * so it never serves a digest, promise or proof below a head its predecessor signed. Two engines share an in-process
 * group log (an entry commits at once and the follower applies it in order); the follower's store refuses writes (a
 * {@link FaultyStore}), so it applies everything and persists nothing until the test heals it.
 */
class LeaderTakeoverTest {
    @TempDir
    Path dir;
    final SigningKey client = SigningKey.generate();
    final AtomicLong index = new AtomicLong();
    final List<TxnEngine> open = new ArrayList<>();
    FaultyStore followerStore;

    /** The group's log, in process: an entry commits at once, and the followers apply it in log order. */
    final class GroupLog implements ReplicatedLog {
        final List<TxnEngine> followers = new CopyOnWriteArrayList<>();

        @Override
        public synchronized CompletableFuture<Position> replicate(byte[] entry) {
            long i = index.incrementAndGet();
            followers.forEach(f -> f.apply(1, i, entry));
            return CompletableFuture.completedFuture(new Position(1, i));
        }
    }

    @AfterEach
    void close() {
        open.forEach(TxnEngine::close);
    }

    private EngineConfig cfg(String name) {
        return EngineConfig.defaults(dir.resolve(name)).withPersistInterval(Duration.ofMillis(20))
                .withStoreRetryWindow(Duration.ofMinutes(5));
    }

    private Promise put(TxnEngine e, String k, String v) throws Exception {
        return e.commit(new TxnDraft(client, 0, System.currentTimeMillis()).put(Bytes.utf8(k), Bytes.utf8(v)).sign())
                .get(30, TimeUnit.SECONDS);
    }

    /** A leader with five persisted blocks, and a follower that applied them all and persisted none. */
    private TxnEngine[] groupWithALaggingFollower() throws Exception {
        GroupLog log = new GroupLog();
        TxnEngine leader = TxnEngine.openReplica(cfg("a"), log, p -> "");
        open.add(leader);
        TxnEngine follower = TxnEngine.openReplica(cfg("b"), new GroupLog(), p -> "",
                real -> followerStore = new FaultyStore(real));
        open.add(follower);
        log.followers.add(follower);
        followerStore.fail(() -> new StoreException("the disk is slow today", null));
        leader.becomeLeader();
        await().atMost(Duration.ofSeconds(30)).until(leader::isLeader);
        for (int i = 0; i < 5; i++) {
            Promise p = put(leader, "k" + i, "v" + i);
            leader.awaitPersisted(p.blockNo()).get(30, TimeUnit.SECONDS);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> follower.applied().index() == index.get());
        assertTrue(leader.digest().blockNo() >= 5, "the leader signed " + leader.digest());
        assertEquals(0, follower.digest().blockNo(), "the follower persisted nothing");
        return new TxnEngine[] {leader, follower};
    }

    @Test
    void anElectedReplica_persistsWhatWasSealedBeforeItsTerm_beforeItTakesRequests() throws Exception {
        TxnEngine[] g = groupWithALaggingFollower();
        TxnEngine old = g[0];
        TxnEngine next = g[1];
        long signed = old.digest().blockNo();

        next.becomeLeader();
        await().atMost(Duration.ofSeconds(30)).until(next::takingOver);
        assertFalse(next.isLeader(), "elected, but not serving below block " + signed);
        ExecutionException e = assertThrows(ExecutionException.class, () -> put(next, "early", "1"));
        TxnException refused = assertInstanceOf(TxnException.class, e.getCause());
        assertEquals(TxnException.Reason.NOT_LEADER, refused.reason());
        assertTrue(refused.getMessage().contains("persisted the blocks sealed before its term"),
                refused.getMessage());

        followerStore.heal();
        await().atMost(Duration.ofSeconds(30)).until(next::isLeader);
        assertFalse(next.takingOver());
        assertTrue(next.digest().blockNo() >= signed, "serving from " + next.digest() + ", below block " + signed);
        assertEquals(old.digest(signed), next.digest(signed), "the same block, the same digest");
        Promise p = put(next, "after", "1");
        assertTrue(p.served().blockNo() >= signed, "served at " + p.served());
        assertTrue(p.blockNo() > signed);
    }

    @Test
    void aLaterRoleChange_winsOverATakeoverStillPersisting() throws Exception {
        TxnEngine[] g = groupWithALaggingFollower();
        TxnEngine next = g[1];
        next.becomeLeader();
        await().atMost(Duration.ofSeconds(30)).until(next::takingOver);
        next.becomeFollower("someone-else");
        await().atMost(Duration.ofSeconds(30)).until(() -> !next.takingOver());
        followerStore.heal();
        await().atMost(Duration.ofSeconds(30)).until(() -> next.digest().blockNo() >= g[0].digest().blockNo());
        // The takeover that waited for persistence comes back to the queue once persisted, and must change nothing.
        Promise probe = null;
        try {
            probe = put(next, "probe", "1");
        } catch (ExecutionException x) {
            assertEquals(TxnException.Reason.NOT_LEADER, assertInstanceOf(TxnException.class, x.getCause()).reason());
        }
        assertEquals(null, probe, "a follower took a commit");
        assertFalse(next.isLeader());
        assertEquals("someone-else", next.leaderHint());
    }
}
