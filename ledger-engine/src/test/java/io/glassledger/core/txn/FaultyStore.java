package io.glassledger.core.txn;

import io.glassledger.core.store.ForwardingNodeStore;
import io.glassledger.core.store.NodeStore;
import io.glassledger.core.store.StoreBatch;
import io.glassledger.core.store.StoreException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.rocksdb.RocksDBException;

/**
 * The real store with a switch: while a fault is set, {@link #write} throws it before touching RocksDB (so the
 * store is unchanged, as after a failed RocksDB write). Reads always go through.
 */
final class FaultyStore extends ForwardingNodeStore {
    /** What RocksDbNodeStore throws when the process is out of file descriptors. */
    static final Supplier<RuntimeException> TOO_MANY_OPEN_FILES = () -> new StoreException(
            "RocksDB write failed: IO error: While open a file for appending: 000042.log: Too many open files",
            new RocksDBException("IO error: While open a file for appending: 000042.log: Too many open files"));

    private final AtomicReference<Supplier<RuntimeException>> fault = new AtomicReference<>();
    final AtomicInteger failedWrites = new AtomicInteger();

    FaultyStore(NodeStore real) {
        super(real);
    }

    void fail(Supplier<RuntimeException> f) {
        fault.set(f);
    }

    void heal() {
        fault.set(null);
    }

    @Override
    public void write(StoreBatch batch) {
        Supplier<RuntimeException> f = fault.get();
        if (f != null) {
            failedWrites.incrementAndGet();
            throw f.get();
        }
        inner.write(batch);
    }
}
