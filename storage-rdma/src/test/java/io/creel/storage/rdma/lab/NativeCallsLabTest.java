package io.creel.storage.rdma.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.impl.NatIbvQP;
import com.ibm.disni.verbs.impl.NativeDispatcher;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * The native calls none of DiSNI's endpoint framework, DaRPC or jNVMf makes on the lab's paths,
 * made through DiSNI's verbs API against rxe0: the device's completion vectors and on-demand-paging
 * bits, a prefetch, "modify" of a live QP, and rdma_destroy_ep. With the other tests, every native
 * method of the contract has run on a real device.
 */
@RdmaLab
class NativeCallsLabTest {
    private static final int IBV_QPS_RESET = 0;
    private static final int IBV_QPS_ERR = 6;

    @Test
    void theRarelyUsedCallsWorkOnARealDevice() throws Exception {
        InetAddress address = LabEnvironment.requireRdma();
        RdmaEventChannel channel = RdmaEventChannel.createEventChannel();
        RdmaCmId id = channel.createId(RdmaCm.RDMA_PS_TCP);
        id.bindAddr(new InetSocketAddress(address, 0));
        IbvContext context = id.getVerbs();
        assertTrue(context.getNumCompVectors() >= 1, "completion vectors: " + context.getNumCompVectors());
        int odp = context.queryOdpSupport();
        assertTrue(odp >= 0, "ODP capability bits, 0 when the device has none: " + odp);

        IbvPd pd = context.allocPd();
        IbvCompChannel completions = context.createCompChannel();
        IbvCQ cq = context.createCQ(completions, 16, 0);
        IbvQPInitAttr attr = new IbvQPInitAttr();
        attr.cap().setMax_send_wr(4);
        attr.cap().setMax_recv_wr(4);
        attr.setQp_type(IbvQP.IBV_QPT_RC);
        attr.setSend_cq(cq);
        attr.setRecv_cq(cq);
        IbvQP qp = id.createQP(pd, attr);
        int state = dispatcher()._modifyQP(((NatIbvQP) qp).getObjId(), 0);
        assertTrue(state >= IBV_QPS_RESET && state < IBV_QPS_ERR, "a fresh QP is in a live state: " + state);

        ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 16);
        IbvMr mr = pd.regMr(buffer, 1).execute().free().getMr();
        try {
            assertEquals(0, mr.expPrefetchMr(mr.getAddr(), mr.getLength()));
        } catch (IOException e) {
            // Devices without on-demand paging refuse the advice; the call must say which call failed.
            assertTrue(e.getMessage().startsWith("ibv_advise_mr (prefetch) failed: "), e.getMessage());
            assertEquals(0, odp & 0x8, "refused although the device claims ODP reads: " + e.getMessage());
        }
        mr.deregMr().execute().free();

        assertEquals(0, id.destroyEp(), "rdma_destroy_ep frees the QP and the id");
        assertEquals(0, cq.destroyCQ());
        assertEquals(0, completions.destroyCompChannel());
        assertEquals(0, pd.deallocPd());
        assertEquals(0, channel.destroyEventChannel());
    }

    private static NativeDispatcher dispatcher() throws ReflectiveOperationException {
        Constructor<NativeDispatcher> c = NativeDispatcher.class.getDeclaredConstructor();
        c.setAccessible(true);
        return c.newInstance();
    }
}
