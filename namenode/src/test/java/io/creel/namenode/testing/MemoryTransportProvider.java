package io.creel.namenode.testing;

import io.creel.storage.testkit.FakeTransportProvider;

/** The test kit's fake transport, registered for storage servers of tier "memory": blocks live in {@link MemoryBlocks#SHARED}. */
public final class MemoryTransportProvider extends FakeTransportProvider {
    public MemoryTransportProvider() {
        super("memory", 1, server -> server.tier().equals("memory") ? MemoryBlocks.SHARED : null);
    }
}
