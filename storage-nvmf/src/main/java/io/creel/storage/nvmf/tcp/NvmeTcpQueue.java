package io.creel.storage.nvmf.tcp;

import io.creel.common.inflight.InFlightSlots;
import io.creel.storage.nvmf.NvmfException;
import io.creel.storage.nvmf.nvme.DataDirection;
import io.creel.storage.nvmf.nvme.NvmeCommand;
import io.creel.storage.nvmf.nvme.SubmissionEntry;
import io.creel.storage.nvmf.tcp.pdu.CapsuleCommandPdu;
import io.creel.storage.nvmf.tcp.pdu.FatalErrorStatus;
import io.creel.storage.nvmf.tcp.pdu.PduException;
import io.creel.storage.nvmf.tcp.pdu.PduType;
import io.creel.storage.nvmf.tcp.pdu.TermReqPdu;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.DuplexChannel;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One NVMe/TCP queue pair: a TCP connection carrying one submission/completion queue pair of a
 * controller. Does connection setup (ICReq/ICResp), sends command capsules with in-capsule data or
 * answers R2Ts with H2CData, takes C2HData into the caller's buffers, matches response capsules to
 * commands by CID, and fails every command that gets no answer within the command timeout.
 *
 * <p>All state is confined to the queue's event loop; {@link #call} and {@link #run} may be used from
 * any thread. Futures complete on the event loop, so their callbacks must not block. A command
 * timeout, a malformed or unexpected PDU, or the loss of the connection closes the queue and fails
 * every command on it with an error naming the cause: after a timeout the controller may still
 * answer that CID, so the CID, and with it the queue, cannot be used again. Commands beyond the
 * queue depth wait in order for a free CID; their timeout starts when they are sent.
 *
 * <p>The parts live apart, each confined to the event loop. The channel's pipeline, one concern
 * per handler: {@link IcExchangeHandler} ("ic-exchange": sends the ICReq, reads the ICResp, removes
 * itself), {@link CompletionDispatch} ("completions": reads every later PDU, completes commands,
 * answers R2Ts, takes C2HData in; it releases every buffer it gets), then this handler ("queue":
 * the flush at the end of a read, the loss of the connection). {@link IcNegotiation} checks the
 * ICResp, common's {@link InFlightSlots} holds the commands in flight by CID (one {@link CommandSlot}
 * per CID, made once), {@link CommandTimeouts} sweeps
 * for an overdue ICResp or command, and {@link PduOutput} writes PDUs and batches their flushes.
 * This class sends commands, queues the ones waiting for a CID, and closes the queue.
 */
