package io.creel.storage.rdma;

/** The one-sided operations a connection posts. */
public enum RdmaOperation {
    /** Copies the peer's memory into a local buffer. */
    READ,
    /** Copies a local buffer into the peer's memory. */
    WRITE
}
