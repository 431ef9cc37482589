package io.glassledger.server.shard;

import io.glassledger.core.store.NodeStore;
import java.util.function.UnaryOperator;

/**
 * Wraps the engine's RocksDB store as it opens (a bean of this type, if any). Only tests define one, to inject
 * storage faults around the real store; it must keep the {@link NodeStore} contract.
 */
public interface StoreDecorator extends UnaryOperator<NodeStore> {
}
