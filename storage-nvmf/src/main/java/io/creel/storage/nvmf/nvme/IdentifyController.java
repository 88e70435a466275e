package io.creel.storage.nvmf.nvme;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The fields of the Identify Controller data structure (CNS 01h) a host needs.
 *
 * @param vendorId PCI vendor ID (VID)
 * @param serial serial number (SN), trimmed
 * @param model model number (MN), trimmed
 * @param firmware firmware revision (FR), trimmed
 * @param mdts Maximum Data Transfer Size as a power of two in units of CAP.MPSMIN; 0 = no limit
 * @param controllerId CNTLID
 * @param version VER
 * @param keepAliveGranularityMillis KAS in milliseconds; 0 = Keep Alive not supported
 * @param maxCommands MAXCMD: most outstanding commands per queue; 0 = not reported
 * @param namespaces NN: highest namespace ID
 * @param subsystemNqn SUBNQN
 * @param ioCapsuleBytes IOCCSZ in bytes: SQE plus in-capsule data an I/O command capsule may carry
 * @param maxSglDescriptors MSDBD
 */
public record IdentifyController(int vendorId, String serial, String model, String firmware, int mdts,
        int controllerId, int version, int keepAliveGranularityMillis, int maxCommands, long namespaces,
        String subsystemNqn, long ioCapsuleBytes, int maxSglDescriptors) {

    /** Parses the 4096-byte structure from {@code data}'s position. */
    public static IdentifyController parse(ByteBuffer data) {
        if (data.remaining() < NvmeCommands.IDENTIFY_LENGTH) {
            throw new IllegalArgumentException("Identify Controller data is " + NvmeCommands.IDENTIFY_LENGTH
                    + " bytes, got " + data.remaining());
        }
        ByteBuffer b = data.slice().order(ByteOrder.LITTLE_ENDIAN);
        return new IdentifyController(b.getShort(0) & 0xFFFF, ascii(b, 4, 20), ascii(b, 24, 40), ascii(b, 64, 8),
                b.get(77) & 0xFF, b.getShort(78) & 0xFFFF, b.getInt(80), (b.getShort(320) & 0xFFFF) * 100,
                b.getShort(514) & 0xFFFF, b.getInt(516) & 0xFFFFFFFFL, ascii(b, 768, 256),
                (b.getInt(1792) & 0xFFFFFFFFL) * 16, b.get(1803) & 0xFF);
    }

    /**
     * Largest data transfer of one command in bytes, or {@link Long#MAX_VALUE} when MDTS reports no
     * limit.
     */
    public long maxTransferBytes(ControllerRegisters.Capabilities cap) {
        return mdts == 0 ? Long.MAX_VALUE : cap.minPageSize() << mdts;
    }

    /** Bytes of data that fit in an I/O command capsule (IOCCSZ minus the 64-byte SQE); 0 if none. */
    public long inCapsuleDataBytes() {
        return Math.max(0, ioCapsuleBytes - SubmissionEntry.SIZE);
    }

    static String ascii(ByteBuffer b, int offset, int length) {
        byte[] bytes = new byte[length];
        b.get(offset, bytes, 0, length);
        int end = 0;
        while (end < length && bytes[end] != 0) {
            end++;
        }
        return new String(bytes, 0, end, StandardCharsets.UTF_8).trim();
    }
}
