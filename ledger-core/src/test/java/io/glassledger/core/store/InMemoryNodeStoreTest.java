package io.glassledger.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class InMemoryNodeStoreTest extends NodeStoreContract {
    @Override
    protected NodeStore newStore() {
        return new InMemoryNodeStore();
    }

    @Test
    void sizeBytes_countsANodeOnceHoweverOftenItIsPut() {
        long empty = store.sizeBytes();
        store.write(new StoreBatch().putNode(hashOf("a"), new byte[1000]));
        long once = store.sizeBytes();
        assertTrue(once >= empty + 1000, "size " + once + " after a 1000-byte node");
        store.write(new StoreBatch().putNode(hashOf("a"), new byte[1000]));
        store.write(new StoreBatch().putNode(hashOf("a"), new byte[1000]).putNode(hashOf("a"), new byte[1000]));
        assertEquals(once, store.sizeBytes());
    }
}
