package io.creel.storage.rdma;

import java.nio.ByteBuffer;

/**
 * A direct buffer registered with a device: the device may read and write it without the CPU.
 *
 * <p>Ownership: the registration does not own the buffer's memory; whoever allocated it keeps it
 * alive until {@link #close()} returned. Closing deregisters; using the registration afterwards
 * fails with {@link RdmaException.Kind#CLOSED}. Registration is slow (it pins pages), so callers
 * register once and reuse, never per operation.
 */
public interface RegisteredMemory extends AutoCloseable {
    /** The registered buffer (position and limit are the caller's; the registration covers its capacity). */
    ByteBuffer buffer();

    /** The registered length in bytes (the buffer's capacity). */
    int length();

    /** The local key work requests on this device name the memory with. */
    int lkey();

    /** The remote key peers name the memory with (meaningful unless the access is {@link MemoryAccess#LOCAL}). */
    int rkey();

    /** What peers may do with the memory. */
    MemoryAccess access();

    /** The memory as a peer addresses it, to publish to peers (for example with block grants). */
    RemoteRegion remote();

    /** Whether the registration is still in effect. */
    boolean isOpen();

    /** Deregisters the memory. Idempotent. */
    @Override
    void close() throws RdmaException;
}
