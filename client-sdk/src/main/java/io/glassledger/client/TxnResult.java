package io.glassledger.client;

/** What {@link GlassLedgerClient#runTransaction} returns: the body's result and the commit's promise. */
public record TxnResult<T>(T value, CommitPromise promise) {
}
