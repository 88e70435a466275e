package io.creel.storage.rdma.disni;

import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.impl.NatObject;
import io.creel.storage.rdma.AtomicSupport;
import java.io.IOException;

/**
 * Creel's own native calls in libdisni.so ({@code creel_verbs.c}): posting a compare-and-swap, which
 * DiSNI 2.1's Java side cannot lay out (it writes only the "rdma" half of the work request union),
 * and asking a device how atomic its atomics are. DiSNI's objects are reached through their object
 * ids, which in Creel's libdisni are the verbs objects' addresses.
 *
 * <p>A libdisni.so that is not Creel's (DiSNI's own build) lacks these entry points: then
 * {@link #missing()} says so, and the device reports {@link AtomicSupport#NONE} instead of failing.
 */
final class CreelVerbs {
    /** The version of creel_verbs.c this class speaks. */
    static final int VERSION = 1;

    private static final String MISSING = probe();

    private CreelVerbs() {
    }

    private static String probe() {
        try {
            System.loadLibrary("disni"); // already loaded by DiSNI in this class loader: no-op then
            int v = _version();
            return v == VERSION ? null : "libdisni.so has Creel's verbs of version " + v + ", this build needs " + VERSION;
        } catch (UnsatisfiedLinkError e) {
            return "libdisni.so lacks Creel's own entry points (" + e.getMessage()
                    + "): it is not the library storage-rdma builds";
        }
    }

    /** Null when the entry points are there, else why not. */
    static String missing() {
        return MISSING;
    }

    /** How atomic the device behind {@code context} is. */
    static AtomicSupport atomicSupport(IbvContext context) throws IOException {
        if (MISSING != null) {
            return AtomicSupport.NONE;
        }
        int cap = _atomicCapability(((NatObject) context).getObjId());
        return switch (cap) {
            case 1 -> AtomicSupport.DEVICE;
            case 2 -> AtomicSupport.GLOBAL;
            default -> AtomicSupport.NONE;
        };
    }

    /** Posts a signaled compare-and-swap on {@code qp}; see creel_verbs.c. */
    static void postCompareAndSwap(IbvQP qp, long wrId, long localAddress, int lkey, long remoteAddress, int rkey,
            long compare, long swap, boolean fence) throws IOException {
        _postCompareAndSwap(((NatObject) qp).getObjId(), wrId, localAddress, lkey, remoteAddress, rkey, compare, swap,
                fence);
    }

    private static native int _version();

    private static native int _atomicCapability(long context) throws IOException;

    private static native void _postCompareAndSwap(long qp, long wrId, long localAddress, int lkey, long remoteAddress,
            int rkey, long compare, long swap, boolean fence) throws IOException;
}
