package io.glassledger.client;

import java.time.Duration;

/** The HTTP transport that every client of this JVM shares ({@link GlassLedgerClient}, {@link AdminClient}). */
public final class Transport {
    private Transport() {
    }

    /**
     * Stops the shared event loop and waits until its threads have ended, at most {@code timeout}: for a process
     * about to exit, after its last request, such as {@code ledger-cli}. No client of this JVM can send a request
     * afterwards. Nothing happens if no client was made.
     *
     * <p>Why: an idle event loop's thread waits in native code (epoll), and a JDK 17 JVM's exit
     * ({@code System.exit}) waits up to about 0.3 s for threads in native code to stop; a one-request process spent
     * that on every run (benchmark/RESULTS.md, "ledger-cli start").
     */
    public static void shutdown(Duration timeout) {
        Api.stopEventLoop(timeout);
    }
}
