/**
 * What every Raft port of a server shares (the shard's group and the cluster directory): members' mutual TLS
 * ({@link io.glassledger.server.raft.MemberTls}, {@link io.glassledger.server.raft.MemberTrust}) and the gate on every
 * incoming call ({@link io.glassledger.server.raft.MemberGate}: Ratis's admin service off, only the group's members
 * heard, entries checked before they reach the log). Knows Ratis and the JDK's TLS; knows nothing of the ledger.
 */
package io.glassledger.server.raft;
