package io.creel.storage.nvmf.target;

/**
 * One NVMe-oF subsystem at one port: what a host connects a controller to.
 *
 * @param fabric how (TCP or RDMA)
 * @param host   host name or IP address
 * @param port   the transport port
 * @param nqn    the subsystem's NQN
 */
public record TargetAddress(Fabric fabric, String host, int port, String nqn) {
    public TargetAddress {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("NVMe-oF target host is empty");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("NVMe-oF target port must be 1..65535, not " + port);
        }
        if (nqn == null || nqn.isBlank()) {
            throw new IllegalArgumentException("NVMe-oF subsystem NQN is empty");
        }
    }

    /** For messages: "nqn... at tcp://host:port". */
    @Override
    public String toString() {
        return nqn + " at " + fabric.text() + "://" + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
