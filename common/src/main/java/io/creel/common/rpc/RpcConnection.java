package io.creel.common.rpc;

import io.creel.common.net.HostPort;
import io.creel.common.protocol.Message;
import io.creel.common.protocol.Opcode;
import io.netty.buffer.ByteBuf;
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
    <T> CompletableFuture<T> call(Opcode op, Message request, ReplyDecoder<T> decoder);

    /** Sends a request with a timeout of its own. */
    <T> CompletableFuture<T> call(Opcode op, Message request, ReplyDecoder<T> decoder, Duration timeout);

    /**
     * Sends a request whose frame is {@code header} followed by {@code payload}'s bytes. Takes
     * ownership of {@code payload}: it is released once sent (or on failure).
     */
    <T> CompletableFuture<T> callWithPayload(Opcode op, Message header, ByteBuf payload, ReplyDecoder<T> decoder);

    /** Closes the connection; requests in flight fail. */
    @Override
    void close();
}
