package io.creel.storage.rdma.fake;

import io.creel.storage.rdma.AtomicSupport;
import io.creel.storage.rdma.RdmaException;
import io.creel.storage.rdma.RdmaException.Kind;
import io.creel.storage.rdma.RdmaOperation;
import io.creel.storage.rdma.RegisteredMemory;
import io.creel.storage.rdma.inflight.OneSidedConnection;
import io.creel.storage.rdma.inflight.PendingOperation;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A fake connection: "the wire" is the network's completion thread, which copies bytes between the
 * two devices' registered buffers after the checks a real device makes (peer alive, rkey known,
 * access granted, range inside the registration).
 */
final class FakeConnection extends OneSidedConnection {
    private static final VarHandle WORDS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private final FakeRdmaNetwork network;
    private final FakeRdmaDevice device;
    private final FakeListener.Accepted remoteEnd;
    // Transfers hold the read lock while they touch buffers; abort takes the write lock, so once it
    // returns no transfer of this connection runs or will run: the fake's "queue pair destroyed".
    private final ReentrantReadWriteLock dma = new ReentrantReadWriteLock();
    private boolean destroyed;

    FakeConnection(int id, FakeRdmaNetwork network, FakeRdmaDevice device, FakeListener.Accepted remoteEnd) {
        super(id, remoteEnd.listenerAddress(), device.settings(), network.clock());
        this.network = network;
        this.device = device;
        this.remoteEnd = remoteEnd;
    }

    FakeListener.Accepted remoteEnd() {
        return remoteEnd;
    }

    @Override
    protected boolean acceptsLocal(RegisteredMemory local) {
        return local instanceof FakeRegisteredMemory m && m.device() == device;
    }

    @Override
    public AtomicSupport atomics() {
        return device.atomics();
    }

    @Override
    protected void post(PendingOperation op, long wrId) throws RdmaException {
        dma.readLock().lock();
        try {
            if (destroyed) {
                throw new RdmaException(Kind.CLOSED, peer(), "posting " + op.describe(peer())
                        + " failed: the queue pair is destroyed");
            }
        } finally {
            dma.readLock().unlock();
        }
        network.deliver(remoteEnd.listener().device(), () -> transfer(op, wrId));
    }

    private void transfer(PendingOperation op, long wrId) {
        Kind errorKind = null;
        String errorText = null;
        dma.readLock().lock();
        try {
            if (destroyed) {
                return;
            }
            FakeRdmaDevice target = remoteEnd.listener().device();
            FakeRegisteredMemory remote = target.registration(op.remote().rkey());
            if (!remoteEnd.isOpen()) {
                errorKind = Kind.UNREACHABLE;
                errorText = "the peer is gone (retry count exceeded)";
            } else if (remote == null || !remote.covers(op.remoteAddress(), op.length())) {
                errorKind = Kind.REMOTE_ACCESS;
                errorText = "remote access error: no registration with rkey 0x" + Integer.toHexString(op.remote().rkey())
                        + " covers 0x" + Long.toHexString(op.remoteAddress()) + "+" + op.length();
            } else if (!allowed(op.operation(), remote)) {
                errorKind = Kind.REMOTE_ACCESS;
                errorText = "remote access error: the peer registered the memory " + remote.access();
            } else if (op.operation() == RdmaOperation.COMPARE_AND_SWAP) {
                compareAndSwap(op, remote);
            } else {
                copy(op, remote);
            }
        } finally {
            dma.readLock().unlock();
        }
        completed(wrId, errorKind, errorText);
    }

    private static boolean allowed(RdmaOperation operation, FakeRegisteredMemory remote) {
        return switch (operation) {
            case READ -> remote.access().remoteRead();
            case WRITE -> remote.access().remoteWrite();
            case COMPARE_AND_SWAP -> remote.access().remoteAtomic();
        };
    }

    /** The CPU's compare-and-set on the peer's word: atomic against the peer's own code as well. */
    private static void compareAndSwap(PendingOperation op, FakeRegisteredMemory remote) {
        int remoteOffset = (int) (op.remoteAddress() - remote.address());
        long previous = (long) WORDS.compareAndExchange(remote.buffer(), remoteOffset, op.compare(), op.swap());
        WORDS.set(op.local().buffer(), op.localOffset(), previous);
    }

    private static void copy(PendingOperation op, FakeRegisteredMemory remote) {
        int remoteOffset = (int) (op.remoteAddress() - remote.address());
        ByteBuffer localView = op.local().buffer().duplicate();
        ByteBuffer remoteView = remote.buffer().duplicate();
        if (op.operation() == RdmaOperation.READ) {
            localView.clear().position(op.localOffset()).limit(op.localOffset() + op.length());
            remoteView.clear().position(remoteOffset).limit(remoteOffset + op.length());
            localView.put(remoteView);
        } else {
            remoteView.clear().position(remoteOffset).limit(remoteOffset + op.length());
            localView.clear().position(op.localOffset()).limit(op.localOffset() + op.length());
            remoteView.put(localView);
        }
    }

    @Override
    protected void abort() {
        dma.writeLock().lock();
        try {
            destroyed = true;
        } finally {
            dma.writeLock().unlock();
        }
    }

    @Override
    protected void onBroken(RdmaException reason) {
        device.forget(this);
        remoteEnd.close();
    }

    @Override
    protected void release() {
        device.forget(this);
        remoteEnd.close();
    }
}
