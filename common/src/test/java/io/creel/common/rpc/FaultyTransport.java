package io.creel.common.rpc;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.Message;
import io.creel.common.protocol.RequestType;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An RPC transport for tests that cuts connections on purpose (scheme {@code faulty}): TCP
 * underneath, and when a {@link Fault} is armed, the next request of its opcode loses its
 * connection at the armed point of its exchange. Shipped in common's test-jar; a module whose tests
 * register it ({@code META-INF/services/io.creel.common.rpc.RpcTransport} in their test resources)
 * can point a client at {@code faulty://host:port}. Production jars carry none of it.
 */
public final class FaultyTransport implements RpcTransport {
    /** Where in a request's exchange the connection is cut. */
    public enum Cut {
        /** Before the request leaves: the server never sees it. */
        BEFORE_SEND,
        /** Right after the request is written: the server gets it, its reply finds the connection gone. */
        AFTER_SEND,
        /** After the server's reply arrived, before the caller gets it: the caller never hears the answer. */
        AFTER_REPLY
    }

    /**
     * One armed cut: the next request of {@code op}, at {@code cut}; {@code then} runs once the
     * connection is gone and before the caller hears of it (e.g. restarts the server), on a thread
     * of its own.
     */
    public record Fault(RequestType op, Cut cut, Runnable then) {
    }

    private static final AtomicReference<Fault> ARMED = new AtomicReference<>();
    private static final AtomicInteger CUTS = new AtomicInteger();

    /** Arms {@code fault} for the next matching request (replacing one not yet used). */
    public static void arm(Fault fault) {
        ARMED.set(fault);
    }

    /** Arms a cut with nothing to run after it. */
    public static void arm(RequestType op, Cut cut) {
        arm(new Fault(op, cut, () -> { }));
    }

    /** Removes an armed cut that was not used; returns whether there was one. */
    public static boolean disarm() {
        return ARMED.getAndSet(null) != null;
    }

    /** Connections cut so far. */
    public static int cuts() {
        return CUTS.get();
    }

    @Override
    public String scheme() {
        return "faulty";
    }

    @Override
    public CompletableFuture<RpcConnection> connect(HostPort remote, Context context) {
        return RpcTransports.forScheme(HostPort.SCHEME).connect(remote.withScheme(HostPort.SCHEME), context)
                .thenApply(c -> new Faulty(remote, c));
    }

    @Override
    public RpcListener listen(String name, String bindHost, int port, RequestHandler handler, Context context) {
        return RpcTransports.forScheme(HostPort.SCHEME).listen(name, bindHost, port, handler, context);
    }

    /** A TCP connection that takes the armed cut. */
    private static final class Faulty implements RpcConnection {
        private final HostPort remote;
        private final RpcConnection tcp;
        private volatile boolean cut;

        Faulty(HostPort remote, RpcConnection tcp) {
            this.remote = remote;
            this.tcp = tcp;
        }

        @Override
        public HostPort remote() {
            return remote;
        }

        @Override
        public boolean isOpen() {
            return !cut && tcp.isOpen();
        }

        @Override
        public int inFlight() {
            return tcp.inFlight();
        }

        @Override
        public <T> CompletableFuture<T> call(RequestType op, Message request, ReplyDecoder<T> decoder) {
            Fault f = ARMED.get();
            if (f == null || f.op() != op || !ARMED.compareAndSet(f, null)) {
                return tcp.call(op, request, decoder);
            }
            CompletableFuture<T> caller = new CompletableFuture<>();
            switch (f.cut()) {
                case BEFORE_SEND -> cutThenFail(f, caller, "before the " + op + " request was sent");
                case AFTER_SEND -> {
                    CompletableFuture<T> sent = tcp.call(op, request, decoder);
                    // The close is queued behind the write on the connection's event loop: the frame leaves first.
                    cutThenFail(f, caller, "after the " + op + " request was sent");
                    sent.whenComplete((v, e) -> { }); // its reply (if any) finds the connection gone
                }
                case AFTER_REPLY -> tcp.call(op, request, decoder).whenComplete((v, e) ->
                        cutThenFail(f, caller, "after the " + op + " reply arrived (" + (e == null ? "success"
                                : CreelException.unwrap(e).code()) + "), before the caller read it"));
                default -> throw new IllegalStateException("unknown cut " + f.cut());
            }
            return caller;
        }

        /** Cuts the connection and runs the fault's follow-up on a thread of its own, then fails {@code caller}. */
        private void cutThenFail(Fault f, CompletableFuture<?> caller, String when) {
            cut = true;
            CUTS.incrementAndGet();
            // Closing waits for the event loop; this may run on it.
            Thread t = new Thread(() -> {
                try {
                    tcp.close();
                    f.then().run();
                } finally {
                    caller.completeExceptionally(new CreelException(ErrorCode.UNAVAILABLE, "connection to " + remote
                            + " cut " + when + " (injected)"));
                }
            }, "faulty-cut");
            t.setDaemon(true);
            t.start();
        }

        @Override
        public <T> CompletableFuture<T> call(RequestType op, Message request, ReplyDecoder<T> decoder, Duration timeout) {
            return tcp.call(op, request, decoder, timeout);
        }

        @Override
        public <T> CompletableFuture<T> callWithPayload(RequestType op, Message header, ByteBuf payload,
                                                        ReplyDecoder<T> decoder) {
            return tcp.callWithPayload(op, header, payload, decoder);
        }

        @Override
        public CompletableFuture<Void> callInto(RequestType op, Message request, ByteBuffer dst) {
            return tcp.callInto(op, request, dst);
        }

        @Override
        public void close() {
            tcp.close();
        }
    }
}