final class NvmeTcpQueue extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(NvmeTcpQueue.class);

    private enum State { CONNECTING, INITIALIZING, READY, CLOSED }

    /** How long a queue closed for a protocol error waits for the target to read its H2CTermReq and close. */
    private static final long TERM_REQ_LINGER_MILLIS = 1000;

    private record Waiting(NvmeCommand command, CompletableFuture<Object> future, boolean wantsResult) {
    }

    private final int qid;
    private final NvmeTcpEndpoint endpoint;
    private final NvmeTcpOptions options;
    private final String name;
    private final EventLoop loop;
    private final InFlightSlots<CommandSlot> cids;
    /** The slot of each CID, made once: what {@link #cids} is given for every command. */
    private final IntFunction<CommandSlot> slotOfCid;
    private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
    private final PduOutput out;
    private final CompletionDispatch dispatch;
    private final CommandTimeouts timeouts;
    private final SubmissionEntry sqe = new SubmissionEntry();
    private final long timeoutNanos;
    private final int capsuleDataLimit;
    private final CompletableFuture<NvmeTcpQueue> ready = new CompletableFuture<>();
    private final CompletableFuture<NvmfException> closed = new CompletableFuture<>();

    private volatile State state = State.CONNECTING;
    private Channel channel;
    private boolean headerDigest;
    private boolean dataDigest;
    private int cpda;
    private NvmfException closeCause;

    private NvmeTcpQueue(NvmeTcpEndpoint endpoint, int qid, int depth, int capsuleDataLimit, NvmeTcpOptions options,
            EventLoop loop, long maxReadBytes) {
        this.qid = qid;
        this.endpoint = endpoint;
        this.options = options;
        this.loop = loop;
        this.capsuleDataLimit = capsuleDataLimit;
        this.name = (qid == 0 ? "admin queue" : "I/O queue " + qid) + " of " + endpoint;
        this.cids = new InFlightSlots<>(depth);
        this.slotOfCid = CommandSlot.madeOncePerCid(depth);
        this.out = new PduOutput(loop);
        this.timeoutNanos = options.commandTimeout().toNanos();
        this.dispatch = new CompletionDispatch(name, cids, out, maxReadBytes, new DispatchEvents());
        this.timeouts = new CommandTimeouts(loop, options, cids, new Expiry());
    }

    /**
     * Connects a queue pair and exchanges ICReq/ICResp; the future completes when commands (starting
     * with the Fabrics Connect) can be sent, or fails with a {@link NvmfException}.
     *
     * @param depth most commands outstanding at once (CIDs 0..depth-1)
     * @param capsuleDataLimit most data the controller accepts inside a command capsule on this queue; data that
     *     fits always goes in the capsule (Linux nvmet never sends an R2T for a write it expects in-capsule)
     * @param maxReadBytes most data one C2HData PDU may carry
     */
    static CompletableFuture<NvmeTcpQueue> open(NvmeTcpEndpoint endpoint, int qid, int depth, int capsuleDataLimit,
            long maxReadBytes, NvmeTcpOptions options, NvmeTcpEventLoops loops) {
        EventLoop loop = loops.group().next();
        NvmeTcpQueue q = new NvmeTcpQueue(endpoint, qid, depth, capsuleDataLimit, options, loop, maxReadBytes);
        Bootstrap b = new Bootstrap().group(loop).channel(loops.channelType())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) options.connectTimeout().toMillis())
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline()
                                .addLast("ic-exchange", new IcExchangeHandler(options, maxReadBytes, q.new Setup()))
                                .addLast("completions", q.dispatch)
                                .addLast("queue", q);
                    }
                });
        try {
            b.connect(endpoint.host(), endpoint.port()).addListener((ChannelFutureListener) f -> {
                if (!f.isSuccess()) {
                    q.connectFailed(f.cause());
                }
            });
        } catch (RuntimeException e) {
            q.ready.completeExceptionally(new NvmfException(NvmfException.Kind.CONNECTION,
                    "cannot connect " + q.name + ": " + e.getMessage(), e));
        }
        return q.ready;
    }

    int qid() {
        return qid;
    }

    EventLoop eventLoop() {
        return loop;
    }

    /** Whether commands can still be sent. */
    boolean isOpen() {
        return state == State.READY;
    }

    boolean headerDigest() {
        return headerDigest;
    }

    boolean dataDigest() {
        return dataDigest;
    }

    int depth() {
        return cids.capacity();
    }

    /** Completes, with the reason, when the queue has closed. */
    CompletableFuture<NvmfException> closeFuture() {
        return closed;
    }

    @Override
    public String toString() {
        return name;
    }

    /** Sends {@code command}; completes with the CQE's command-specific result (DW0 | DW1 << 32). */
    @SuppressWarnings({"unchecked", "rawtypes"})
    CompletableFuture<Long> call(NvmeCommand command) {
        CompletableFuture<Object> f = new CompletableFuture<>();
        submit(command, f, true);
        return (CompletableFuture) f;
    }

    /** Sends {@code command}; completes with null on success. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    CompletableFuture<Void> run(NvmeCommand command) {
        CompletableFuture<Object> f = new CompletableFuture<>();
        submit(command, f, false);
        return (CompletableFuture) f;
    }

    /** Closes the connection; commands still outstanding fail with {@link NvmfException.Kind#CONNECTION}. */
    void close() {
        onLoop(() -> close(new NvmfException(NvmfException.Kind.CONNECTION, name + " was closed by the host"), null));
    }

    private void submit(NvmeCommand command, CompletableFuture<Object> f, boolean wantsResult) {
        if (loop.inEventLoop()) {
            start(command, f, wantsResult);
            return;
        }
        try {
            loop.execute(() -> start(command, f, wantsResult));
        } catch (RejectedExecutionException e) {
            f.completeExceptionally(new NvmfException(NvmfException.Kind.CONNECTION,
                    command.describe() + " not sent: the event loop of " + name + " has shut down", e));
        }
    }

    private void onLoop(Runnable task) {
        if (loop.inEventLoop()) {
            task.run();
        } else {
            try {
                loop.execute(task);
            } catch (RejectedExecutionException e) {
                LOG.debug("{}: event loop already shut down", name, e);
            }
        }
    }

    private void start(NvmeCommand command, CompletableFuture<Object> f, boolean wantsResult) {
        if (closeCause != null || state != State.READY) {
            f.completeExceptionally(notSent(command));
            return;
        }
        if (!cids.hasFree() || !waiting.isEmpty()) {
            waiting.add(new Waiting(command, f, wantsResult));
            sendWaiting();
            return;
        }
        issue(command, f, wantsResult);
    }

    private NvmfException notSent(NvmeCommand command) {
        if (closeCause != null) {
            return new NvmfException(closeCause.kind(), command.describe() + " not sent: " + closeCause.getMessage(),
                    closeCause);
        }
        return new NvmfException(NvmfException.Kind.CONNECTION, command.describe() + " not sent: " + name
                + " is not connected");
    }

    private void sendWaiting() {
        while (cids.hasFree() && closeCause == null) {
            Waiting w = waiting.poll();
            if (w == null) {
                return;
            }
            issue(w.command(), w.future(), w.wantsResult());
        }
    }

    /** Sends {@code command} on a free CID; only when {@link #cids} has one. */
    private void issue(NvmeCommand command, CompletableFuture<Object> f, boolean wantsResult) {
        CommandSlot slot = cids.get(cids.add(slotOfCid));
        slot.begin(command, f, wantsResult, System.nanoTime() + timeoutNanos);
        int length = command.dataLength();
        boolean inCapsule = command.direction() == DataDirection.HOST_TO_CONTROLLER && length > 0
                && length <= capsuleDataLimit;
        slot.inCapsule = inCapsule;
        ByteBuf capsule = out.alloc().buffer(PduType.CAPSULE_CMD.headerLength() + 4 + 128);
        int start = capsule.writerIndex();
        int sqeIndex = CapsuleCommandPdu.encodeHeader(capsule, headerDigest, dataDigest, cpda, inCapsule ? length : 0);
        command.encode(sqe.wrap(capsule, sqeIndex));
        sqe.cid(slot.cid).flags(SubmissionEntry.FLAGS_SGL).sgl(0, length,
                inCapsule ? SubmissionEntry.SGL_IN_CAPSULE : SubmissionEntry.SGL_TRANSPORT_DATA_BLOCK);
        if (headerDigest) {
            out.appendHeaderDigest(capsule, start, PduType.CAPSULE_CMD.headerLength());
        }
        if (inCapsule) {
            capsule.writeZero(start + CapsuleCommandPdu.dataOffset(headerDigest, cpda) - capsule.writerIndex());
        }
        out.write(capsule);
        if (inCapsule) {
            out.writeData(command.data(), 0, length);
            slot.transferred = length;
        }
        out.scheduleFlush();
    }

    // ---- channel events ----

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        out.attach(channel);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        out.flush();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        close(new NvmfException(NvmfException.Kind.CONNECTION, "the connection of " + name + " was closed"
                + (state == State.INITIALIZING ? " during connection setup (ICReq sent, no ICResp)" : "")), null);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        close(new NvmfException(NvmfException.Kind.CONNECTION, "the connection of " + name + " failed: " + cause,
                cause), null);
    }

    /** Closes the queue for a PDU that broke the protocol; {@code header} goes back in the H2CTermReq. */
    private void protocolError(PduException e, ByteBuf header) {
        close(new NvmfException(NvmfException.Kind.PROTOCOL, name + ": malformed or unexpected PDU from the target ("
                + e.status().description() + "): " + e.getMessage() + "; queue closed"), e, header);
    }

    private void connectFailed(Throwable cause) {
        boolean timedOut = cause instanceof ConnectTimeoutException;
        close(new NvmfException(timedOut ? NvmfException.Kind.TIMEOUT : NvmfException.Kind.CONNECTION,
                "cannot connect " + name + ": " + cause.getMessage(), cause), null);
    }

    // ---- connection setup ----

    private void onIcResp(ByteBuf h) throws PduException {
        if (state != State.INITIALIZING) {
            throw new PduException(FatalErrorStatus.PDU_SEQUENCE_ERROR, 0, "a second ICResp");
        }
        IcNegotiation n = IcNegotiation.accept(h, options);
        headerDigest = n.headerDigest();
        dataDigest = n.dataDigest();
        cpda = n.cpda();
        out.dataDigest(dataDigest);
        dispatch.negotiated(n);
        state = State.READY;
        LOG.debug("{}: connected (header digest {}, data digest {}, MAXH2CDATA {}, CPDA {})", name,
                IcNegotiation.onOff(headerDigest), IcNegotiation.onOff(dataDigest), n.maxH2cDataAnswered(), cpda);
        ready.complete(this);
    }

    // ---- timeouts and closing ----

    private void timedOut(CommandSlot slot) {
        NvmeCommand command = slot.command;
        CompletableFuture<Object> f = slot.future;
        // out of the table, so the close below does not fail it too; its CID is never used again, as the queue closes
        cids.remove(slot.cid);
        slot.clear();
        String what = command.describe() + " (CID " + slot.cid + ") got no answer on " + name + " within "
                + options.commandTimeout().toMillis() + " ms";
        // close first, so that whatever the failed future's callbacks do sees the queue closed for this reason
        close(new NvmfException(NvmfException.Kind.TIMEOUT, name + " closed: " + what), null);
        f.completeExceptionally(new NvmfException(NvmfException.Kind.TIMEOUT, what));
    }

    private void close(NvmfException cause, PduException protocolError) {
        close(cause, protocolError, null);
    }

    /** Closes the queue; after a protocol error the target is sent an H2CTermReq quoting {@code offendingHeader}. */
    private void close(NvmfException cause, PduException protocolError, ByteBuf offendingHeader) {
        if (closeCause != null) {
            return;
        }
        closeCause = cause;
        State was = state;
        state = State.CLOSED;
        timeouts.stop();
        List<CommandSlot> inFlight = cids.removeAll();
        int failed = inFlight.size();
        for (CommandSlot slot : inFlight) {
            NvmeCommand command = slot.command;
            CompletableFuture<Object> f = slot.future;
            slot.clear();
            f.completeExceptionally(new NvmfException(cause.kind(), command.describe()
                    + " did not complete: " + cause.getMessage(), cause));
        }
        for (Waiting w; (w = waiting.poll()) != null; failed++) {
            w.future().completeExceptionally(notSent(w.command()));
        }
        dispatch.reset();
        if (protocolError != null || (was == State.READY && failed > 0)
                || cause.kind() == NvmfException.Kind.TIMEOUT) {
            LOG.warn("{} ({} commands failed with it)", cause.getMessage(), failed);
        } else {
            LOG.debug("{} ({} commands failed with it)", cause.getMessage(), failed);
        }
        ready.completeExceptionally(cause);
        if (channel != null) {
            if (protocolError != null && channel.isActive()) {
                ByteBuf term = channel.alloc().buffer(TermReqPdu.MAX_LENGTH);
                TermReqPdu.encode(term, PduType.H2C_TERM_REQ, protocolError.status(), protocolError.fieldOffset(),
                        offendingHeader);
                // Closing a socket with unread input sends a reset, which can destroy the TermReq before the
                // target reads it: half-close instead, drain input until the target closes, bounded.
                channel.writeAndFlush(term).addListener((ChannelFutureListener) f -> {
                    if (channel instanceof DuplexChannel d) {
                        d.shutdownOutput();
                    }
                    loop.schedule(() -> channel.close(), TERM_REQ_LINGER_MILLIS, TimeUnit.MILLISECONDS);
                });
            } else {
                channel.close();
            }
        }
        closed.complete(cause);
    }

    /** What the connection setup needs of the queue. */
    private final class Setup implements IcExchangeHandler.Setup {
        @Override
        public void connected() {
            state = State.INITIALIZING;
            timeouts.start();
        }

        @Override
        public boolean isClosed() {
            return closeCause != null;
        }

        @Override
        public void onIcResp(ByteBuf header) throws PduException {
            NvmeTcpQueue.this.onIcResp(header);
        }

        @Override
        public void protocolError(PduException e, ByteBuf header) {
            NvmeTcpQueue.this.protocolError(e, header);
        }
    }

    /** What the dispatch of the controller's PDUs needs of the queue. */
    private final class DispatchEvents implements CompletionDispatch.Queue {
        @Override
        public boolean isReady() {
            return state == State.READY;
        }

        @Override
        public void onIcResp(ByteBuf header) throws PduException {
            NvmeTcpQueue.this.onIcResp(header);
        }

        @Override
        public boolean isClosed() {
            return closeCause != null;
        }

        @Override
        public void protocolError(PduException e, ByteBuf header) {
            NvmeTcpQueue.this.protocolError(e, header);
        }

        @Override
        public void terminated(NvmfException cause) {
            close(cause, null);
        }

        @Override
        public void cidFreed() {
            sendWaiting();
        }
    }

    /** What the timeout sweep tells the queue. */
    private final class Expiry implements CommandTimeouts.Expiry {
        @Override
        public boolean awaitingIcResp() {
            return state == State.INITIALIZING;
        }

        @Override
        public void icRespTimedOut() {
            close(new NvmfException(NvmfException.Kind.TIMEOUT, name + ": no ICResp within "
                    + options.connectTimeout().toMillis() + " ms"), null);
        }

        @Override
        public void commandTimedOut(CommandSlot slot) {
            timedOut(slot);
        }
    }
}
