package io.glassledger.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;

/** Hands every {@link IntegrityViolation} to the configured handler, once, whichever path finds it first. */
final class Violations {
    private static final System.Logger LOG = System.getLogger(GlassLedgerClient.class.getName());
    private final Consumer<IntegrityViolation> handler;

    Violations(Consumer<IntegrityViolation> handler) {
        this.handler = handler;
    }

    IntegrityViolation report(IntegrityViolation v) {
        if (v.markReported()) {
            try {
                handler.accept(v);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "violation handler failed on " + v.getMessage(), e);
            }
        }
        return v;
    }

    /** The same future, reporting a violation it fails with. */
    <T> CompletableFuture<T> watch(CompletableFuture<T> f) {
        return f.whenComplete((r, e) -> {
            IntegrityViolation v = find(e);
            if (v != null) {
                report(v);
            }
        });
    }

    static IntegrityViolation find(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof IntegrityViolation v) {
                return v;
            }
            if (!(t instanceof CompletionException || t instanceof ExecutionException)) {
                return null;
            }
        }
        return null;
    }

    /** The failure a future completed with, without the wrappers the future machinery adds. */
    static Throwable unwrap(Throwable e) {
        Throwable t = e;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** Waits for {@code f}; rethrows its failure as it was (an unchecked exception), not wrapped. */
    static <T> T join(CompletableFuture<T> f) {
        try {
            return f.join();
        } catch (CompletionException | java.util.concurrent.CancellationException e) {
            Throwable t = unwrap(e);
            if (t instanceof RuntimeException r) {
                throw r;
            }
            if (t instanceof Error err) {
                throw err;
            }
            throw new CompletionException(t);
        }
    }
}
