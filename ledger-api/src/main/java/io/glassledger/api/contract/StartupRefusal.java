package io.glassledger.api.contract;

/**
 * A service refuses to start for a reason its operator can fix: the message says what is wrong, {@link #action()}
 * what to do. {@link StartupRefusalAnalyzer} prints both as Spring Boot's short "APPLICATION FAILED TO START" report
 * instead of a stack trace, and the service's {@code main} exits with {@link #exitCode()}.
 */
public final class StartupRefusal extends RuntimeException {
    /** An unknown or misspelt property (sysexits EX_CONFIG). */
    public static final int EXIT_CONFIG = 78;
    /** The data directory is in use by another process (sysexits EX_TEMPFAIL: it may be free later). */
    public static final int EXIT_IN_USE = 75;
    /** The data directory holds data of a format this release does not read (sysexits EX_DATAERR). */
    public static final int EXIT_DATA_FORMAT = 65;

    private final String action;
    private final int exitCode;

    public StartupRefusal(String message, String action, int exitCode) {
        super(message);
        this.action = action;
        this.exitCode = exitCode;
    }

    public String action() {
        return action;
    }

    public int exitCode() {
        return exitCode;
    }

    /** The refusal {@code e} is or wraps, or null. */
    public static StartupRefusal in(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof StartupRefusal r) {
                return r;
            }
        }
        return null;
    }
}
