package io.glassledger.server.cluster;

/**
 * {@link ClusterIT}'s tests on 2 shards of 3 Raft replicas each, whose leaders the bank test kills (issue 20). A class
 * of its own: its own cluster and directory, and its own line in failsafe's report.
 */
class ReplicatedClusterIT extends ClusterIT {
    @Override
    int replicasPerShard() {
        return 3;
    }
}
