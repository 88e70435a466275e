package io.creel.common.rpc;

import io.creel.common.error.AnsweredException;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.Frame;
import io.creel.common.protocol.RequestType;
import io.creel.common.protocol.Wire;
import io.netty.buffer.ByteBuf;
import java.util.concurrent.CompletableFuture;

/** Completes a caller's future from a reply body (status, then the message or the error), for every {@link RpcConnection}. */
public final class ReplyBodies {
    private ReplyBodies() {
    }

    /**
     * Reads the status of {@code body} (the reply frame after its header) and completes
     * {@code future} with the decoded message, or the error the server sent (an
     * {@link AnsweredException}); a body that does not
     * decode fails it with PROTOCOL naming the server.
     */
    public static <T> void complete(ByteBuf body, ReplyDecoder<T> decoder, CompletableFuture<T> future, RequestType op,
                                    HostPort remote) {
        int status;
        try {
            status = body.readUnsignedShort();
        } catch (RuntimeException e) {
            future.completeExceptionally(new CreelException(ErrorCode.PROTOCOL, "bad " + op + " reply from " + remote
                    + ": " + e, e));
            return;
        }
        complete(status, body, decoder, future, op, remote);
    }

    /** As {@link #complete(ByteBuf, ReplyDecoder, CompletableFuture, RequestType, HostPort)}, with the status already read. */
    public static <T> void complete(int status, ByteBuf body, ReplyDecoder<T> decoder, CompletableFuture<T> future,
                                    RequestType op, HostPort remote) {
        try {
            if (status == Frame.STATUS_OK) {
                future.complete(decoder.decode(body));
            } else {
                String msg = Wire.readString(body, "error.message");
                future.completeExceptionally(new AnsweredException(ErrorCode.of(status), msg));
            }
        } catch (CreelException e) {
            future.completeExceptionally(e);
        } catch (RuntimeException e) {
            future.completeExceptionally(new CreelException(ErrorCode.PROTOCOL, "bad " + op + " reply from " + remote
                    + ": " + e, e));
        }
    }
}
