package io.creel.storage.nvmf.nvme;

/**
 * Offsets and bit fields of the controller properties an NVMe-oF host reads and writes with
 * Property Get/Set: CAP, VS, CC and CSTS.
 */
public final class ControllerRegisters {
    /** Controller Capabilities, 8 bytes. */
    public static final int CAP = 0x00;
    /** Version, 4 bytes. */
    public static final int VS = 0x08;
    /** Controller Configuration, 4 bytes. */
    public static final int CC = 0x14;
    /** Controller Status, 4 bytes. */
    public static final int CSTS = 0x1C;

    /** CC.EN. */
    public static final int CC_ENABLE = 1;
    /** CC.SHN = 01b, normal shutdown notification. */
    public static final int CC_SHUTDOWN_NORMAL = 1 << 14;
    private static final int CC_SHN_MASK = 3 << 14;
    /** CC.IOSQES = 6 (64-byte SQ entries) and CC.IOCQES = 4 (16-byte CQ entries); CSS, MPS and AMS 0. */
    public static final int CC_NVM_ENTRY_SIZES = 6 << 16 | 4 << 20;

    /** CSTS.RDY. */
    public static final int CSTS_READY = 1;
    /** CSTS.CFS, controller fatal status. */
    public static final int CSTS_FATAL = 1 << 1;
    private static final int CSTS_SHST_MASK = 3 << 2;
    /** CSTS.SHST = 10b, shutdown processing complete. */
    public static final int CSTS_SHUTDOWN_COMPLETE = 2 << 2;

    private ControllerRegisters() {
    }

    /** The CC value that enables a controller for the NVM command set with 4 KiB memory pages. */
    public static int enableValue() {
        return CC_NVM_ENTRY_SIZES | CC_ENABLE;
    }

    /** {@code cc} with a normal shutdown notification set. */
    public static int withShutdown(int cc) {
        return (cc & ~CC_SHN_MASK) | CC_SHUTDOWN_NORMAL;
    }

    public static boolean shutdownComplete(int csts) {
        return (csts & CSTS_SHST_MASK) == CSTS_SHUTDOWN_COMPLETE;
    }

    /** A version property as "major.minor.tertiary". */
    public static String version(int vs) {
        return (vs >>> 16) + "." + ((vs >>> 8) & 0xFF) + "." + (vs & 0xFF);
    }

    /**
     * CAP, decoded.
     *
     * @param maxQueueEntries MQES + 1: most entries an I/O submission queue may have
     * @param timeoutMillis CAP.TO: worst-case time for CSTS.RDY to follow CC.EN
     * @param minPageSize 2^(12 + MPSMIN) bytes
     * @param maxPageSize 2^(12 + MPSMAX) bytes
     * @param nvmCommandSet CSS bit 0: the NVM command set is supported
     */
    public record Capabilities(int maxQueueEntries, long timeoutMillis, long minPageSize, long maxPageSize,
            boolean nvmCommandSet) {
        public static Capabilities decode(long cap) {
            return new Capabilities((int) (cap & 0xFFFF) + 1, ((cap >>> 24) & 0xFF) * 500L,
                    1L << (12 + ((cap >>> 48) & 0xF)), 1L << (12 + ((cap >>> 52) & 0xF)), ((cap >>> 37) & 1) != 0);
        }

        /** The CAP value these capabilities decode from (for a controller, e.g. a test target). */
        public long encode() {
            return (maxQueueEntries - 1 & 0xFFFFL) | (timeoutMillis / 500 & 0xFF) << 24
                    | (long) (Long.numberOfTrailingZeros(minPageSize) - 12) << 48
                    | (long) (Long.numberOfTrailingZeros(maxPageSize) - 12) << 52 | (nvmCommandSet ? 1L << 37 : 0);
        }
    }
}
