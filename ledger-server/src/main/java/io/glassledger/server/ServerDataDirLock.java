package io.glassledger.server;

import io.glassledger.api.contract.DataDirLock;

/** One server per {@code glassledger.data-dir} (registered in META-INF/spring.factories). */
public class ServerDataDirLock extends DataDirLock {
    public ServerDataDirLock() {
        super("glassledger.data-dir", "data", "server");
    }
}
