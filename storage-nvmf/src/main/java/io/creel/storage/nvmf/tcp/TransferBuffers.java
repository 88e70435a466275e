package io.creel.storage.nvmf.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * Byte-offset access to a command's data: a list of caller buffers, each used from its position to
 * its limit, seen as one transfer. Never moves the buffers' positions.
 */
final class TransferBuffers {
    private TransferBuffers() {
    }

    /** Copies the readable bytes of {@code src} into the transfer at {@code offset}. */
    static void copyIn(ByteBuffer[] data, long offset, ByteBuf src) {
        int srcIndex = src.readerIndex();
        int left = src.readableBytes();
        long skip = offset;
        for (ByteBuffer b : data) {
            int len = b.remaining();
            if (skip >= len) {
                skip -= len;
                continue;
            }
            int n = (int) Math.min(len - skip, left);
            src.getBytes(srcIndex, b.slice(b.position() + (int) skip, n));
            srcIndex += n;
            left -= n;
            skip = 0;
            if (left == 0) {
                return;
            }
        }
        if (left > 0) {
            throw new IndexOutOfBoundsException("copy of " + src.readableBytes() + " bytes at " + offset
                    + " runs past the transfer");
        }
    }

    /**
     * Hands {@code length} bytes of the transfer from {@code offset} to {@code sink}, as slices of the
     * caller's buffers (no copy), in order.
     */
    static void slices(ByteBuffer[] data, long offset, int length, Consumer<ByteBuffer> sink) {
        long skip = offset;
        int left = length;
        for (ByteBuffer b : data) {
            int len = b.remaining();
            if (skip >= len) {
                skip -= len;
                continue;
            }
            int n = (int) Math.min(len - skip, left);
            sink.accept(b.slice(b.position() + (int) skip, n));
            left -= n;
            skip = 0;
            if (left == 0) {
                return;
            }
        }
        if (left > 0) {
            throw new IndexOutOfBoundsException(length + " bytes at " + offset + " run past the transfer");
        }
    }

    /** A ByteBuf view of the slice, for writing to a channel without copying. */
    static ByteBuf wrap(ByteBuffer slice) {
        return Unpooled.wrappedBuffer(slice);
    }
}
