package io.creel.common.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.creel.common.protocol.Frame;
import io.creel.common.protocol.IdentifiedRequest;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.ProtocolException;
import io.creel.common.protocol.RegisterReply;
import io.creel.common.protocol.RequestIdentity;
import io.creel.common.protocol.RemoveRequest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A request's identity on the wire: framed with its flag, read by the dispatch, absent from plain requests. */
class IdentifiedRequestTest {
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final AtomicReference<RpcCall> seen = new AtomicReference<>();
    private final RequestHandler handler = call -> {
        seen.set(call);
        RemoveRequest r = RemoveRequest.decode(call.body());
        call.reply(new RegisterReply(r.path().length(), 0));
    };

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
    }

    /** Dispatches {@code frame} as a server would (the bytes after the length field). */
    private void dispatch(ByteBuf frame) {
        try {
            frame.skipBytes(Frame.LENGTH_FIELD);
            RequestDispatch.dispatch("test", new ChannelPeer(channel), frame, handler);
        } finally {
            frame.release();
        }
    }

    @Test
    void anIdentifiedRequestReachesItsHandlerWithItsIdentityAndItsBodyIntact() {
        RequestIdentity id = RequestIdentity.newClient().withSequence(7);
        ByteBuf frame = Frames.request(ByteBufAllocator.DEFAULT, Opcode.REMOVE, 3,
                new IdentifiedRequest(id, new RemoveRequest("/a/b", true)));
        assertEquals(Frame.FLAG_IDENTIFIED | Frame.versionFlags(), frame.getByte(Frame.LENGTH_FIELD + 1));
        dispatch(frame);
        assertEquals(id, seen.get().identity());
        assertEquals(3, seen.get().requestId());
        ByteBuf reply = channel.readOutbound();
        try {
            reply.skipBytes(Frame.HEADER);
            assertEquals(Frame.STATUS_OK, reply.readUnsignedShort());
            assertEquals(4, RegisterReply.decode(reply).serverId());
        } finally {
            reply.release();
        }
    }

    @Test
    void aPlainRequestHasNoIdentity() {
        dispatch(Frames.request(ByteBufAllocator.DEFAULT, Opcode.REMOVE, 4, new RemoveRequest("/a", false)));
        assertNull(seen.get().identity());
        ((ByteBuf) channel.readOutbound()).release();
    }

    @Test
    void aFrameFlaggedIdentifiedButTooShortForAnIdentityIsMalformed() {
        ByteBuf frame = Frames.begin(ByteBufAllocator.DEFAULT, 16, Opcode.LOOKUP, Frame.FLAG_IDENTIFIED, 5);
        frame.writeLong(1).writeInt(2);
        Frames.finish(frame);
        assertThrows(ProtocolException.class, () -> dispatch(frame));
        assertNull(seen.get());
    }

    @Test
    void newClientsDrawDifferentIdsAndAnIdentityReadsBackAsWritten() {
        RequestIdentity a = RequestIdentity.newClient();
        RequestIdentity b = RequestIdentity.newClient();
        assertNotEquals(a.withSequence(1), b.withSequence(1));
        assertTrue(a.sameClient(a.withSequence(9)));
        assertFalse(a.sameClient(b));
        ByteBuf buf = ByteBufAllocator.DEFAULT.buffer(RequestIdentity.SIZE);
        try {
            a.withSequence(1).encode(buf);
            assertEquals(RequestIdentity.SIZE, buf.readableBytes());
            assertEquals(a.withSequence(1), RequestIdentity.decode(buf));
        } finally {
            buf.release();
        }
    }
}
