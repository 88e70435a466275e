package io.creel.storage.spi;

/**
 * The one table of what a byte costs by each kind of path, cheapest first; every
 * {@link BlockTransportProvider#cost()} returns one of these {@link #value()}s, so the order of all
 * transports is read here and not pieced together from their providers. A new transport picks the
 * kind of path it is (or adds a row here, between the two it falls between).
 *
 * <p>Two rows may share a value: the selector then keeps the class-path order between them, which
 * does not matter for paths that never reach the same server (one-sided RDMA reaches DRAM servers,
 * NVMe/TCP reaches NVMe-oF targets).
 */
public enum TransportCost {
    /** Same host, the server's memory mapped into the client ("mapped"): a memcpy. */
    SAME_HOST_MEMORY(10),
    /** Same host, the server's data file read by the client ("local-file"): a pread. */
    SAME_HOST_FILE(20),
    /** The device reached directly over RDMA, the server out of the path ("nvmf-rdma"). */
    DEVICE_OVER_RDMA(40),
    /** The server's memory reached by one-sided RDMA, its CPU out of the path ("rdma"). */
    ONE_SIDED_RDMA(50),
    /** The device reached directly over TCP, the server out of the path ("nvmf-tcp"). */
    DEVICE_OVER_TCP(50),
    /** Through the storage server over TCP ("tcp"): every client can take it, the fallback of all. */
    SERVER_OVER_TCP(100);

    private final int value;

    TransportCost(int value) {
        this.value = value;
    }

    /** The cost a provider of this kind reports from {@link BlockTransportProvider#cost()}. */
    public int value() {
        return value;
    }
}
