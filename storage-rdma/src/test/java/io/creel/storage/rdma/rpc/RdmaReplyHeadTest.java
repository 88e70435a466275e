package io.creel.storage.rdma.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.protocol.Frame;
import io.creel.common.protocol.LookupRequest;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.ProtocolException;
import io.creel.common.protocol.RegisterReply;
import io.creel.common.rpc.Frames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * What an rdma:// client takes from a reply's head before it hands the reply to its request: the
 * request id of a reply of this release, and a refusal of anything else, a reply of a newer wire
 * protocol version with the creel:// client's message (issue 27: the rdma:// client read such replies
 * as if they were its own).
 */
class RdmaReplyHeadTest {
    /** Every version bit set: whatever bits Frames adds for this release, the frame is of a newer one. */
    private static final int NEWER_VERSION_FLAGS = 0xF0;
    private static final int NEWER_VERSION = Frame.versionOf(NEWER_VERSION_FLAGS);

    /** The frame as the client's poller gets it: sent in one DaRPC message, received in another. */
    private static ByteBuf received(ByteBuf frame) {
        FrameMessage out = new FrameMessage(256);
        try {
            out.set(frame);
        } finally {
            frame.release();
        }
        ByteBuffer wire = ByteBuffer.allocate(256);
        out.write(wire);
        wire.flip();
        FrameMessage in = new FrameMessage(256);
        in.update(wire);
        return in.frameAfterLength();
    }

    private static ByteBuf reply(int flags, long id) {
        ByteBuf reply = Frames.begin(ByteBufAllocator.DEFAULT, 32, Opcode.LOOKUP, flags, id);
        reply.writeShort(Frame.STATUS_OK);
        new RegisterReply(1, 0).encode(reply);
        return Frames.finish(reply);
    }

    @Test
    void aReplyOfThisReleaseGivesItsRequestIdAndLeavesTheStatusToRead() {
        ByteBuf frame = received(reply(Frame.FLAG_RESPONSE, 42));
        try {
            assertEquals(42, RdmaRpcConnection.readReplyHead(frame));
            assertEquals(Frame.STATUS_OK, frame.readUnsignedShort(), "the head is read up to the status");
        } finally {
            frame.release();
        }
    }

    @Test
    void aReplyOfANewerWireVersionIsRefusedAsACreelClientRefusesIt() {
        ByteBuf frame = received(reply(Frame.FLAG_RESPONSE | NEWER_VERSION_FLAGS, 7));
        try {
            ProtocolException e = assertThrows(ProtocolException.class, () -> RdmaRpcConnection.readReplyHead(frame));
            assertTrue(e.getMessage().contains("replied in wire protocol version " + NEWER_VERSION)
                    && e.getMessage().contains("speaks version " + Frame.WIRE_VERSION)
                    && e.getMessage().contains("run one release across the cluster"), e.getMessage());
            ProtocolException tcp = assertThrows(ProtocolException.class,
                    () -> Frames.checkReplyVersion(Frame.FLAG_RESPONSE | NEWER_VERSION_FLAGS));
            assertEquals(tcp.getMessage(), e.getMessage(), "one message for creel:// and rdma://");
        } finally {
            frame.release();
        }
    }

    @Test
    void aRequestFrameOrAFrameTooShortForAReplyIsRefused() {
        ByteBuf request = received(Frames.request(ByteBufAllocator.DEFAULT, Opcode.LOOKUP, 3,
                new LookupRequest("/x", false)));
        try {
            ProtocolException e = assertThrows(ProtocolException.class, () -> RdmaRpcConnection.readReplyHead(request));
            assertTrue(e.getMessage().contains("the server sent a request frame"), e.getMessage());
        } finally {
            request.release();
        }
        ByteBuf shortFrame = received(ByteBufAllocator.DEFAULT.buffer().writeInt(3).writeZero(3));
        try {
            ProtocolException e = assertThrows(ProtocolException.class,
                    () -> RdmaRpcConnection.readReplyHead(shortFrame));
            assertTrue(e.getMessage().contains("reply frame of 3 bytes is too short"), e.getMessage());
        } finally {
            shortFrame.release();
        }
        ProtocolException none = assertThrows(ProtocolException.class, () -> RdmaRpcConnection.readReplyHead(null));
        assertTrue(none.getMessage().contains("does not fit its message"), none.getMessage());
    }
}
