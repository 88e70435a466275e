package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * Header of a block write: the payload (all bytes after it in the frame) goes to {@code offset}
 * within block {@code blockNumber}, which is claimed for {@code tag}. The payload is not part of
 * this record so it can be handed to the medium without a copy.
 */
public record BlockWriteHeader(long blockNumber, long tag, int offset) implements Message {
    /** Encoded size. */
    public static final int SIZE = 8 + 8 + 4;

    @Override
    public void encode(ByteBuf out) {
        out.writeLong(blockNumber);
        out.writeLong(tag);
        out.writeInt(offset);
    }

    /** Reads the header; the payload is what remains readable in {@code in}. */
    public static BlockWriteHeader decode(ByteBuf in) {
        return new BlockWriteHeader(Wire.readNonNegativeLong(in, "write.block"), Wire.readLong(in, "write.tag"),
                Wire.readInt(in, "write.offset", 0, Integer.MAX_VALUE));
    }
}
