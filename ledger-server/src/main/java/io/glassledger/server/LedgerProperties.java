package io.glassledger.server;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Settings under {@code glassledger.*} (application.yml, environment variables such as GLASSLEDGER_DATA_DIR, or
 * command-line {@code --glassledger.data-dir=...}).
 *
 * @param dataDir         ledger, WAL, keys and credentials
 * @param shard           this server's shard number
 * @param persistInterval GlassDB's persist interval
 * @param limits          request limits (docs/API.md "Limits")
 */
@Validated
@ConfigurationProperties("glassledger")
public record LedgerProperties(@NotNull @DefaultValue("data") Path dataDir,
                               @Min(0) @DefaultValue("0") int shard,
                               @NotNull @DefaultValue("100ms") Duration persistInterval,
                               @Min(1) @DefaultValue("20000") long maxUnpersistedWrites,
                               @Valid @NotNull @DefaultValue Limits limits) {

    public record Limits(@Min(1) @Max(1024) @DefaultValue("1024") int maxKeyBytes,
                         @Min(1) @Max(1 << 20) @DefaultValue("1048576") int maxValueBytes,
                         @Min(256) @Max(64 << 20) @DefaultValue("1048576") int maxTransactionBytes,
                         @Min(1) @Max(100_000) @DefaultValue("10000") int maxKeysPerRequest,
                         @Min(1) @Max(100_000) @DefaultValue("1000") int maxHistory,
                         @Min(1) @Max(100_000) @DefaultValue("10000") int maxScan,
                         @NotNull @DefaultValue("10s") Duration maxProofWait) {
    }
}
