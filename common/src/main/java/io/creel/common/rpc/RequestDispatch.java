package io.creel.common.rpc;

import io.creel.common.BuildInfo;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.Frame;
import io.creel.common.protocol.OpcodeRegistry;
import io.creel.common.protocol.ProtocolException;
import io.creel.common.protocol.RequestIdentity;
import io.creel.common.protocol.RequestType;
import io.netty.buffer.ByteBuf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands one request frame to a {@link RequestHandler}, the same way for every {@link RpcTransport}:
 * checks the header, answers a handler's {@link CreelException} (or any other failure, as INTERNAL)
 * with an error reply, and leaves a malformed frame to the caller, which closes that connection.
 * Replies go out through the {@link RpcPeer} the frame came from.
 */
public final class RequestDispatch {
    private static final Logger LOG = LoggerFactory.getLogger(RequestDispatch.class);

    private RequestDispatch() {
    }

    /**
     * Dispatches {@code frame} (the bytes after the length field; not released here).
     *
     * @param name    the server, for log lines ("namenode")
     * @param peer    the client the frame came from; replies are sent to it
     * @throws ProtocolException when the frame is malformed: the caller closes the connection
     */
    public static void dispatch(String name, RpcPeer peer, ByteBuf frame, RequestHandler handler) {
        dispatch(name, peer, frame, handler, RpcProbes.forServer(name), null);
    }

    /**
     * Dispatches {@code frame} as {@link #dispatch(String, RpcPeer, ByteBuf, RequestHandler)} does,
     * reporting its answer to {@code probe} (the connection's); {@code answered} (may be
     * {@code null}) runs once the request's reply has been written or given to the peer, from
     * whatever thread replied.
     */
    public static void dispatch(String name, RpcPeer peer, ByteBuf frame, RequestHandler handler, RpcProbe probe,
                                Runnable answered) {
        if (frame.readableBytes() < Frame.HEADER_AFTER_LENGTH) {
            throw new ProtocolException("frame of " + frame.readableBytes() + " bytes is shorter than a header");
        }
        int code = frame.readUnsignedByte();
        int flags = frame.readUnsignedByte();
        long requestId = frame.readLong();
        RequestType op = OpcodeRegistry.installed().ofCode(code);
        if (op == null) {
            throw new ProtocolException("unknown opcode " + code + " (no core opcode, and no tier on this server's "
                    + "class path declares it)");
        }
        if ((flags & Frame.FLAG_RESPONSE) != 0) {
            throw new ProtocolException("a response frame was sent to a server");
        }
        RequestIdentity identity = null;
        if ((flags & Frame.FLAG_IDENTIFIED) != 0) {
            if (frame.readableBytes() < RequestIdentity.SIZE) {
                throw new ProtocolException(op + " request " + requestId + " is flagged as identified but has "
                        + frame.readableBytes() + " bytes, fewer than an identity's " + RequestIdentity.SIZE);
            }
            identity = RequestIdentity.decode(frame);
        }
        RpcCall call = new RpcCall(peer, op, requestId, identity, frame, probe, answered);
        int version = Frame.versionOf(flags);
        if (version > Frame.WIRE_VERSION) {
            // Answered in this release's framing, which the newer peer still reads: it learns why.
            call.fail(new CreelException(ErrorCode.PROTOCOL, name + " (Creel " + BuildInfo.current().version()
                    + ") speaks wire protocol version " + Frame.WIRE_VERSION + " and got a " + op
                    + " request of version " + version + ": the client is of a newer release; run one release "
                    + "across the cluster"));
            return;
        }
        try {
            handler.handle(call);
        } catch (ProtocolException e) {
            throw e;
        } catch (CreelException e) {
            call.fail(e);
        } catch (RuntimeException e) {
            LOG.error("{}: {} request failed", name, op, e);
            call.fail(new CreelException(ErrorCode.INTERNAL, name + ": " + op + " failed: " + e));
        }
    }
}
