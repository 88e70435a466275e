package io.creel.storage.nvmf.nvme;

import io.netty.buffer.ByteBuf;

/**
 * Flyweight over a 64-byte NVMe submission queue entry (command capsule SQE) in a {@link ByteBuf},
 * little-endian as on the wire. {@link #wrap} points it at an entry; setters return {@code this}.
 */
public final class SubmissionEntry {
    /** Size of a submission queue entry in bytes. */
    public static final int SIZE = 64;

    /** SGL descriptor identifier: Data Block, sub type Offset (data in the command capsule). */
    public static final int SGL_IN_CAPSULE = 0x01;
    /** SGL descriptor identifier: Transport SGL Data Block, transport specific (NVMe/TCP data PDUs). */
    public static final int SGL_TRANSPORT_DATA_BLOCK = 0x5A;
    /** Flags byte with PSDT = 01b: the data pointer is an SGL, as NVMe-oF requires. */
    public static final int FLAGS_SGL = 0x40;

    private static final int OPCODE = 0;
    private static final int FLAGS = 1;
    private static final int CID = 2;
    private static final int NSID = 4;
    private static final int SGL_ADDRESS = 24;
    private static final int SGL_LENGTH = 32;
    private static final int SGL_IDENTIFIER = 39;

    private ByteBuf buf;
    private int base;

    /** Points this flyweight at the entry starting at {@code offset} of {@code buf}. */
    public SubmissionEntry wrap(ByteBuf buf, int offset) {
        this.buf = buf;
        this.base = offset;
        return this;
    }

    public SubmissionEntry opcode(int opcode) {
        buf.setByte(base + OPCODE, opcode);
        return this;
    }

    public int opcode() {
        return buf.getUnsignedByte(base + OPCODE);
    }

    public SubmissionEntry flags(int flags) {
        buf.setByte(base + FLAGS, flags);
        return this;
    }

    public int flags() {
        return buf.getUnsignedByte(base + FLAGS);
    }

    public SubmissionEntry cid(int cid) {
        buf.setShortLE(base + CID, cid);
        return this;
    }

    public int cid() {
        return buf.getUnsignedShortLE(base + CID);
    }

    /** DW1: namespace ID, or FCTYPE in its low byte for a Fabrics command. */
    public SubmissionEntry nsid(int nsid) {
        buf.setIntLE(base + NSID, nsid);
        return this;
    }

    public int nsid() {
        return buf.getIntLE(base + NSID);
    }

    /** Fabrics command type (byte 4). */
    public int fctype() {
        return buf.getUnsignedByte(base + NSID);
    }

    /** Sets command dword {@code n} (2..5 or 10..15); 6..9 are the data pointer, see {@link #sgl}. */
    public SubmissionEntry cdw(int n, int value) {
        checkDword(n);
        buf.setIntLE(base + 4 * n, value);
        return this;
    }

    public int cdw(int n) {
        checkDword(n);
        return buf.getIntLE(base + 4 * n);
    }

    /** Writes the single SGL descriptor of the data pointer (DW6-9). */
    public SubmissionEntry sgl(long address, int length, int identifier) {
        buf.setLongLE(base + SGL_ADDRESS, address);
        buf.setIntLE(base + SGL_LENGTH, length);
        buf.setMedium(base + SGL_LENGTH + 4, 0);
        buf.setByte(base + SGL_IDENTIFIER, identifier);
        return this;
    }

    public long sglAddress() {
        return buf.getLongLE(base + SGL_ADDRESS);
    }

    /** SGL length as an unsigned 32-bit value. */
    public long sglLength() {
        return buf.getUnsignedIntLE(base + SGL_LENGTH);
    }

    public int sglIdentifier() {
        return buf.getUnsignedByte(base + SGL_IDENTIFIER);
    }

    private static void checkDword(int n) {
        if (n < 2 || (n > 5 && n < 10) || n > 15) {
            throw new IllegalArgumentException("command dword " + n + " is not a free command field");
        }
    }
}
