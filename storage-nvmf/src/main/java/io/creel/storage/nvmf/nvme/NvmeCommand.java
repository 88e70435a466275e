package io.creel.storage.nvmf.nvme;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * One NVMe command as a transport sees it: the fields of the 64-byte submission queue entry that
 * belong to the command (opcode, DW1, DW10-15), and its data. The transport fills in the command
 * identifier and the data pointer (an SGL descriptor for NVMe-oF).
 *
 * <p>Data buffers are used from their position to their limit and never moved; a gather/scatter
 * list of several buffers is one contiguous transfer in list order. The buffers belong to the
 * transport until the command completes: the caller must neither read (for a command that reads)
 * nor change (for one that writes) them before then.
 */
public final class NvmeCommand {
    private static final ByteBuffer[] NO_DATA = new ByteBuffer[0];

    private final int opcode;
    private final int dw1;
    private final int dw10;
    private final int dw11;
    private final int dw12;
    private final int dw13;
    private final int dw14;
    private final int dw15;
    private final DataDirection direction;
    private final ByteBuffer[] data;
    private final int dataLength;

    private NvmeCommand(int opcode, int dw1, int dw10, int dw11, int dw12, int dw13, int dw14, int dw15,
            DataDirection direction, ByteBuffer[] data) {
        this.opcode = opcode;
        this.dw1 = dw1;
        this.dw10 = dw10;
        this.dw11 = dw11;
        this.dw12 = dw12;
        this.dw13 = dw13;
        this.dw14 = dw14;
        this.dw15 = dw15;
        this.direction = direction;
        this.data = data;
        long len = 0;
        for (ByteBuffer b : data) {
            len += Objects.requireNonNull(b, "data buffer").remaining();
        }
        if (len > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("command data of " + len + " bytes exceeds 2 GiB");
        }
        if (direction == DataDirection.NONE && len != 0) {
            throw new IllegalArgumentException("a command without data direction was given " + len + " bytes");
        }
        this.dataLength = (int) len;
    }

    /** A command without data. */
    public static NvmeCommand of(int opcode, int dw1, int dw10, int dw11, int dw12, int dw13, int dw14, int dw15) {
        return new NvmeCommand(opcode, dw1, dw10, dw11, dw12, dw13, dw14, dw15, DataDirection.NONE, NO_DATA);
    }

    /** A command moving {@code data} (one transfer, in list order) in {@code direction}. */
    public static NvmeCommand withData(int opcode, int dw1, int dw10, int dw11, int dw12, int dw13, int dw14,
            int dw15, DataDirection direction, ByteBuffer... data) {
        return new NvmeCommand(opcode, dw1, dw10, dw11, dw12, dw13, dw14, dw15, direction, data.clone());
    }

    public int opcode() {
        return opcode;
    }

    /** DW1: the namespace ID, or for a Fabrics command the command type (FCTYPE) in its low byte. */
    public int dw1() {
        return dw1;
    }

    public int dw10() {
        return dw10;
    }

    public int dw11() {
        return dw11;
    }

    public int dw12() {
        return dw12;
    }

    public int dw13() {
        return dw13;
    }

    public int dw14() {
        return dw14;
    }

    public int dw15() {
        return dw15;
    }

    public DataDirection direction() {
        return direction;
    }

    /** The data buffers (shared, not copied: do not change their positions or limits). */
    public ByteBuffer[] data() {
        return data;
    }

    /** Total bytes of data, the sum of the buffers' remaining bytes when the command was made. */
    public int dataLength() {
        return dataLength;
    }

    public boolean isFabrics() {
        return opcode == Opcodes.FABRICS;
    }

    /** Writes the command's fields (not CID, not the data pointer) into a submission entry. */
    public void encode(SubmissionEntry sqe) {
        sqe.opcode(opcode).nsid(dw1)
                .cdw(10, dw10).cdw(11, dw11).cdw(12, dw12).cdw(13, dw13).cdw(14, dw14).cdw(15, dw15);
    }

    /** A short description for error messages: "Read nsid 1 slba 2048 nlb 8 (4096 bytes)". */
    public String describe() {
        return switch (opcode) {
            case Opcodes.IO_READ, Opcodes.IO_WRITE -> String.format("%s nsid %d slba %d nlb %d (%d bytes)",
                    opcode == Opcodes.IO_READ ? "Read" : "Write", dw1, (dw10 & 0xFFFFFFFFL) | ((long) dw11 << 32),
                    (dw12 & 0xFFFF) + 1, dataLength);
            case Opcodes.IO_FLUSH -> "Flush nsid " + dw1;
            case Opcodes.ADMIN_IDENTIFY -> String.format("Identify cns %d nsid %d", dw10 & 0xFF, dw1);
            case Opcodes.ADMIN_SET_FEATURES -> String.format("Set Features fid %#x", dw10 & 0xFF);
            case Opcodes.ADMIN_GET_FEATURES -> String.format("Get Features fid %#x", dw10 & 0xFF);
            case Opcodes.ADMIN_KEEP_ALIVE -> "Keep Alive";
            case Opcodes.FABRICS -> switch (dw1 & 0xFF) {
                case Opcodes.FCTYPE_CONNECT -> String.format("Fabrics Connect qid %d sqsize %d", dw10 >>> 16,
                        (dw11 & 0xFFFF) + 1);
                case Opcodes.FCTYPE_PROPERTY_GET -> String.format("Property Get %#x", dw11);
                case Opcodes.FCTYPE_PROPERTY_SET -> String.format("Property Set %#x = %#x", dw11, dw12);
                default -> String.format("Fabrics command type %#x", dw1 & 0xFF);
            };
            default -> String.format("opcode %#04x nsid %d", opcode, dw1);
        };
    }

    @Override
    public String toString() {
        return describe();
    }
}
