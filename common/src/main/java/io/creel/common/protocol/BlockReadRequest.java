package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * Read {@code length} bytes at {@code offset} within block {@code blockNumber}, which must carry
 * {@code tag}. The reply body is the bytes themselves.
 */
public record BlockReadRequest(long blockNumber, long tag, int offset, int length) implements Message {
    /** Encoded size. */
    public static final int SIZE = 8 + 8 + 4 + 4;

    @Override
    public void encode(ByteBuf out) {
        out.writeLong(blockNumber);
        out.writeLong(tag);
        out.writeInt(offset);
        out.writeInt(length);
    }

    public static BlockReadRequest decode(ByteBuf in) {
        BlockReadRequest r = new BlockReadRequest(Wire.readNonNegativeLong(in, "read.block"), Wire.readLong(in, "read.tag"),
                Wire.readInt(in, "read.offset", 0, Integer.MAX_VALUE),
                Wire.readInt(in, "read.length", 0, Integer.MAX_VALUE));
        Wire.expectEnd(in, "block read request");
        return r;
    }
}
