package io.glassledger.server;

import io.glassledger.api.contract.DataDirLock;
import io.glassledger.api.contract.StartupRefusal;
import io.glassledger.core.ledger.UnsupportedFormatException;
import io.glassledger.core.txn.EngineConfig;
import java.nio.file.Path;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * One server per {@code glassledger.data-dir} (registered in META-INF/spring.factories), and a data directory of
 * another format refused before anything in it is written (FORMAT.md §18).
 */
public class ServerDataDirLock extends DataDirLock {
    public ServerDataDirLock() {
        super("glassledger.data-dir", "data", "server");
    }

    @Override
    protected void checkContents(Path dir, ConfigurableEnvironment env) {
        int shard = env.getProperty("glassledger.shard", Integer.class, 0);
        EngineConfig cfg = EngineConfig.defaults(LedgerProperties.shardDir(dir, shard));
        try {
            cfg.checkDataFormat();
        } catch (UnsupportedFormatException e) {
            throw new StartupRefusal("data directory " + cfg.dir() + ": " + e.getMessage(),
                    UnsupportedFormatException.action(), StartupRefusal.EXIT_DATA_FORMAT);
        }
    }
}
