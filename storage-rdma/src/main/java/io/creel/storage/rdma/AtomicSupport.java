package io.creel.storage.rdma;

/**
 * How far a device's atomic operations ({@link RdmaConnection#compareAndSwap}) are atomic: the
 * verbs' {@code ibv_device_attr.atomic_cap}.
 */
public enum AtomicSupport {
    /** The device has no atomic operations (or this process's libdisni.so cannot post them). */
    NONE,
    /**
     * Atomic among the atomic operations this device executes, not against the CPU's own atomic
     * instructions on the same memory ({@code IBV_ATOMIC_HCA}: most NICs, soft-RoCE).
     */
    DEVICE,
    /** Atomic against every other access, the CPU's included ({@code IBV_ATOMIC_GLOB}). */
    GLOBAL;

    /** Whether compare-and-swap can be posted at all. */
    public boolean available() {
        return this != NONE;
    }
}
