package io.creel.storage.rdma.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** A frame as a DaRPC message: what it writes, what it takes from a received buffer, what it refuses. */
class FrameMessageTest {
    @Test
    void aFrameTravelsWholeAndComesBackAfterItsLengthField() {
        FrameMessage out = new FrameMessage(64);
        ByteBuf frame = Unpooled.buffer().writeInt(6).writeBytes(new byte[] {1, 2, 3, 4, 5, 6});
        out.set(frame);
        assertEquals(10, out.length());
        assertEquals(64, out.size(), "DaRPC sizes its buffers by the capacity");
        ByteBuffer wire = ByteBuffer.allocate(64);
        assertEquals(10, out.write(wire));
        wire.flip();

        FrameMessage in = new FrameMessage(64);
        in.update(wire);
        ByteBuf got = in.frameAfterLength();
        assertEquals(6, got.readableBytes());
        assertEquals(1, got.getByte(0));
        assertEquals(6, got.getByte(5));
    }

    @Test
    void aFrameLargerThanTheCapacityDoesNotFit() {
        FrameMessage m = new FrameMessage(16);
        assertTrue(m.fits(16));
        assertFalse(m.fits(17));
        assertThrows(IllegalArgumentException.class, () -> m.set(Unpooled.buffer().writeZero(17)));
    }

    @Test
    void aLengthFieldThatDoesNotMatchWhatArrivedIsMalformed() {
        FrameMessage m = new FrameMessage(64);
        m.update(ByteBuffer.allocate(64).putInt(0, 100)); // says more than the capacity
        assertNull(m.frameAfterLength());
        m.update(ByteBuffer.allocate(8).putInt(0, 20)); // says more than arrived
        assertNull(m.frameAfterLength());
        m.update(ByteBuffer.allocate(8).putInt(0, -1));
        assertNull(m.frameAfterLength());
        m.update(ByteBuffer.allocate(2));
        assertNull(m.frameAfterLength());
    }
}
