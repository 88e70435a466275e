package io.creel.storage.nvmf.nvme;

/**
 * The Status Field of an NVMe completion queue entry, decoded: Status Code Type, Status Code,
 * Command Retry Delay, More and Do Not Retry, with the name the NVMe specifications give the code.
 *
 * @param sct status code type (0 generic, 1 command specific, 2 media and data integrity, 3 path related, 7 vendor)
 * @param sc status code within that type
 * @param crd command retry delay index (0 = retry at once)
 * @param more more status information is in the Error Information log page
 * @param doNotRetry the same command would fail again
 */
public record NvmeStatus(int sct, int sc, int crd, boolean more, boolean doNotRetry) {
    public static final int SCT_GENERIC = 0;
    public static final int SCT_COMMAND_SPECIFIC = 1;
    public static final int SCT_MEDIA = 2;
    public static final int SCT_PATH = 3;
    public static final int SCT_VENDOR = 7;

    /** Generic: LBA Out of Range (NVM command set). */
    public static final int SC_LBA_OUT_OF_RANGE = 0x80;
    /** Generic: Invalid Field in Command. */
    public static final int SC_INVALID_FIELD = 0x02;
    /** Generic: Invalid Namespace or Format. */
    public static final int SC_INVALID_NAMESPACE = 0x0B;
    /** Command specific, Fabrics Connect: Connect Invalid Parameters. */
    public static final int SC_CONNECT_INVALID_PARAMETERS = 0x82;

    /**
     * Decodes the 16-bit status half-word of a CQE (DW3 bits 31:16), whose bit 0 is the Phase Tag.
     */
    public static NvmeStatus fromCqeHalfword(int halfword) {
        int field = (halfword & 0xFFFF) >>> 1;
        return new NvmeStatus((field >>> 8) & 0x7, field & 0xFF, (field >>> 11) & 0x3,
                (field & (1 << 13)) != 0, (field & (1 << 14)) != 0);
    }

    /** The CQE status half-word (phase tag 0) for this status; the inverse of {@link #fromCqeHalfword}. */
    public int toCqeHalfword() {
        int field = (sc & 0xFF) | (sct & 0x7) << 8 | (crd & 0x3) << 11 | (more ? 1 << 13 : 0) | (doNotRetry ? 1 << 14 : 0);
        return field << 1;
    }

    /** Whether the half-word reports success (Status Code Type 0, Status Code 0). */
    public static boolean isSuccess(int halfword) {
        return ((halfword >>> 1) & 0x7FF) == 0;
    }

    /** The specification's name of this status, e.g. "LBA Out of Range", or a hex form for unknown codes. */
    public String name() {
        String n = switch (sct) {
            case SCT_GENERIC -> generic(sc);
            case SCT_COMMAND_SPECIFIC -> commandSpecific(sc);
            case SCT_MEDIA -> media(sc);
            case SCT_PATH -> path(sc);
            case SCT_VENDOR -> "Vendor Specific status";
            default -> null;
        };
        return n != null ? n : String.format("Unknown status (SCT %#x, SC %#04x)", sct, sc);
    }

    @Override
    public String toString() {
        return String.format("%s (SCT %#x, SC %#04x%s%s)", name(), sct, sc, doNotRetry ? ", do not retry" : "",
                more ? ", more in error log" : "");
    }

