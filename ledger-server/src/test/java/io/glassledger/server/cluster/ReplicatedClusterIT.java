package io.glassledger.server.cluster;

/**
 * {@link ClusterIT}'s tests on 2 shards of 3 Raft replicas each, whose leaders the bank test kills (issue 20). A class
 * of its own, so that it runs beside the other integration tests (failsafe runs two classes at a time).
 */
class ReplicatedClusterIT extends ClusterIT {
    @Override
    int replicasPerShard() {
        return 3;
    }
}
