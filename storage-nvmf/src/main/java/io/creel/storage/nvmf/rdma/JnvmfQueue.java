package io.creel.storage.nvmf.rdma;

import com.ibm.jnvmf.IoQueuePair;
import com.ibm.jnvmf.KeyedNativeBuffer;
import com.ibm.jnvmf.KeyedSglDataBlockDescriptor;
import com.ibm.jnvmf.NamespaceIdentifier;
import com.ibm.jnvmf.NvmCompletionQueueEntry;
import com.ibm.jnvmf.NvmIoCommand;
import com.ibm.jnvmf.NvmIoCommandSqe;
import com.ibm.jnvmf.NvmReadCommand;
import com.ibm.jnvmf.NvmResponseCapsule;
import com.ibm.jnvmf.NvmWriteCommand;
import com.ibm.jnvmf.OperationCallback;
import com.ibm.jnvmf.RdmaException;
import com.ibm.jnvmf.Response;
import io.creel.common.inflight.InFlightSlots;
import io.creel.common.inflight.InFlightTable;
import io.creel.storage.nvmf.NvmfException;
import io.creel.storage.nvmf.nvme.NvmeStatus;
import io.creel.storage.nvmf.target.TargetAddress;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One jNVMf I/O queue pair and the thread that owns it. Callers {@link #submit} commands from any
 * thread; the driver thread posts them (at most one per staging slot), polls the completion queue,
 * and completes the futures. With nothing in flight it sleeps until a command arrives.
 *
 * <p>The target moves data by RDMA from and to registered memory, so each slot has a registered
 * staging area: write data is copied into it before the command is posted, read data out of it
 * after the command completed. A caller's buffer is thus never exposed to the target, and no late
 * RDMA transfer can touch it after its future completed.
 *
 * <p>A command past its timeout, or an RDMA error, stops the queue: every command fails (the CIDs of
 * unanswered commands cannot be reused), the queue pair is freed, and the controller is told.
 */
final class JnvmfQueue {
    private static final Logger LOG = LoggerFactory.getLogger(JnvmfQueue.class);
    /** Empty polls before the driver naps between polls while commands are in flight. */
    private static final int SPINS_BEFORE_NAP = 64;
    private static final long NAP_NANOS = TimeUnit.MICROSECONDS.toNanos(20);
    private static final long IDLE_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /** One Read or Write of whole sectors, as a caller hands it in. */
    record Op(boolean write, int nsid, long lba, int blocks, int bytes, ByteBuffer[] buffers,
              CompletableFuture<Void> future) {
    }

    /**
     * A command slot: its staging area, its reusable commands and responses, and what it carries now.
     * Made once per index and put back into {@link #inFlight} under that index for every command.
     */
    private final class Slot implements OperationCallback, InFlightTable.Deadlined {
        final int index;
        final NvmReadCommand read;
        final NvmWriteCommand write;
        final Response<NvmResponseCapsule> readResponse;
        final Response<NvmResponseCapsule> writeResponse;
        final ResponseWatch readWatch = new ResponseWatch(this);
        final ResponseWatch writeWatch = new ResponseWatch(this);
        Op op;
        long deadline;
        boolean sent;
        boolean answered;

        Slot(int index) throws IOException {
            this.index = index;
            this.read = new NvmReadCommand(qp);
            this.write = new NvmWriteCommand(qp);
            this.readResponse = read.newResponse();
            this.writeResponse = write.newResponse();
            read.setCallback(this);
            write.setCallback(this);
            readResponse.setCallback(readWatch);
            writeResponse.setCallback(writeWatch);
        }

        @Override
        public long deadlineNanos() {
            return deadline;
        }

        // The command capsule was sent (its send work request completed).
        @Override
        public void onStart() {
        }

        @Override
        public void onComplete() {
            sent = true;
            settle(this);
        }

        @Override
        public void onFailure(RdmaException e) {
            broken(new NvmfException(NvmfException.Kind.CONNECTION, "sending a command to " + address + " failed: "
                    + e.getMessage(), e));
        }
    }

    /** The response capsule of a slot's command arrived. */
    private final class ResponseWatch implements OperationCallback {
        private final Slot slot;

        ResponseWatch(Slot slot) {
            this.slot = slot;
        }

        @Override
        public void onStart() {
        }

        @Override
        public void onComplete() {
            slot.answered = true;
            settle(slot);
        }

        @Override
        public void onFailure(RdmaException e) {
            broken(new NvmfException(NvmfException.Kind.CONNECTION, "receiving a completion from " + address
                    + " failed: " + e.getMessage(), e));
        }
    }

    private final TargetAddress address;
    private final IoQueuePair qp;
    private final int slotBytes;
    private final long timeoutNanos;
    private final String name;
    private final ByteBuffer staging;
    private final KeyedNativeBuffer registered;
    private final Slot[] slots;
    /** The slots with a command in flight, by index; confined to the driver thread. */
    private final InFlightSlots<Slot> inFlight;
    private final ConcurrentLinkedQueue<Op> submitted = new ConcurrentLinkedQueue<>();
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private volatile NvmfException failure;
    private volatile Thread driver;
    private Consumer<NvmfException> onFailure;

    JnvmfQueue(TargetAddress address, IoQueuePair qp, int slotCount, int slotBytes, Duration commandTimeout,
               String name) throws IOException {
        this.address = address;
        this.qp = qp;
        this.slotBytes = slotBytes;
        this.timeoutNanos = commandTimeout.toNanos();
        this.name = name;
        this.staging = ByteBuffer.allocateDirect(slotCount * slotBytes);
        this.registered = qp.registerMemory(staging);
        this.slots = new Slot[slotCount];
        for (int i = 0; i < slotCount; i++) {
            slots[i] = new Slot(i);
        }
        this.inFlight = new InFlightSlots<>(slotCount);
    }

    /** Starts the driver thread; {@code onFailure} hears once why the queue stopped by itself. */
    void start(Consumer<NvmfException> onFailure) {
        this.onFailure = onFailure;
        Thread t = new Thread(this::drive, name);
        t.setDaemon(true);
        driver = t;
        t.start();
    }

    /** Queues {@code op}; its future completes on the driver thread. */
    CompletableFuture<Void> submit(Op op) {
        if (op.bytes() > slotBytes) {
            op.future().completeExceptionally(new NvmfException(NvmfException.Kind.INVALID_ARGUMENT, op.bytes()
                    + " bytes in one command to " + address + "; at most " + slotBytes));
            return op.future();
        }
        NvmfException f = failure;
        if (f != null) {
            op.future().completeExceptionally(f);
            return op.future();
        }
        submitted.add(op);
        if (failure != null) {
            drain(failure); // stopped meanwhile: nobody else will look at the queue
        }
        LockSupport.unpark(driver);
        return op.future();
    }

    /** Stops the queue: commands fail, the driver frees the queue pair and exits. */
    void stop() {
        broken(new NvmfException(NvmfException.Kind.CONNECTION, "I/O queue " + name + " to " + address
                + " was closed"));
        LockSupport.unpark(driver);
    }

    /** Waits up to {@code millis} for the driver to have freed the queue pair. */
    void awaitStopped(long millis) {
        try {
            stopped.get(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            LOG.warn("I/O queue {} to {} did not stop within {} ms", name, address, millis);
        }
    }

    private void broken(NvmfException cause) {
        if (failure == null) {
            failure = cause;
        }
    }

    private void drive() {
        int spins = 0;
        try {
            while (failure == null) {
                Op op;
                while (inFlight.hasFree() && (op = submitted.poll()) != null) {
                    post(op);
                }
                if (inFlight.size() == 0) {
                    if (submitted.isEmpty()) {
                        LockSupport.parkNanos(this, IDLE_PARK_NANOS);
                    }
                    continue;
                }
                int polled = qp.poll();
                if (polled > 0) {
                    spins = 0;
                } else if (++spins > SPINS_BEFORE_NAP) {
                    checkDeadlines();
                    LockSupport.parkNanos(this, NAP_NANOS);
                }
            }
        } catch (IOException | RuntimeException e) {
            // jNVMf throws from poll when a completion makes no sense to it (an unknown CID or status).
            broken(new NvmfException(NvmfException.Kind.PROTOCOL, "I/O queue " + name + " to " + address
                    + " failed: " + e, e));
        } finally {
            NvmfException why = failure;
            for (Slot s : inFlight.removeAll()) {
                if (s.op != null) { // null when posting it threw before the command was set
                    s.op.future().completeExceptionally(why);
                    s.op = null;
                }
            }
            drain(why);
            release();
            stopped.complete(null);
            if (onFailure != null) {
                onFailure.accept(why);
            }
        }
    }

    private void drain(NvmfException why) {
        Op op;
        while ((op = submitted.poll()) != null) {
            op.future().completeExceptionally(why);
        }
    }

    private void release() {
        try {
            qp.free();
        } catch (IOException | RuntimeException e) {
            LOG.debug("freeing I/O queue {} to {}: {}", name, address, e.toString());
        }
        try {
            registered.free();
        } catch (IOException | RuntimeException e) {
            LOG.debug("deregistering the staging memory of {}: {}", name, e.toString());
        }
    }

    /** Posts {@code op} in a free slot; only when {@link #inFlight} has one. */
    private void post(Op op) throws IOException {
        Slot s = slots[inFlight.add(i -> slots[i])];
        ByteBuffer area = staging.slice(s.index * slotBytes, op.bytes());
        if (op.write()) {
            int at = 0;
            for (ByteBuffer b : op.buffers()) {
                area.put(at, b, b.position(), b.remaining());
                at += b.remaining();
            }
        }
        NvmIoCommand<?> command = op.write() ? s.write : s.read;
        NvmIoCommandSqe sqe = command.getCommandCapsule().getSubmissionQueueEntry();
        sqe.setStartingLba(op.lba());
        sqe.setNumberOfLogicalBlocks(op.blocks());
        sqe.setNamespaceIdentifier(new NamespaceIdentifier(op.nsid()));
        KeyedSglDataBlockDescriptor sgl = sqe.getKeyedSglDataBlockDescriptor();
        sgl.setAddress(registered.getAddress() + (long) s.index * slotBytes);
        sgl.setLength(op.bytes());
        sgl.setKey(registered.getRemoteKey());
        s.op = op;
        s.sent = false;
        s.answered = false;
        s.deadline = System.nanoTime() + timeoutNanos;
        if (op.write()) {
            s.write.execute(s.writeResponse);
        } else {
            s.read.execute(s.readResponse);
        }
    }

    /** A slot's command is done once it was both sent and answered (jNVMf reuses neither before). */
    private void settle(Slot s) {
        if (!s.sent || !s.answered || s.op == null) {
            return;
        }
        Op op = s.op;
        s.op = null;
        inFlight.remove(s.index);
        Response<NvmResponseCapsule> response = op.write() ? s.writeResponse : s.readResponse;
        NvmCompletionQueueEntry cqe = response.getResponseCapsule().getCompletionQueueEntry();
        int sct = cqe.getStatusCodeType().toInt();
        int sc = cqe.getStatusCode().toInt();
        if (sct != 0 || sc != 0) {
            NvmeStatus status = new NvmeStatus(sct, sc, 0, cqe.getMore(), cqe.getDoNotRetry());
            op.future().completeExceptionally(new NvmfException(status, (op.write() ? "Write" : "Read") + " of "
                    + op.blocks() + " blocks at LBA " + op.lba() + " of namespace " + op.nsid() + " of " + address
                    + " failed: " + status));
            return;
        }
        if (!op.write()) {
            ByteBuffer area = staging.slice(s.index * slotBytes, op.bytes());
            int at = 0;
            for (ByteBuffer b : op.buffers()) {
                b.put(b.position(), area, at, b.remaining());
                at += b.remaining();
            }
        }
        op.future().complete(null);
    }

    private void checkDeadlines() {
        Slot s = inFlight.firstExpired(System.nanoTime());
        if (s != null) {
            broken(new NvmfException(NvmfException.Kind.TIMEOUT, (s.op.write() ? "Write" : "Read") + " at LBA "
                    + s.op.lba() + " of namespace " + s.op.nsid() + " of " + address + " got no completion within "
                    + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms on I/O queue " + name));
        }
    }
}
