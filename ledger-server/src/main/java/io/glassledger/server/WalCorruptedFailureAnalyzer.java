package io.glassledger.server;

import io.glassledger.core.txn.WalCorruptedException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * A damaged WAL stops the start with Spring Boot's short "APPLICATION FAILED TO START" report (file, offset, the
 * repair command) instead of the bean-creation stack trace; {@link GlassLedgerServer#main} then exits with
 * {@link GlassLedgerServer#EXIT_WAL_CORRUPTED}. Registered in META-INF/spring.factories.
 */
class WalCorruptedFailureAnalyzer extends AbstractFailureAnalyzer<WalCorruptedException> {
    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, WalCorruptedException cause) {
        return new FailureAnalysis(cause.getMessage(), "Stop the server, run " + cause.repairCommand()
                + " (it moves the damaged part to wal-quarantine/ and reports which acknowledged transactions were"
                + " in it), then start the server again.", cause);
    }
}
