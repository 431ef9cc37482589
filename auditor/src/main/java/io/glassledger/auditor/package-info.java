/**
 * The auditor: follows every shard of a cluster, checks the signatures of every block's transactions, re-executes
 * the blocks in its own ledger and compares the hashes, and checks the digests clients send it against its own
 * linear history (GlassDB §3.2.1, §3.3.4).
 */
package io.glassledger.auditor;
