package io.creel.storage.rdma.disni;

import com.ibm.disni.verbs.IbvMr;
import io.creel.storage.rdma.MemoryAccess;
import io.creel.storage.rdma.RdmaException;
import io.creel.storage.rdma.RdmaException.Kind;
import io.creel.storage.rdma.RegisteredMemory;
import io.creel.storage.rdma.RemoteRegion;
import java.io.IOException;
import java.nio.ByteBuffer;

/** A memory region registered through DiSNI (ibv_reg_mr) in its device's protection domain. */
final class DisniRegisteredMemory implements RegisteredMemory {
    private final DisniRdmaDevice device;
    private final ByteBuffer buffer;
    private final MemoryAccess access;
    private final IbvMr mr;
    private final long address;
    private boolean open = true;

    DisniRegisteredMemory(DisniRdmaDevice device, ByteBuffer buffer, MemoryAccess access, IbvMr mr, long address) {
        this.device = device;
        this.buffer = buffer;
        this.access = access;
        this.mr = mr;
        this.address = address;
    }

    DisniRdmaDevice device() {
        return device;
    }

    /** The virtual address of the buffer's first byte. */
    long address() {
        return address;
    }

    @Override
    public ByteBuffer buffer() {
        return buffer;
    }

    @Override
    public int length() {
        return buffer.capacity();
    }

    @Override
    public int lkey() {
        return mr.getLkey();
    }

    @Override
    public int rkey() {
        return mr.getRkey();
    }

    @Override
    public MemoryAccess access() {
        return access;
    }

    @Override
    public RemoteRegion remote() {
        return new RemoteRegion(address, buffer.capacity(), mr.getRkey());
    }

    @Override
    public synchronized boolean isOpen() {
        return open;
    }

    @Override
    public void close() throws RdmaException {
        synchronized (this) {
            if (!open) {
                return;
            }
            open = false;
        }
        device.forget(this);
        try {
            mr.deregMr().execute().free();
        } catch (IOException e) {
            throw new RdmaException(Kind.INTERNAL, null, "deregistering " + this + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "registered memory 0x" + Long.toHexString(address) + "+" + buffer.capacity() + " (" + access + ") on "
                + device.name();
    }
}
