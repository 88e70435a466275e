package io.creel.storage.rdma;

/** The one-sided operations a connection posts. */
public enum RdmaOperation {
    /** Copies the peer's memory into a local buffer. */
    READ,
    /** Copies a local buffer into the peer's memory. */
    WRITE,
    /**
     * Compares an 8-byte word of the peer's memory with a value and, if equal, replaces it, as one
     * atomic step on the peer's device; the word's previous value lands in a local buffer.
     */
    COMPARE_AND_SWAP
}