    private static String generic(int sc) {
        return switch (sc) {
            case 0x00 -> "Successful Completion";
            case 0x01 -> "Invalid Command Opcode";
            case 0x02 -> "Invalid Field in Command";
            case 0x03 -> "Command ID Conflict";
            case 0x04 -> "Data Transfer Error";
            case 0x05 -> "Commands Aborted due to Power Loss Notification";
            case 0x06 -> "Internal Error";
            case 0x07 -> "Command Abort Requested";
            case 0x08 -> "Command Aborted due to SQ Deletion";
            case 0x09 -> "Command Aborted due to Failed Fused Command";
            case 0x0A -> "Command Aborted due to Missing Fused Command";
            case 0x0B -> "Invalid Namespace or Format";
            case 0x0C -> "Command Sequence Error";
            case 0x0D -> "Invalid SGL Segment Descriptor";
            case 0x0E -> "Invalid Number of SGL Descriptors";
            case 0x0F -> "Data SGL Length Invalid";
            case 0x10 -> "Metadata SGL Length Invalid";
            case 0x11 -> "SGL Descriptor Type Invalid";
            case 0x12 -> "Invalid Use of Controller Memory Buffer";
            case 0x13 -> "PRP Offset Invalid";
            case 0x14 -> "Atomic Write Unit Exceeded";
            case 0x15 -> "Operation Denied";
            case 0x16 -> "SGL Offset Invalid";
            case 0x18 -> "Host Identifier Inconsistent Format";
            case 0x19 -> "Keep Alive Timer Expired";
            case 0x1A -> "Keep Alive Timeout Invalid";
            case 0x1B -> "Command Aborted due to Preempt and Abort";
            case 0x1C -> "Sanitize Failed";
            case 0x1D -> "Sanitize In Progress";
            case 0x1E -> "SGL Data Block Granularity Invalid";
            case 0x1F -> "Command Not Supported for Queue in CMB";
            case 0x20 -> "Namespace is Write Protected";
            case 0x21 -> "Command Interrupted";
            case 0x22 -> "Transient Transport Error";
            case 0x80 -> "LBA Out of Range";
            case 0x81 -> "Capacity Exceeded";
            case 0x82 -> "Namespace Not Ready";
            case 0x83 -> "Reservation Conflict";
            case 0x84 -> "Format In Progress";
            default -> null;
        };
    }

    private static String commandSpecific(int sc) {
        return switch (sc) {
            case 0x00 -> "Completion Queue Invalid";
            case 0x01 -> "Invalid Queue Identifier";
            case 0x02 -> "Invalid Queue Size";
            case 0x03 -> "Abort Command Limit Exceeded";
            case 0x05 -> "Asynchronous Event Request Limit Exceeded";
            case 0x06 -> "Invalid Firmware Slot";
            case 0x07 -> "Invalid Firmware Image";
            case 0x08 -> "Invalid Interrupt Vector";
            case 0x09 -> "Invalid Log Page";
            case 0x0A -> "Invalid Format";
            case 0x0D -> "Feature Identifier Not Saveable";
            case 0x0E -> "Feature Not Changeable";
            case 0x0F -> "Feature Not Namespace Specific";
            case 0x80 -> "Connect Incompatible Format / Conflicting Attributes";
            case 0x81 -> "Connect Controller Busy / Invalid Protection Information";
            case 0x82 -> "Connect Invalid Parameters / Attempted Write to Read Only Range";
            case 0x83 -> "Connect Restart Discovery";
            case 0x84 -> "Connect Invalid Host";
            case 0x85 -> "Invalid Queue Type";
            case 0x90 -> "Discover Restart";
            case 0x91 -> "Authentication Required";
            default -> null;
        };
    }

    private static String media(int sc) {
        return switch (sc) {
            case 0x80 -> "Write Fault";
            case 0x81 -> "Unrecovered Read Error";
            case 0x82 -> "End-to-end Guard Check Error";
            case 0x83 -> "End-to-end Application Tag Check Error";
            case 0x84 -> "End-to-end Reference Tag Check Error";
            case 0x85 -> "Compare Failure";
            case 0x86 -> "Access Denied";
            case 0x87 -> "Deallocated or Unwritten Logical Block";
            default -> null;
        };
    }

    private static String path(int sc) {
        return switch (sc) {
            case 0x00 -> "Internal Path Error";
            case 0x01 -> "Asymmetric Access Persistent Loss";
            case 0x02 -> "Asymmetric Access Inaccessible";
            case 0x03 -> "Asymmetric Access Transition";
            case 0x60 -> "Controller Pathing Error";
            case 0x70 -> "Host Pathing Error";
            case 0x71 -> "Command Aborted By Host";
            default -> null;
        };
    }
}
