package io.glassledger.auditor;

import io.glassledger.api.contract.DataDirLock;

/** One auditor per {@code glassledger.auditor.data-dir} (registered in META-INF/spring.factories). */
public class AuditorDataDirLock extends DataDirLock {
    public AuditorDataDirLock() {
        super("glassledger.auditor.data-dir", "auditor-data", "auditor");
    }
}
