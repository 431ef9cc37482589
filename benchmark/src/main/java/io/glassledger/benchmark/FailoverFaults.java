package io.glassledger.benchmark;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * The faults of issue 31, each on one shard of a {@link LaunchedCluster} chosen by a seeded generator, while the
 * writers go on: members killed with SIGKILL at the moments a failover is most likely to leave a promise unproven
 * (or, were a server wrong, unprovable), then started again with the launcher. Each fault ends once every shard has a
 * leader that answers and every member is ready again, or its bound passed (the fault is then unrecovered).
 */
final class FailoverFaults {
    enum Kind {
        /** The leader killed as soon as its signed head advances, while the writers commit as fast as they can. */
        LEADER_AFTER_SIGN("leader_after_sign"),
        /**
         * A follower killed, the writers go on for a few seconds, it is started again, and the leader is killed as
         * soon as the returning one is ready (or, by a coin toss, also caught up to within two blocks of the leader).
         */
        LEADER_AFTER_RETURN("leader_after_return"),
        /** A follower killed and started again after a pause. */
        FOLLOWER("follower"),
        /** Two members killed (the shard's quorum lost: the leader and a follower, or both followers) and restarted. */
        PAIR("pair"),
        /** Two members killed and kept down well past the client's promise deadline, then restarted. */
        QUORUM_DOWN("quorum_down");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /**
     * How long things last: the writers' time with a follower down before it returns ({@code lagSeconds}), a
     * follower's and a pair's time down (up to the maxima), the quorum's, and the bound on a recovery.
     */
    record Timing(double lagSeconds, double followerDownMax, double pairDownMax, double quorumDownSeconds,
                  Duration recoveryBound) {
    }

    /**
     * One fault: who was killed, how long the shard had no leader after a leader's kill ({@code leaderSeconds}, NaN
     * when no leader was killed with a quorum left), how long the killed stayed down, and how long from their
     * restart until the cluster was healthy again ({@code recoverySeconds}, NaN if it was not within the bound).
     */
    record Outcome(Kind kind, int shard, List<String> killed, double leaderSeconds, double downSeconds,
                   double recoverySeconds, String note) {
        boolean recovered() {
            return !Double.isNaN(recoverySeconds);
        }
    }

    private final LaunchedCluster cluster;
    private final FailoverLoad load;
    private final boolean pauseForStarts;
    private final SplittableRandom random;
    private final Timing timing;
    private final Consumer<String> log;

    /**
     * @param pauseForStarts whether the writers wait while killed members' JVMs start (until they listen): on 2
     *                       cores a start competing with the load takes a minute or more instead of 15-25 s
     */
    FailoverFaults(LaunchedCluster cluster, FailoverLoad load, boolean pauseForStarts, SplittableRandom random,
                   Timing timing, Consumer<String> log) {
        this.cluster = cluster;
        this.load = load;
        this.pauseForStarts = pauseForStarts;
        this.random = random;
        this.timing = timing;
        this.log = log;
    }

    /** The kinds to inject: {@code first} in a random order, then kinds drawn at random, {@code n} in all. */
    static List<Kind> plan(List<Kind> first, int n, SplittableRandom random) {
        List<Kind> order = new ArrayList<>(first);
        for (int i = order.size() - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            order.set(i, order.set(j, order.get(i)));
        }
        List<Kind> out = new ArrayList<>(order.subList(0, Math.min(n, order.size())));
        while (out.size() < n) {
            out.add(Kind.values()[random.nextInt(Kind.values().length)]);
        }
        return out;
    }

    Outcome inject(Kind kind) throws IOException, InterruptedException {
        int s = random.nextInt(cluster.shards);
        ShardReplicas group = cluster.shard(s);
        int leader = group.awaitLeader(timing.recoveryBound());
        if (leader < 0) {
            return new Outcome(kind, s, List.of(), Double.NaN, 0, Double.NaN, "no leader before the fault");
        }
        int other = (leader + 1 + random.nextInt(LaunchedCluster.REPLICAS - 1)) % LaunchedCluster.REPLICAS;
        return switch (kind) {
            case LEADER_AFTER_SIGN -> leaderAfterSign(s, leader);
            case LEADER_AFTER_RETURN -> leaderAfterReturn(s, leader, other);
            case FOLLOWER -> downAndBack(kind, s, List.of(other), pause(0.5, timing.followerDownMax()), "");
            case PAIR, QUORUM_DOWN -> {
                // The leader and a follower, or both followers (the leader left alone, without a quorum); as the
                // leader signs a block, when the promises of the last ones are least likely to be proven yet.
                int third = 3 - leader - other;
                List<Integer> victims = random.nextBoolean() ? List.of(leader, other) : List.of(other, third);
                double down = kind == Kind.PAIR ? pause(1, timing.pairDownMax()) : timing.quorumDownSeconds();
                String note = "leader " + LaunchedCluster.name(s, leader) + " " + awaitSigned(s, leader);
                yield downAndBack(kind, s, victims, down, note);
            }
        };
    }

    /**
     * Polls replica {@code r}'s signed head until it advances (at most 10 s): the moment a block was just signed,
     * its promises acknowledged within the last persist interval and not yet proven to their clients. Says which.
     */
    private String awaitSigned(int s, int r) throws InterruptedException {
        ShardReplicas group = cluster.shard(s);
        long h0 = group.headBlock(r);
        long h = h0;
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (h <= h0 && System.nanoTime() < deadline) {
            Thread.sleep(2);
            h = group.headBlock(r);
        }
        return h > h0 ? "had just signed block " + h : "signed nothing in 10 s (head " + h0 + ")";
    }

