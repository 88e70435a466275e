package io.creel.client.fake;

import io.creel.storage.testkit.FakeTransportProvider;

/**
 * The test kit's fake transport, registered for this module's tests (and the CLI's): reaches the
 * {@link FakeStorage} servers (tier "fake") of this JVM, which answer with their own delay.
 */
public final class FakeStorageTransport extends FakeTransportProvider {
    public FakeStorageTransport() {
        super("fake", 1, server -> "fake".equals(server.tier()) ? FakeStorage.byPort(server.port()) : null);
    }
}
