package io.creel.storage.tcp.server;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.BlockReadRequest;
import io.creel.common.protocol.BlockWriteHeader;
import io.creel.common.protocol.Empty;
import io.creel.common.protocol.Opcode;
import io.creel.common.rpc.PayloadCheck;
import io.creel.common.rpc.RequestHandler;
import io.creel.common.rpc.RpcCall;
import io.creel.storage.format.BlockTags;
import io.creel.storage.spi.BlockMedium;
import io.creel.storage.spi.Volume;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Serves the data plane of one storage server: BLOCK_READ and BLOCK_WRITE against a
 * {@link BlockMedium}, guarded by the block tags.
 *
 * <p>Reads check the tag before and after copying, so bytes of a block that was freed and reused
 * meanwhile are never returned; writes claim the tag first, so a writer holding an older allocation
 * is refused. Both fail with {@link ErrorCode#STALE_BLOCK}. A medium that is memory
 * ({@link BlockMedium#memory}) is read without a copy: its bytes go from the mapping to the socket, and
 * the second check runs once they have been copied into the kernel; if it fails, the reply's verdict
 * withdraws them and the reader fails with STALE_BLOCK as before.
 *
 * <p>Disk I/O runs right here on the event loop as synchronous pread/pwrite. That blocks the loop for
 * the duration of one block-sized transfer, which on an SSD is about as long as handing the request
 * to another thread and back would cost, and keeps the path free of queues and context switches;
 * moving it to an I/O pool (or io_uring) is a later optimisation, not a correctness matter.
 */
public final class BlockRequestHandler implements RequestHandler {
    private final String name;
    private final Volume volume;
    private final BlockMedium medium;
    private final BlockTags tags;

    /**
     * @param name   the server, for error messages
     * @param volume where the bytes and their tags are; a reply sent from its memory holds a use of it
     *               ({@link Volume#enterUse}) until released, so its close never unmaps under a send
     */
    public BlockRequestHandler(String name, Volume volume) {
        this.name = name;
        this.volume = volume;
        this.medium = volume.medium();
        this.tags = volume.tags();
    }

    @Override
    public void handle(RpcCall call) {
        if (call.opcode() == Opcode.BLOCK_READ) {
            read(call);
        } else if (call.opcode() == Opcode.BLOCK_WRITE) {
            write(call);
        } else {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, name + " serves BLOCK_READ and BLOCK_WRITE, not "
                    + call.opcode());
        }
    }

    private void read(RpcCall call) {
        BlockReadRequest req = BlockReadRequest.decode(call.body());
        checkRange(req.blockNumber(), req.offset(), req.length());
        tags.checkOrThrow(req.blockNumber(), req.tag(), name + " read");
        ByteBuffer memory = medium.memory(req.blockNumber(), req.offset(), req.length());
        if (memory != null && volume.enterUse()) {
            // Sent straight from the medium's memory; the tag is checked again once the last byte has
            // been copied into the socket, and a block reused meanwhile withdraws the reply's bytes.
            // The reply outlives this call: it holds a use of the volume of its own until it is released.
            call.replyPayload(memory, new PayloadCheck() {
                @Override
                public CreelException afterSending() {
                    return staleAfterSending(req);
                }

                @Override
                public void released() {
                    volume.exitUse();
                }
            });
            return;
        }
        ByteBuf buf = call.peer().alloc().directBuffer(req.length());
        try {
            ByteBuffer dst = buf.nioBuffer(0, req.length());
            medium.read(req.blockNumber(), req.offset(), dst);
            buf.writerIndex(req.length());
            // The block may have been reused while we copied: then the bytes are not the reader's.
            tags.checkOrThrow(req.blockNumber(), req.tag(), name + " read");
        } catch (IOException e) {
            buf.release();
            throw ioError("read", req.blockNumber(), e);
        } catch (RuntimeException e) {
            buf.release();
            throw e;
        }
        call.replyPayload(buf);
    }

    /** {@code null} if the block still carries the read's tag, else the STALE_BLOCK the reader fails with. */
    private CreelException staleAfterSending(BlockReadRequest req) {
        try {
            tags.checkOrThrow(req.blockNumber(), req.tag(), name + " read");
            return null;
        } catch (CreelException e) {
            return e;
        }
    }

    private void write(RpcCall call) {
        ByteBuf body = call.body();
        BlockWriteHeader h = BlockWriteHeader.decode(body);
        int length = body.readableBytes();
        checkRange(h.blockNumber(), h.offset(), length);
        tags.claimOrThrow(h.blockNumber(), h.tag(), name + " write");
        try {
            int offset = h.offset();
            for (ByteBuffer part : body.nioBuffers()) {
                int n = part.remaining();
                medium.write(h.blockNumber(), offset, part);
                offset += n;
            }
        } catch (IOException e) {
            throw ioError("write", h.blockNumber(), e);
        }
        call.reply(Empty.INSTANCE);
    }

    private void checkRange(long block, int offset, int length) {
        if (block >= medium.blockCount()) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, name + ": block " + block + " does not exist (the "
                    + "server has blocks 0.." + (medium.blockCount() - 1) + ")");
        }
        if ((long) offset + length > medium.blockSize()) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, name + ": range " + offset + "+" + length
                    + " of block " + block + " exceeds the block size " + medium.blockSize());
        }
    }

    private CreelException ioError(String what, long block, IOException e) {
        return new CreelException(ErrorCode.INTERNAL, name + ": " + what + " of block " + block + " failed: " + e, e);
    }
}
