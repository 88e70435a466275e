package io.creel.storage.nvmf.tcp;

import io.creel.storage.nvmf.nvme.ConnectData;

/**
 * Where an NVMe/TCP subsystem is: host, TCP port (4420 by convention) and subsystem NQN.
 */
public record NvmeTcpEndpoint(String host, int port, String subsystemNqn) {
    /** The IANA port for NVMe/TCP I/O controllers. */
    public static final int DEFAULT_PORT = 4420;

    public NvmeTcpEndpoint {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("NVMe/TCP target host is empty");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("NVMe/TCP target port must be 1..65535, not " + port);
        }
        ConnectData.checkNqn(subsystemNqn, "subsystem NQN");
    }

    /** Parses "host:port" (or "host", meaning port 4420; "[v6addr]:port" for IPv6). */
    public static NvmeTcpEndpoint parse(String address, String subsystemNqn) {
        String a = address.trim();
        String host = a;
        int port = DEFAULT_PORT;
        int colon = a.lastIndexOf(':');
        if (a.startsWith("[")) {
            int close = a.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("NVMe/TCP address '" + address + "' lacks ']'");
            }
            host = a.substring(1, close);
            colon = a.indexOf(':', close);
        } else if (colon >= 0 && a.indexOf(':') == colon) {
            host = a.substring(0, colon);
        } else {
            colon = -1;
        }
        if (colon >= 0) {
            try {
                port = Integer.parseInt(a.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("NVMe/TCP address '" + address + "' has no numeric port", e);
            }
        }
        return new NvmeTcpEndpoint(host, port, subsystemNqn);
    }

    @Override
    public String toString() {
        return subsystemNqn + " at " + host + ":" + port;
    }
}
