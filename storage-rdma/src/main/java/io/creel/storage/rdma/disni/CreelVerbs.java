package io.creel.storage.rdma.disni;

import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.impl.NatObject;
import io.creel.storage.rdma.AtomicSupport;
import java.io.IOException;

/**
 * Creel's own native calls in libdisni.so ({@code creel_verbs.c}): posting a compare-and-swap, which
 * DiSNI 2.1's Java side cannot lay out (it writes only the "rdma" half of the work request union),
 * and asking a device how atomic its atomics are; and the private data of connection setup
 * ({@code creel_cm.c}), which DiSNI's Java side drops: what a connect request, an accept or a reject
 * carried, an accept or reject that carries some, and a connect that carries it without a direct
 * buffer. DiSNI's objects are reached through their object
 * ids, which in Creel's libdisni are the verbs objects' addresses.
 *
 * <p>A libdisni.so that is not Creel's (DiSNI's own build) lacks these entry points: then
 * {@link #missing()} says so, and the device reports {@link AtomicSupport#NONE} instead of failing.
 */
final class CreelVerbs {
    /** The version of creel_verbs.c this class speaks. */
    static final int VERSION = 2;

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

    /**
     * The private data the last setup event of {@code id} carried (a CONNECT_REQUEST on a listener's
     * new id, ESTABLISHED or REJECTED on a connecting one), once; null if none was kept.
     */
    static byte[] takePrivateData(RdmaCmId id) {
        return _takePrivateData(((NatObject) id).getObjId());
    }

    /** rdma_connect with the retry counts and {@code data} (at most 56 bytes; null: none). */
    static void connect(RdmaCmId id, int retries, byte[] data) throws IOException {
        _connect(((NatObject) id).getObjId(), retries, retries, data);
    }

    /** rdma_accept with {@code data} (at most 196 bytes; null: none). */
    static void accept(RdmaCmId id, byte[] data) throws IOException {
        _accept(((NatObject) id).getObjId(), 0, 0, data);
    }

    /** rdma_reject with {@code data} (at most 148 bytes; null: none). */
    static void reject(RdmaCmId id, byte[] data) throws IOException {
        _reject(((NatObject) id).getObjId(), data);
    }

    private static native int _version();

    private static native byte[] _takePrivateData(long id);

    private static native void _connect(long id, int retry, int rnrRetry, byte[] data) throws IOException;

    private static native void _accept(long id, int retry, int rnrRetry, byte[] data) throws IOException;

    private static native void _reject(long id, byte[] data) throws IOException;

    private static native int _atomicCapability(long context) throws IOException;

    private static native void _postCompareAndSwap(long qp, long wrId, long localAddress, int lkey, long remoteAddress,
            int rkey, long compare, long swap, boolean fence) throws IOException;
}
