package io.creel.storage.nvmf.target;

import java.util.Locale;

/** The NVMe-oF transport a controller is reached over. */
public enum Fabric {
    /** NVMe/TCP, through this module's initiator. */
    TCP,
    /** NVMe/RDMA, through jNVMf on DiSNI. */
    RDMA;

    /** "tcp" or "rdma". */
    public String text() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses "tcp" or "rdma". */
    public static Fabric parse(String text) {
        return switch (text.trim()) {
            case "tcp" -> TCP;
            case "rdma" -> RDMA;
            default -> throw new IllegalArgumentException("'" + text + "' is not an NVMe-oF transport (tcp or rdma)");
        };
    }
}
