package io.creel.bench;

import io.creel.storage.testkit.FakeTransportProvider;

/** The test kit's transport, on the class path but not usable here, as RDMA on a machine without it. */
public final class UnusableTransportProvider extends FakeTransportProvider {
    public UnusableTransportProvider() {
        super("unusable", 50, server -> null);
        unavailableBecause("no /dev/infiniband: this kernel offers no RDMA");
    }
}
