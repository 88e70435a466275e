package io.creel.storage.nvmf.connect;

import io.creel.storage.nvmf.rdma.JnvmfConnector;
import io.creel.storage.nvmf.target.Fabric;
import io.creel.storage.nvmf.target.TargetConnector;
import io.creel.storage.nvmf.target.TcpConnector;

/** The connector for a fabric: this module's NVMe/TCP initiator, or jNVMf for RDMA. */
public final class Connectors {
    private Connectors() {
    }

    /**
     * A new connector for {@code fabric}, whose threads are named after {@code name}.
     *
     * @param threads event loops for NVMe/TCP (RDMA queues each have a thread of their own)
     */
    public static TargetConnector create(Fabric fabric, int threads, String name) {
        return switch (fabric) {
            case TCP -> new TcpConnector(threads, name);
            case RDMA -> new JnvmfConnector(name);
        };
    }
}