    /** Kill the leader the moment its signed head advances, then restart it. */
    private Outcome leaderAfterSign(int s, int leader) throws IOException, InterruptedException {
        return killLeaderAndRestart(Kind.LEADER_AFTER_SIGN, s, leader, List.of(), awaitSigned(s, leader));
    }

    /**
     * A follower down for {@code lagSeconds} while the writers go on, started again; the leader killed as soon as
     * the follower is ready (and, half of the time, caught up), then restarted.
     */
    private Outcome leaderAfterReturn(int s, int leader, int follower) throws IOException, InterruptedException {
        ShardReplicas group = cluster.shard(s);
        cluster.kill(s, follower);
        log.accept("killed follower " + LaunchedCluster.name(s, follower) + "; writing " + timing.lagSeconds()
                + " s without it");
        Thread.sleep((long) (timing.lagSeconds() * 1000));
        startMembers();
        boolean caughtUp = random.nextBoolean();
        long deadline = System.nanoTime() + timing.recoveryBound().toNanos();
        boolean back = false;
        int current = leader;
        while (!back && System.nanoTime() < deadline) {
            current = group.leader();
            back = current >= 0 && current != follower && cluster.ready(s, follower)
                    && (!caughtUp || group.headBlock(follower) >= group.headBlock(current) - 2);
            if (!back) {
                Thread.sleep(5);
            }
        }
        String note = (back ? "returned follower " : "follower not back within the bound: ")
                + LaunchedCluster.name(s, follower) + (caughtUp ? " ready and caught up" : " ready") + " (head "
                + group.headBlock(follower) + ", leader's " + (current >= 0 ? group.headBlock(current) : -1) + ")";
        if (current < 0 || current == follower) {
            current = group.awaitLeader(timing.recoveryBound());
        }
        if (current < 0 || current == follower) {
            return new Outcome(Kind.LEADER_AFTER_RETURN, s, List.of(LaunchedCluster.name(s, follower)), Double.NaN,
                    timing.lagSeconds(), Double.NaN, note + "; no leader but the returned one to kill");
        }
        return killLeaderAndRestart(Kind.LEADER_AFTER_RETURN, s, current, List.of(LaunchedCluster.name(s, follower)),
                note);
    }

    private Outcome killLeaderAndRestart(Kind kind, int s, int leader, List<String> before, String note)
            throws IOException, InterruptedException {
        ShardReplicas group = cluster.shard(s);
        long t0 = System.nanoTime();
        cluster.kill(s, leader);
        int next = group.awaitLeader(timing.recoveryBound());
        double leaderSeconds = next >= 0 ? seconds(t0) : Double.NaN;
        log.accept("killed leader " + LaunchedCluster.name(s, leader) + " (" + note + "); "
                + (next >= 0 ? "replica " + next + " leads after " + fmt(leaderSeconds) + " s" : "no new leader"));
        double down = seconds(t0);
        List<String> killed = new ArrayList<>(before);
        killed.add(LaunchedCluster.name(s, leader));
        return new Outcome(kind, s, killed, leaderSeconds, down, restart(), note);
    }

    /** Kills {@code victims} of shard {@code s}, waits {@code downSeconds}, restarts them. */
    private Outcome downAndBack(Kind kind, int s, List<Integer> victims, double downSeconds, String note)
            throws IOException, InterruptedException {
        List<String> killed = new ArrayList<>();
        for (int r : victims) {
            cluster.kill(s, r);
            killed.add(LaunchedCluster.name(s, r));
        }
        log.accept("killed " + killed + (note.isEmpty() ? "" : " (" + note + ")") + "; down for " + fmt(downSeconds)
                + " s");
        Thread.sleep((long) (downSeconds * 1000));
        return new Outcome(kind, s, killed, Double.NaN, downSeconds, restart(), note);
    }

    /** Starts what is down and waits until the cluster is healthy: the seconds that took, NaN past the bound. */
    private double restart() throws InterruptedException {
        long t0 = System.nanoTime();
        try {
            startMembers();
        } catch (IOException e) {
            log.accept("restart failed: " + e.getMessage());
            return Double.NaN;
        }
        Duration left = timing.recoveryBound().minusNanos(System.nanoTime() - t0);
        boolean healthy = !left.isNegative() && cluster.awaitHealthy(left);
        double took = seconds(t0);
        log.accept(healthy ? "healthy again " + fmt(took) + " s after the restart began"
                : "NOT healthy " + fmt(took) + " s after the restart began");
        return healthy ? took : Double.NaN;
    }

    /**
     * {@code cluster start}, once more if it fails (starting only what is down is idempotent); the writers wait
     * meanwhile if so configured.
     */
    private void startMembers() throws IOException, InterruptedException {
        long t0 = System.nanoTime();
        if (pauseForStarts) {
            load.pause();
        }
        try {
            cluster.start();
        } catch (IOException e) {
            log.accept("cluster start failed, once more: " + e.getMessage());
            cluster.start();
        } finally {
            load.resume();
        }
        log.accept("members started (listening) after " + fmt(seconds(t0)) + " s");
    }

    private double pause(double min, double max) {
        return min + random.nextDouble() * Math.max(0, max - min);
    }

    private static double seconds(long t0) {
        return (System.nanoTime() - t0) / 1e9;
    }

    static String fmt(double seconds) {
        return String.format("%.1f", seconds);
    }
}
