package io.creel.common.rpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;

/**
 * The buffers a client connection's socket reads go into: while a reply's payload is being placed
 * into a direct destination, the destination's own memory ({@link ReplyReader#lend}), so the kernel
 * copies the bytes to where the caller wants them and nothing copies them again; otherwise pooled
 * buffers of adaptive size ({@link Frames#receiveSizes}).
 */
final class ReceiveInPlace implements RecvByteBufAllocator {
    private final RecvByteBufAllocator sizes = Frames.receiveSizes();
    private final ReplyReader reader;

    ReceiveInPlace(ReplyReader reader) {
        this.reader = reader;
    }

    @Override
    public Handle newHandle() {
        return new Lending((ExtendedHandle) sizes.newHandle());
    }

    /** Netty's adaptive handle, except that it lends the destination when there is one. */
    private final class Lending extends DelegatingHandle implements ExtendedHandle {
        Lending(ExtendedHandle sizes) {
            super(sizes);
        }

        @Override
        public ByteBuf allocate(ByteBufAllocator alloc) {
            ByteBuf lent = reader.lend();
            return lent != null ? lent : super.allocate(alloc);
        }

        @Override
        public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
            return ((ExtendedHandle) delegate()).continueReading(maybeMoreDataSupplier);
        }
    }
}
