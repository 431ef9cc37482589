package io.glassledger.server;

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
    public static void main(String[] args) {
        SpringApplication.run(GlassLedgerServer.class, args);
    }
}
