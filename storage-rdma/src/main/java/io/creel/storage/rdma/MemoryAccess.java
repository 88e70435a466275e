package io.creel.storage.rdma;

/** What a registration lets peers do with the memory; local access is always granted. */
public enum MemoryAccess {
    /** Only this side's work requests use it (client buffers). */
    LOCAL,
    /** Peers may read it with RDMA READ. */
    REMOTE_READ,
    /** Peers may read it and write into it (a storage server's regions). */
    REMOTE_READ_WRITE,
    /**
     * Peers may read it, write into it and compare-and-swap its 8-byte words (a storage server's
     * tag table, whose words clients claim).
     */
    REMOTE_ATOMIC;

    /** Whether a peer's RDMA READ of this memory is allowed. */
    public boolean remoteRead() {
        return this != LOCAL;
    }

    /** Whether a peer's RDMA WRITE into this memory is allowed. */
    public boolean remoteWrite() {
        return this == REMOTE_READ_WRITE || this == REMOTE_ATOMIC;
    }

    /** Whether a peer's atomic operations on this memory are allowed. */
    public boolean remoteAtomic() {
        return this == REMOTE_ATOMIC;
    }
}
