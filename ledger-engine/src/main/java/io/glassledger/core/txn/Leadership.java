package io.glassledger.core.txn;

import io.glassledger.core.txn.TxnException.Reason;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether this engine takes client requests: always for a single replica; for a replica of a group, from when it is
 * elected and has persisted the blocks sealed before its term until it loses the leadership.
 *
 * <p>States: FOLLOWER ({@code leader} and {@code takingOver} false), TAKING_OVER (elected, persisting first),
 * LEADER. Role changes are applied on the sequencer thread in queue order ({@link #takeRole}); the flags are volatile
 * and read by any thread. A lost leadership (an entry whose commit could not be confirmed) fails the engine: its
 * owner reopens the replica.
 */
final class Leadership {
    private final int shard;
    private final BlockingQueue<Request> queue;
    private volatile boolean leader;
    private volatile String leaderHint;
    private final AtomicLong roleGeneration = new AtomicLong();
    /** Elected, persisting the blocks sealed before its term before it takes requests. */
    private volatile boolean takingOver;
    private volatile Runnable onLostLeadership = () -> { };

    Leadership(int shard, boolean leader, BlockingQueue<Request> queue) {
        this.shard = shard;
        this.leader = leader;
        this.queue = queue;
    }

    /** Whether this engine leads now (ignoring failure; see {@link TxnEngine#isLeader()}). */
    boolean leads() {
        return leader;
    }

    boolean takingOver() {
        return takingOver;
    }

    String leaderHint() {
        return leaderHint;
    }

    void onLostLeadership(Runnable r) {
        this.onLostLeadership = r;
    }

    /** Queues a role change behind the entries already handed to the engine. */
    void change(boolean lead, String hint) {
        queue.add(new Request.Role(lead, hint, roleGeneration.incrementAndGet()));
    }

    /** The refusal of a request while this replica does not lead. */
    TxnException notLeader() {
        String hint = leaderHint;
        if (takingOver) {
            return new TxnException(Reason.NOT_LEADER, "this replica of shard " + shard + " was elected its "
                    + "leader and takes requests once it has persisted the blocks sealed before its term", null);
        }
        return new TxnException(Reason.NOT_LEADER, "this replica of shard " + shard + " is not its leader"
                + (hint != null ? "; the leader is " + hint : "; no leader is known yet"), hint);
    }

    /**
     * A role change, on the sequencer thread. A new leader takes requests only once it has persisted every block
     * sealed before its term (docs/ARCHITECTURE.md "No false accusation"): a predecessor signed only blocks whose seal
     * the group committed, and this replica has applied every committed entry before this request, so afterwards its
     * signed head is at least any head a client holds, and it never serves a digest, a promise or a proof below one.
     * Until then it refuses requests as a replica that is not the leader (with no leader to name), and persists.
     *
     * @param sealedThrough the last block sealed before this request
     */
    void takeRole(Request.Role role, long sealedThrough, Persister persister) {
        if (role.generation() != roleGeneration.get()) {
            return;  // a later role change is behind this one in the queue
        }
        if (!role.leader()) {
            leader = false;
            takingOver = false;
            leaderHint = role.leaderHint();
            return;
        }
        if (persister.persisted() >= sealedThrough) {
            takingOver = false;
            leaderHint = null;
            leader = true;
            return;
        }
        takingOver = true;
        leader = false;
        leaderHint = null;
        persister.awaitPersisted(sealedThrough).whenComplete((x, err) -> {
            if (err == null) {
                queue.add(role);  // looked at again in order; a later role change makes it a no-op
            }
        });
        persister.persistSoon();
    }

    /**
     * The leader could not confirm an entry (sequencer thread): it stops leading, names the leader it last knew, and
     * its owner is told to reopen it.
     */
    void lost(String hint) {
        leader = false;
        leaderHint = hint;
    }

    /** Tells the owner (see {@link TxnEngine#onLostLeadership(Runnable)}). */
    void notifyLost() {
        onLostLeadership.run();
    }
}
