package io.creel.storage.transport;

import io.creel.storage.testkit.FakeServers;
import io.creel.storage.testkit.FakeTransportProvider;

/**
 * Two providers registered in this module's test {@code META-INF/services}, costliest first, to see
 * the selector find and order what is on the class path.
 */
public final class LoadedProviders {
    static final FakeServers SERVERS = new FakeServers();

    private LoadedProviders() {
    }

    /** Registered second, cheapest. */
    public static final class Cheap extends FakeTransportProvider {
        public Cheap() {
            super("loaded-cheap", 5, SERVERS);
        }
    }

    /** Registered first, costliest. */
    public static final class Costly extends FakeTransportProvider {
        public Costly() {
            super("loaded-costly", 500, SERVERS);
        }
    }
}
