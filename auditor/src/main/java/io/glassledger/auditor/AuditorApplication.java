package io.glassledger.auditor;

import io.glassledger.api.contract.StartupRefusal;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** An auditor (docs/ARCHITECTURE.md, Auditor): {@code java -jar auditor-exec.jar --glassledger.auditor.cluster=...}. */
@SpringBootApplication
@ConfigurationPropertiesScan
public class AuditorApplication {
    public static void main(String[] args) {
        if (args.length == 1 && args[0].equals("--version")) {
            System.out.println(io.glassledger.api.Version.line("glassledger-auditor"));
            return;
        }
        try {
            SpringApplication.run(AuditorApplication.class, args);
        } catch (RuntimeException e) {
            // StartupRefusalAnalyzer has printed it (an unknown property, a data directory in use)
            StartupRefusal refusal = StartupRefusal.in(e);
            if (refusal != null) {
                System.exit(refusal.exitCode());
            }
            throw e;
        }
    }
}
