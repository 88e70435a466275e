package io.creel.common.rpc;

import io.creel.common.error.CreelException;
import io.creel.common.protocol.Frame;
import io.netty.channel.FileRegion;
import io.netty.util.AbstractReferenceCounted;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

/**
 * A whole payload reply frame written from where its bytes are: the frame's head, then the payload
 * straight from the sender's memory (a server's mapped region) with no copy into a buffer of ours,
 * then the verdict, computed by a {@link PayloadCheck} right after the last payload byte has been
 * written to the socket. A write copies the bytes into the kernel, so the check sees the state of the
 * memory after the copy — the guarantee a copy into a buffer followed by a check gave.
 *
 * <p>One frame is one message in the channel, so no other frame can come between its parts. The
 * memory must stay mapped until the channel has written or dropped the message, which
 * {@link PayloadCheck#released} tells its owner.
 */
final class PayloadRegion extends AbstractReferenceCounted implements FileRegion {
    private final ByteBuffer head;
    private final ByteBuffer payload;
    private final PayloadCheck check;
    private final long count;
    private ByteBuffer verdict;
    private long transferred;

    /**
     * @param head    the frame up to and including the OK status (position 0, limit its length)
     * @param payload the payload's bytes (from its position to its limit)
     */
    PayloadRegion(ByteBuffer head, ByteBuffer payload, PayloadCheck check) {
        this.head = head;
        this.payload = payload;
        this.check = check;
        this.count = (long) head.remaining() + payload.remaining() + Frame.VERDICT;
    }

    @Override
    public long position() {
        return 0;
    }

    @Override
    public long count() {
        return count;
    }

    @Override
    public long transferred() {
        return transferred;
    }

    @Override
    @Deprecated
    public long transfered() {
        return transferred;
    }

    @Override
    public long transferTo(WritableByteChannel target, long position) throws IOException {
        long written = 0;
        while (transferred < count) {
            ByteBuffer next = head.hasRemaining() ? head : payload.hasRemaining() ? payload : verdict();
            int n = target.write(next);
            if (n <= 0) {
                break; // the socket is full; the channel calls again when it drains
            }
            transferred += n;
            written += n;
        }
        return written;
    }

    /** The verdict, decided the first time it is needed: when the whole payload has been written. */
    private ByteBuffer verdict() {
        if (verdict == null) {
            CreelException e = check.afterSending();
            verdict = ByteBuffer.allocate(Frame.VERDICT).putShort(0, (short) (e == null ? 0 : e.code().code()));
        }
        return verdict;
    }

    @Override
    protected void deallocate() {
        // The payload's memory belongs to its owner, who may release it from now on.
        check.released();
    }

    @Override
    public PayloadRegion retain() {
        super.retain();
        return this;
    }

    @Override
    public PayloadRegion retain(int increment) {
        super.retain(increment);
        return this;
    }

    @Override
    public PayloadRegion touch() {
        return this;
    }

    @Override
    public PayloadRegion touch(Object hint) {
        return this;
    }
}
