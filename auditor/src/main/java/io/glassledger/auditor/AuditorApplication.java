package io.glassledger.auditor;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** An auditor (docs/ARCHITECTURE.md, Auditor): {@code java -jar auditor-exec.jar --glassledger.auditor.cluster=...}. */
@SpringBootApplication
@ConfigurationPropertiesScan
public class AuditorApplication {
    public static void main(String[] args) {
        SpringApplication.run(AuditorApplication.class, args);
    }
}
