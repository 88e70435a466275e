package io.creel.storage.nvmf.format;

import io.creel.common.protocol.StorageServerInfo;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a client needs to reach an nvmf server's namespace directly, as it travels in the server's
 * {@link StorageServerInfo#attributes()}: the target (address, NVMe/TCP and NVMe/RDMA ports,
 * subsystem NQN, namespace id, the digests the target takes) and the volume's layout on the
 * namespace. Block size and count are the server's own fields.
 *
 * <table>
 *   <caption>attributes</caption>
 *   <tr><td>{@code nvmf.addr}</td><td>target host or IP address</td></tr>
 *   <tr><td>{@code nvmf.tcp.port}</td><td>NVMe/TCP port, 0 if the target offers none</td></tr>
 *   <tr><td>{@code nvmf.rdma.port}</td><td>NVMe/RDMA port, 0 if none</td></tr>
 *   <tr><td>{@code nvmf.nqn}</td><td>subsystem NQN</td></tr>
 *   <tr><td>{@code nvmf.nsid}</td><td>namespace id</td></tr>
 *   <tr><td>{@code nvmf.tcp.digest}</td><td>none, header, data or both (CRC32C digests over NVMe/TCP)</td></tr>
 *   <tr><td>{@code nvmf.sector}</td><td>sector size in bytes</td></tr>
 *   <tr><td>{@code nvmf.tag.sector}</td><td>sector of block 0's tag</td></tr>
 *   <tr><td>{@code nvmf.data.sector}</td><td>sector block 0 starts at</td></tr>
 * </table>
 *
 * @param address   target host
 * @param tcpPort   NVMe/TCP port or 0
 * @param rdmaPort  NVMe/RDMA port or 0
 * @param nqn       subsystem NQN
 * @param nsid      namespace id
 * @param digest    digests over NVMe/TCP
 * @param layout    the volume on the namespace
 */
public record NvmfAttributes(String address, int tcpPort, int rdmaPort, String nqn, int nsid, Digest digest,
                             VolumeLayout layout) {
    public static final String ADDRESS = "nvmf.addr";
    public static final String TCP_PORT = "nvmf.tcp.port";
    public static final String RDMA_PORT = "nvmf.rdma.port";
    public static final String NQN = "nvmf.nqn";
    public static final String NSID = "nvmf.nsid";
    public static final String TCP_DIGEST = "nvmf.tcp.digest";
    public static final String SECTOR = "nvmf.sector";
    public static final String TAG_SECTOR = "nvmf.tag.sector";
    public static final String DATA_SECTOR = "nvmf.data.sector";

    /** CRC32C digests on NVMe/TCP PDUs. */
    public enum Digest {
        NONE(false, false), HEADER(true, false), DATA(false, true), BOTH(true, true);

        private final boolean header;
        private final boolean data;

        Digest(boolean header, boolean data) {
            this.header = header;
            this.data = data;
        }

        public boolean header() {
            return header;
        }

        public boolean data() {
            return data;
        }

        /** none, header, data or both. */
        public static Digest parse(String text) {
            return switch (text.trim()) {
                case "none" -> NONE;
                case "header" -> HEADER;
                case "data" -> DATA;
                case "both" -> BOTH;
                default -> throw new IllegalArgumentException("'" + text + "' is not one of none, header, data, both");
            };
        }

        public String text() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public NvmfAttributes {
        if (address == null || address.isBlank()) {
            throw new IllegalArgumentException(ADDRESS + " is empty");
        }
        checkPort(TCP_PORT, tcpPort);
        checkPort(RDMA_PORT, rdmaPort);
        if (nqn == null || nqn.isBlank()) {
            throw new IllegalArgumentException(NQN + " is empty");
        }
        if (nsid < 1) {
            throw new IllegalArgumentException(NSID + " " + nsid + " is not a namespace id");
        }
    }

    private static void checkPort(String name, int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(name + " " + port + " is not a port");
        }
    }

    /** As attributes for the server's description. */
    public Map<String, String> toMap() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(ADDRESS, address);
        m.put(TCP_PORT, Integer.toString(tcpPort));
        m.put(RDMA_PORT, Integer.toString(rdmaPort));
        m.put(NQN, nqn);
        m.put(NSID, Integer.toString(nsid));
        m.put(TCP_DIGEST, digest.text());
        m.put(SECTOR, Integer.toString(layout.sectorSize()));
        m.put(TAG_SECTOR, Long.toString(layout.tagSector()));
        m.put(DATA_SECTOR, Long.toString(layout.dataSector()));
        return m;
    }

    /**
     * The attributes of {@code server}, or {@code null} if it is not reachable this way (no
     * {@code nvmf.addr}).
     *
     * @throws IllegalArgumentException naming the attribute, when one is missing or malformed
     */
    public static NvmfAttributes of(StorageServerInfo server) {
        if (server.attribute(ADDRESS).isEmpty()) {
            return null;
        }
        VolumeLayout layout;
        try {
            layout = new VolumeLayout(number(server, SECTOR, Integer.MAX_VALUE).intValue(), server.blockSize(),
                    server.blockCount(), number(server, TAG_SECTOR, Long.MAX_VALUE),
                    number(server, DATA_SECTOR, Long.MAX_VALUE));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("storage server " + server.address() + " describes an inconsistent "
                    + "NVMe-oF volume: " + e.getMessage(), e);
        }
        return new NvmfAttributes(server.attribute(ADDRESS), number(server, TCP_PORT, 65535).intValue(),
                number(server, RDMA_PORT, 65535).intValue(), server.attribute(NQN),
                number(server, NSID, Integer.MAX_VALUE).intValue(), Digest.parse(server.attribute(TCP_DIGEST)), layout);
    }

    private static Long number(StorageServerInfo server, String name, long max) {
        String v = server.attribute(name);
        try {
            long n = Long.parseLong(v);
            if (n < 0 || n > max) {
                throw new NumberFormatException("out of range");
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("storage server " + server.address() + " has attribute " + name + "='"
                    + v + "', not a number in 0.." + max);
        }
    }
}
