package io.creel.storage.nvmf.tcp;

import io.creel.storage.nvmf.tcp.pdu.CommonHeader;
import io.creel.storage.nvmf.tcp.pdu.PduDigest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.nio.ByteBuffer;

/**
 * What a queue pair sends: PDUs and their data written without a flush, and one flush per batch of
 * submissions rather than one per command (the flush task runs after the submissions already queued
 * on the event loop; the end of a read flushes too). Confined to the queue's event loop.
 */
final class PduOutput {
    private final EventLoop loop;
    private final PduDigest digest = new PduDigest();
    private final Runnable flushTask = this::flush;
    private Channel channel;
    private boolean dataDigest;
    private boolean flushScheduled;
    private boolean unflushed;

    PduOutput(EventLoop loop) {
        this.loop = loop;
    }

    /** The channel to write to, once there is one. */
    void attach(Channel c) {
        channel = c;
    }

    /** Whether data is followed by its digest (settled by the ICResp). */
    void dataDigest(boolean on) {
        dataDigest = on;
    }

    ByteBufAllocator alloc() {
        return channel.alloc();
    }

    /** Appends the header digest of the {@code length} header bytes at {@code start} of {@code pdu}. */
    void appendHeaderDigest(ByteBuf pdu, int start, int length) {
        digest.appendHeaderDigest(pdu, start, length);
    }

    /** Writes without flushing. */
    void write(ByteBuf b) {
        channel.write(b, channel.voidPromise());
        unflushed = true;
    }

    /** Writes {@code length} bytes at {@code offset} of {@code data}, then their digest if data digests are on. */
    void writeData(ByteBuffer[] data, long offset, int length) {
        if (dataDigest) {
            digest.reset();
        }
        TransferBuffers.slices(data, offset, length, slice -> {
            if (dataDigest) {
                digest.update(slice);
            }
            write(TransferBuffers.wrap(slice));
        });
        if (dataDigest) {
            ByteBuf d = channel.alloc().buffer(CommonHeader.DIGEST_LENGTH);
            d.writeIntLE(digest.value());
            write(d);
        }
    }

    /** Flushes once the submissions queued on the event loop so far have been written. */
    void scheduleFlush() {
        if (!flushScheduled) {
            flushScheduled = true;
            loop.execute(flushTask);
        }
    }

    /** Flushes what was written, if anything. */
    void flush() {
        flushScheduled = false;
        if (unflushed && channel != null) {
            unflushed = false;
            channel.flush();
        }
    }
}
