package io.creel.storage.nvmf.tcp.pdu;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * CRC32C header and data digests as NVMe/TCP defines them: the standard CRC32C (initial value and
 * final XOR all ones) of the covered bytes, stored little-endian. One instance per connection; not
 * thread-safe.
 */
public final class PduDigest {
    private final CRC32C crc = new CRC32C();

    /** Starts a new running digest. */
    public void reset() {
        crc.reset();
    }

    /** Adds {@code length} bytes of {@code b} from {@code index} to the running digest. */
    public void update(ByteBuf b, int index, int length) {
        if (length == 0) {
            return;
        }
        if (b.hasArray()) {
            crc.update(b.array(), b.arrayOffset() + index, length);
        } else if (b.nioBufferCount() == 1) {
            crc.update(b.internalNioBuffer(index, length));
        } else {
            for (ByteBuffer part : b.nioBuffers(index, length)) {
                crc.update(part);
            }
        }
    }

    /** Adds {@code b}'s remaining bytes to the running digest without moving its position. */
    public void update(ByteBuffer b) {
        crc.update(b.duplicate());
    }

    /** The running digest's value, as it goes on the wire (read it with {@code getIntLE}). */
    public int value() {
        return (int) crc.getValue();
    }

    /** The digest of {@code length} bytes of {@code b} from {@code index}. */
    public int of(ByteBuf b, int index, int length) {
        reset();
        update(b, index, length);
        return value();
    }

    /** Appends the header digest of the {@code hlen} header bytes that start at {@code start}. */
    public void appendHeaderDigest(ByteBuf out, int start, int hlen) {
        out.writeIntLE(of(out, start, hlen));
    }
}
