package io.glassledger.server;

import io.glassledger.api.contract.StartupRefusal;
import io.glassledger.core.txn.WalCorruptedException;
import io.swagger.v3.oas.annotations.OpenAPIDefinition;
import io.swagger.v3.oas.annotations.enums.SecuritySchemeType;
import io.swagger.v3.oas.annotations.info.Info;
import io.swagger.v3.oas.annotations.security.SecurityRequirement;
import io.swagger.v3.oas.annotations.security.SecurityScheme;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** Starts one shard server: {@code ./glassledger server} or {@code java -jar ledger-server-*-exec.jar}. */
@SpringBootApplication
@ConfigurationPropertiesScan
@OpenAPIDefinition(info = @Info(title = "GlassLedger", version = "v1",
        description = "A verifiable ledger database: one shard. Bodies and errors are described in docs/API.md."),
        security = @SecurityRequirement(name = "apiKey"))
@SecurityScheme(name = "apiKey", type = SecuritySchemeType.HTTP, scheme = "bearer")
public class GlassLedgerServer {
    /** The exit status when the shard's WAL is damaged where acknowledged records may be (sysexits EX_DATAERR). */
    public static final int EXIT_WAL_CORRUPTED = 65;

    public static void main(String[] args) {
        if (args.length == 1 && args[0].equals("--version")) {
            System.out.println(io.glassledger.api.Version.line("glassledger-server"));
            return;
        }
        try {
            SpringApplication.run(GlassLedgerServer.class, args);
        } catch (RuntimeException e) {
            // Spring Boot has already printed the failure (WalCorruptedFailureAnalyzer for a damaged WAL,
            // StartupRefusalAnalyzer for an unknown property or a data directory in use).
            if (walCorruption(e) != null) {
                System.exit(EXIT_WAL_CORRUPTED);
            }
            StartupRefusal refusal = StartupRefusal.in(e);
            if (refusal != null) {
                System.exit(refusal.exitCode());
            }
            throw e;
        }
    }

    /** The {@link WalCorruptedException} that {@code e} wraps (Spring wraps it in bean-creation errors), or null. */
    static WalCorruptedException walCorruption(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof WalCorruptedException w) {
                return w;
            }
        }
        return null;
    }
}
