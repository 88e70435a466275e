package io.creel.common.rpc;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.Frame;
import io.creel.common.protocol.Message;
import io.creel.common.protocol.RequestType;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * One pipelined connection to a server of the frame protocol, whatever carries it (TCP:
 * {@link RpcClient}; other {@link RpcTransport}s by address scheme). Any number of requests may be in
 * flight, matched to replies by request id; every request has a timeout; a lost connection fails
 * its requests with UNAVAILABLE. Futures fail with a {@link io.creel.common.error.CreelException}.
 */
public interface RpcConnection extends AutoCloseable {
    /** The server's address. */
    HostPort remote();

    /** True until the connection is lost or closed. */
    boolean isOpen();

    /** Requests waiting for a reply. */
    int inFlight();

    /** Sends a request and decodes its reply, with the connection's request timeout. */
    <T> CompletableFuture<T> call(RequestType op, Message request, ReplyDecoder<T> decoder);

    /** Sends a request with a timeout of its own. */
    <T> CompletableFuture<T> call(RequestType op, Message request, ReplyDecoder<T> decoder, Duration timeout);

    /**
     * Sends a request whose frame is {@code header} followed by {@code payload}'s bytes. Takes
     * ownership of {@code payload}: it is released once sent (or on failure).
     */
    <T> CompletableFuture<T> callWithPayload(RequestType op, Message header, ByteBuf payload, ReplyDecoder<T> decoder);

    /**
     * Sends a request whose successful reply carries a payload of exactly {@code dst.remaining()}
     * bytes followed by its sender's verdict ({@link Frame#VERDICT}), and puts the payload into
     * {@code dst} from its position (which is not moved). This default copies the payload out of the
     * decoded reply; {@link RpcClient} places it as it arrives.
     *
     * <p>Buffer ownership: {@code dst} belongs to the call until the future completes.
     */
    default CompletableFuture<Void> callInto(RequestType op, Message request, ByteBuffer dst) {
        int expected = dst.remaining();
        return call(op, request, body -> {
            int payload = body.readableBytes() - Frame.VERDICT;
            if (payload != expected) {
                throw new CreelException(ErrorCode.PROTOCOL, op + " reply from " + remote() + " carried "
                        + payload + " payload bytes where " + expected + " were asked for");
            }
            body.readBytes(dst.duplicate());
            int verdict = body.readUnsignedShort();
            if (verdict != Frame.STATUS_OK) {
                ErrorCode code = ErrorCode.of(verdict);
                throw new CreelException(code, remote() + " withdrew the " + op
                        + " reply's bytes after sending them: they changed while they were sent (" + code + ")");
            }
            return null;
        });
    }

    /** Closes the connection; requests in flight fail. */
    @Override
    void close();
}
