package io.creel.storage.nvmf.nvme;

/** Opcodes of the NVMe admin, NVM I/O and Fabrics command sets that this initiator issues. */
public final class Opcodes {
    /** Admin: Identify. */
    public static final int ADMIN_IDENTIFY = 0x06;
    /** Admin: Set Features. */
    public static final int ADMIN_SET_FEATURES = 0x09;
    /** Admin: Get Features. */
    public static final int ADMIN_GET_FEATURES = 0x0A;
    /** Admin: Keep Alive. */
    public static final int ADMIN_KEEP_ALIVE = 0x18;

    /** NVM I/O: Flush. */
    public static final int IO_FLUSH = 0x00;
    /** NVM I/O: Write. */
    public static final int IO_WRITE = 0x01;
    /** NVM I/O: Read. */
    public static final int IO_READ = 0x02;

    /** Fabrics command (admin and I/O queues); the command type is in byte 4 (FCTYPE). */
    public static final int FABRICS = 0x7F;
    /** Fabrics command type: Property Set. */
    public static final int FCTYPE_PROPERTY_SET = 0x00;
    /** Fabrics command type: Connect. */
    public static final int FCTYPE_CONNECT = 0x01;
    /** Fabrics command type: Property Get. */
    public static final int FCTYPE_PROPERTY_GET = 0x04;

    /** Identify CNS: the Identify Namespace data structure of NSID. */
    public static final int CNS_NAMESPACE = 0x00;
    /** Identify CNS: the Identify Controller data structure. */
    public static final int CNS_CONTROLLER = 0x01;
    /** Identify CNS: the list of active namespace IDs above NSID. */
    public static final int CNS_ACTIVE_NAMESPACES = 0x02;

    /** Feature identifier: Number of Queues. */
    public static final int FEATURE_NUMBER_OF_QUEUES = 0x07;

    private Opcodes() {
    }
}
