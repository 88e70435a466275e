package io.creel.storage.rdma.disni;

import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.SVCPostSend;
import io.creel.storage.rdma.AtomicSupport;
import io.creel.storage.rdma.RdmaException;
import io.creel.storage.rdma.RdmaException.Kind;
import io.creel.storage.rdma.RdmaOperation;
import io.creel.storage.rdma.RegisteredMemory;
import io.creel.storage.rdma.inflight.OneSidedConnection;
import io.creel.storage.rdma.inflight.PendingOperation;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.LinkedList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reliable connection over DiSNI: one queue pair on the device's completion queue, and per slot
 * of the in-flight table one prepared READ and one prepared WRITE work request (DiSNI's stateful
 * verb calls), so posting an operation only patches ids, addresses, keys and flags in place. A
 * compare-and-swap, which DiSNI cannot lay out, is posted through {@link CreelVerbs}.
 */
final class DisniConnection extends OneSidedConnection {
    private static final Logger LOG = LoggerFactory.getLogger(DisniConnection.class);

    private final DisniRdmaDevice device;
    private final int connectionId;
    private final RdmaCmId id;
    private final IbvQP qp;
    private final SVCPostSend[] prepared;
    // Posts hold the read lock; abort takes the write lock, so the queue pair is never destroyed
    // under a post, and no post reaches it afterwards.
    private final ReentrantReadWriteLock qpLock = new ReentrantReadWriteLock();
    private boolean destroyed;
    private final AtomicBoolean released = new AtomicBoolean();

    DisniConnection(DisniRdmaDevice device, int connectionId, RdmaCmId id, IbvQP qp, InetSocketAddress peer) {
        super(connectionId, peer, device.settings(), System::nanoTime);
        this.device = device;
        this.connectionId = connectionId;
        this.id = id;
        this.qp = qp;
        this.prepared = new SVCPostSend[device.settings().queueDepth() * 2];
    }

    int connectionId() {
        return connectionId;
    }

    RdmaCmId cmId() {
        return id;
    }

    @Override
    protected boolean acceptsLocal(RegisteredMemory local) {
        return local instanceof DisniRegisteredMemory m && m.device() == device;
    }

    @Override
    public AtomicSupport atomics() {
        return device.atomics();
    }

    @Override
    protected void post(PendingOperation op, long wrId) throws RdmaException {
        DisniRegisteredMemory local = (DisniRegisteredMemory) op.local();
        int slot = (int) (wrId >>> 16) & 0xFFFF;
        int index = slot * 2 + (op.operation() == RdmaOperation.READ ? 0 : 1);
        qpLock.readLock().lock();
        try {
            if (destroyed) {
                throw new RdmaException(Kind.CLOSED, peer(), "posting " + op.describe(peer())
                        + " failed: the queue pair is destroyed");
            }
            if (op.operation() == RdmaOperation.COMPARE_AND_SWAP) {
                CreelVerbs.postCompareAndSwap(qp, wrId, local.address() + op.localOffset(), local.lkey(),
                        op.remoteAddress(), op.remote().rkey(), op.compare(), op.swap(), op.fenced());
                return;
            }
            // The slot is this operation's alone until its completion, so its prepared call is too.
            SVCPostSend call = prepared[index];
            if (call == null) {
                call = prepared[index] = prepare(op.operation());
            }
            SVCPostSend.SendWRMod wr = call.getWrMod(0);
            wr.setWr_id(wrId);
            wr.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED | (op.fenced() ? IbvSendWR.IBV_SEND_FENCE : 0));
            wr.getRdmaMod().setRemote_addr(op.remoteAddress());
            wr.getRdmaMod().setRkey(op.remote().rkey());
            SVCPostSend.SgeMod sge = wr.getSgeMod(0);
            sge.setAddr(local.address() + op.localOffset());
            sge.setLength(op.length());
            sge.setLkey(local.lkey());
            call.execute();
        } catch (IOException e) {
            throw new RdmaException(Kind.INTERNAL, peer(), "posting " + op.describe(peer()) + " failed: "
                    + e.getMessage(), e);
        } finally {
            qpLock.readLock().unlock();
        }
    }

    private SVCPostSend prepare(RdmaOperation operation) throws IOException {
        IbvSge sge = new IbvSge();
        LinkedList<IbvSge> sges = new LinkedList<>();
        sges.add(sge);
        IbvSendWR wr = new IbvSendWR();
        wr.setOpcode(operation == RdmaOperation.READ ? IbvSendWR.IBV_WR_RDMA_READ : IbvSendWR.IBV_WR_RDMA_WRITE);
        wr.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
        wr.setSg_list(sges);
        return qp.postSend(List.of(wr), null);
    }

    /** A work completion of this connection (poller thread). */
    void completion(long wrId, int status) {
        if (status == WorkCompletions.SUCCESS) {
            completed(wrId, null, null);
        } else {
            completed(wrId, WorkCompletions.kind(status), WorkCompletions.describe(status));
        }
    }

    /** Connection-manager events once established (loop thread). */
    void onCmEvent(RdmaCmEvent.EventType type) {
        switch (type) {
            case RDMA_CM_EVENT_DISCONNECTED -> fail(new RdmaException(Kind.UNREACHABLE, peer(),
                    peer() + " disconnected"));
            case RDMA_CM_EVENT_DEVICE_REMOVAL -> fail(new RdmaException(Kind.NOT_AVAILABLE, peer(),
                    "RDMA device " + device.name() + " was removed"));
            default -> LOG.debug("connection to {}: ignoring {}", peer(), type);
        }
    }

    @Override
    protected void abort() {
        qpLock.writeLock().lock();
        try {
            if (destroyed) {
                return;
            }
            destroyed = true;
        } finally {
            qpLock.writeLock().unlock();
        }
        try {
            id.disconnect();
        } catch (IOException e) {
            LOG.debug("disconnecting from {}: {}", peer(), e.getMessage());
        }
        try {
            // Synchronous: when it returns, the device no longer touches this connection's buffers.
            id.destroyQP();
        } catch (IOException e) {
            LOG.warn("destroying the queue pair to {} failed: {}", peer(), e.getMessage());
        }
        for (SVCPostSend call : prepared) {
            if (call != null) {
                call.free();
            }
        }
    }

    @Override
    protected void onBroken(RdmaException reason) {
        LOG.info("RDMA connection to {} broke: {}", peer(), reason.getMessage());
        releaseOnce();
    }

    @Override
    protected void release() {
        releaseOnce();
    }

    private void releaseOnce() {
        if (released.compareAndSet(false, true)) {
            device.released(this);
        }
    }
}
