package io.creel.storage.nvmf.nvme;

import io.netty.buffer.ByteBuf;

/**
 * Flyweight over a 16-byte NVMe completion queue entry (response capsule CQE) in a {@link ByteBuf},
 * little-endian as on the wire.
 */
public final class CompletionEntry {
    /** Size of a completion queue entry in bytes. */
    public static final int SIZE = 16;

    private static final int DW0 = 0;
    private static final int DW1 = 4;
    private static final int SQHD = 8;
    private static final int SQID = 10;
    private static final int CID = 12;
    private static final int STATUS = 14;

    private ByteBuf buf;
    private int base;

    /** Points this flyweight at the entry starting at {@code offset} of {@code buf}. */
    public CompletionEntry wrap(ByteBuf buf, int offset) {
        this.buf = buf;
        this.base = offset;
        return this;
    }

    /** Command-specific result, DW0 in the low and DW1 in the high 32 bits. */
    public long result() {
        return buf.getLongLE(base + DW0);
    }

    public int dw0() {
        return buf.getIntLE(base + DW0);
    }

    public int sqHead() {
        return buf.getUnsignedShortLE(base + SQHD);
    }

    public int sqId() {
        return buf.getUnsignedShortLE(base + SQID);
    }

    public int cid() {
        return buf.getUnsignedShortLE(base + CID);
    }

    /** The status half-word: Phase Tag in bit 0, the Status Field in bits 15:1. */
    public int statusHalfword() {
        return buf.getUnsignedShortLE(base + STATUS);
    }

    /** Byte offset of the CID field within the entry (for error reports). */
    public static int cidOffset() {
        return CID;
    }

    /** Writes a whole entry (for a controller, e.g. a test target). */
    public CompletionEntry set(long result, int sqHead, int sqId, int cid, int statusHalfword) {
        buf.setLongLE(base + DW0, result);
        buf.setShortLE(base + SQHD, sqHead);
        buf.setShortLE(base + SQID, sqId);
        buf.setShortLE(base + CID, cid);
        buf.setShortLE(base + STATUS, statusHalfword);
        return this;
    }
}
