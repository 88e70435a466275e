package io.creel.storage.rdma.fake;

import io.creel.storage.rdma.MemoryAccess;
import io.creel.storage.rdma.RdmaException;
import io.creel.storage.rdma.RegisteredMemory;
import io.creel.storage.rdma.RemoteRegion;
import java.nio.ByteBuffer;

/** A registration on a fake device: an invented address and keys over a real direct buffer. */
final class FakeRegisteredMemory implements RegisteredMemory {
    private final FakeRdmaDevice device;
    private final ByteBuffer buffer;
    private final MemoryAccess access;
    private final long address;
    private final int lkey;
    private final int rkey;
    private volatile boolean open = true;

    FakeRegisteredMemory(FakeRdmaDevice device, ByteBuffer buffer, MemoryAccess access, long address, int lkey,
            int rkey) {
        this.device = device;
        this.buffer = buffer;
        this.access = access;
        this.address = address;
        this.lkey = lkey;
        this.rkey = rkey;
    }

    FakeRdmaDevice device() {
        return device;
    }

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
        return lkey;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public MemoryAccess access() {
        return access;
    }

    @Override
    public RemoteRegion remote() {
        return new RemoteRegion(address, buffer.capacity(), rkey);
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    /** Whether [remoteAddress, remoteAddress + length) lies inside this registration. */
    boolean covers(long remoteAddress, int length) {
        long offset = remoteAddress - address;
        return offset >= 0 && offset <= buffer.capacity() - (long) length;
    }

    @Override
    public void close() {
        if (open) {
            open = false;
            device.deregistered(this);
        }
    }

    @Override
    public String toString() {
        return "FakeRegisteredMemory[" + device.name() + ", 0x" + Long.toHexString(address) + "+" + length() + ", "
                + access + "]";
    }

    static void requireUsable(ByteBuffer buffer) throws RdmaException {
        if (buffer == null || !buffer.isDirect() || buffer.capacity() == 0) {
            throw new RdmaException(RdmaException.Kind.INVALID_ARGUMENT, null,
                    "only a non-empty direct ByteBuffer can be registered, got " + buffer);
        }
    }
}
