package io.creel.storage.rdma;

/**
 * Memory a peer registered for one-sided access, as the peer publishes it: the virtual address of
 * its first byte, its length and the remote key. A storage server hands these out with its block
 * grants; a client addresses bytes as (region, offset) and never computes raw addresses itself.
 *
 * @param address the registered virtual address of the first byte on the peer
 * @param length  the registered length in bytes
 * @param rkey    the remote key the peer's device checks on every access
 */
public record RemoteRegion(long address, long length, int rkey) {
    public RemoteRegion {
        if (length <= 0) {
            throw new IllegalArgumentException("a remote region needs a positive length, got " + length);
        }
        if (Long.compareUnsigned(address, -1L - length) > 0) {
            throw new IllegalArgumentException("remote region 0x" + Long.toHexString(address) + " + " + length
                    + " wraps around the address space");
        }
    }

    /** True when [offset, offset + count) lies inside the region. */
    public boolean contains(long offset, long count) {
        return offset >= 0 && count >= 0 && offset <= length && count <= length - offset;
    }

    @Override
    public String toString() {
        return "RemoteRegion[0x" + Long.toHexString(address) + "+" + length + ", rkey 0x" + Integer.toHexString(rkey) + "]";
    }
}
