package io.creel.storage.rdma.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.ibm.disni.util.NativeAffinity;
import com.ibm.disni.verbs.impl.NativeDispatcher;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Creel's libdisni.so against DiSNI 2.1's Java side, on any machine where the module built it: every
 * native method links, the structure sizes DiSNI checks match, and every entry given zero handles
 * fails with an exception or an error code instead of crashing the JVM. The calls that need a device
 * run in the lab (io.creel.storage.rdma.lab).
 */
class NativeContractTest {
    private static final Path LIBRARY = Path.of(System.getProperty("creel.rdma.native.dir", "target/native"),
            System.mapLibraryName("disni"));
    private static Object dispatcher;

    @BeforeAll
    static void loadTheLibraryTheBuildMade() throws Exception {
        if (Files.isRegularFile(LIBRARY)) {
            // Constructing DiSNI's dispatcher loads the library and checks version and structure sizes.
            Constructor<NativeDispatcher> c = NativeDispatcher.class.getDeclaredConstructor();
            c.setAccessible(true);
            dispatcher = c.newInstance();
        }
    }

    @BeforeEach
    void onlyWhereTheBuildMadeTheLibrary() {
        String missing = "libdisni.so was not built (the build said why in one line): " + LIBRARY;
        // CI installs the RDMA headers and sets CREEL_DISNI_REQUIRED=1: there a library the build did not
        // make is a failure, not a skip.
        assertTrue(dispatcher != null || !"1".equals(System.getenv("CREEL_DISNI_REQUIRED")),
                missing + " (required here: CREEL_DISNI_REQUIRED=1)");
        assumeTrue(dispatcher != null, missing);
    }

    private static List<Method> nativeMethods(Class<?> type) {
        return Arrays.stream(type.getDeclaredMethods()).filter(m -> Modifier.isNative(m.getModifiers()))
                .sorted((a, b) -> a.getName().compareTo(b.getName())).toList();
    }

    private static Object[] zeros(Method m) {
        Object[] args = new Object[m.getParameterCount()];
        Class<?>[] types = m.getParameterTypes();
        for (int i = 0; i < args.length; i++) {
            if (types[i] == long.class) {
                args[i] = 0L;
            } else if (types[i] == int.class) {
                args[i] = 0;
            } else if (types[i] == short.class) {
                args[i] = (short) 0;
            } else {
                args[i] = (byte) 0;
            }
        }
        return args;
    }

    @Test
    void creelsOwnEntryPointsLinkAndRefuseZeroHandles() throws Exception {
        assertEquals(null, CreelVerbs.missing(), "creel_verbs.c is part of the library");
        Method cas = CreelVerbs.class.getDeclaredMethod("_postCompareAndSwap", long.class, long.class, long.class,
                int.class, long.class, int.class, long.class, long.class, boolean.class);
        cas.setAccessible(true);
        InvocationTargetException e = assertThrows(InvocationTargetException.class,
                () -> cas.invoke(null, 0L, 0L, 8L, 0, 8L, 0, 0L, 0L, false));
        assertInstanceOf(IOException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("ibv_qp handle is 0"), e.getCause().getMessage());
        Method cap = CreelVerbs.class.getDeclaredMethod("_atomicCapability", long.class);
        cap.setAccessible(true);
        InvocationTargetException none = assertThrows(InvocationTargetException.class, () -> cap.invoke(null, 0L));
        assertInstanceOf(IOException.class, none.getCause());
    }

    @Test
    void creelsConnectionSetupEntryPointsLinkAndRefuseZeroHandlesAndOversizedPrivateData() throws Exception {
        assertEquals(2, CreelVerbs.VERSION);
        Method take = CreelVerbs.class.getDeclaredMethod("_takePrivateData", long.class);
        take.setAccessible(true);
        assertEquals(null, take.invoke(null, 0L), "nothing is kept for no id");
        assertEquals(null, take.invoke(null, 0x1234L), "nothing is kept for an id that had no setup event");
        Method reject = CreelVerbs.class.getDeclaredMethod("_reject", long.class, byte[].class);
        reject.setAccessible(true);
        InvocationTargetException r = assertThrows(InvocationTargetException.class,
                () -> reject.invoke(null, 0L, new byte[3]));
        assertTrue(r.getCause().getMessage().contains("rdma_cm_id handle is 0"), r.getCause().getMessage());
        Method connect = CreelVerbs.class.getDeclaredMethod("_connect", long.class, int.class, int.class, byte[].class);
        connect.setAccessible(true);
        assertInstanceOf(IOException.class, assertThrows(InvocationTargetException.class,
                () -> connect.invoke(null, 0L, 7, 7, new byte[49])).getCause());
        Method accept = CreelVerbs.class.getDeclaredMethod("_accept", long.class, int.class, int.class, byte[].class);
        accept.setAccessible(true);
        assertInstanceOf(IOException.class, assertThrows(InvocationTargetException.class,
                () -> accept.invoke(null, 0L, 0, 0, new byte[33])).getCause());
        // A handle that is not 0 but more private data than a connect carries: refused before any call.
        InvocationTargetException big = assertThrows(InvocationTargetException.class,
                () -> connect.invoke(null, 8L, 7, 7, new byte[57]));
        assertTrue(big.getCause().getMessage().contains("private data longer than the connection manager carries"),
                big.getCause().getMessage());
    }

    @Test
    void theContractHasFortyEightMethodsAndAllOfThemLink() throws Exception {
        List<Method> natives = nativeMethods(NativeDispatcher.class);
        assertEquals(48, natives.size(), "DiSNI 2.1's NativeDispatcher declares 48 native methods");
        List<String> unlinked = new ArrayList<>();
        for (Method m : natives) {
            if (m.getName().equals("_createEventChannel")) {
                continue; // needs /dev/infiniband; covered below
            }
            try {
                m.invoke(dispatcher, zeros(m));
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof UnsatisfiedLinkError) {
                    unlinked.add(m.getName());
                } else {
                    assertInstanceOf(IOException.class, e.getCause(), m.getName() + " threw " + e.getCause());
                }
            }
        }
        assertEquals(List.of(), unlinked);
    }

    @Test
    void zeroHandlesAreRefusedWithAMessageNamingTheCall() throws Exception {
        Map<String, String> expected = Map.of(
                "_createId", "rdma_create_id: rdma_event_channel handle is 0",
                "_postSend", "ibv_post_send: ibv_qp handle is 0",
                "_regMr", "ibv_reg_mr: ibv_pd handle is 0",
                "_getContext", "rdma_cm_id.verbs: rdma_cm_id handle is 0",
                "_createQP", "rdma_create_qp: rdma_cm_id handle is 0",
                "_deregMr", "ibv_dereg_mr: ibv_mr handle is 0");
        for (Map.Entry<String, String> e : expected.entrySet()) {
            Method m = Arrays.stream(NativeDispatcher.class.getDeclaredMethods())
                    .filter(x -> x.getName().equals(e.getKey())).findFirst().orElseThrow();
            InvocationTargetException thrown = assertThrows(InvocationTargetException.class,
                    () -> m.invoke(dispatcher, zeros(m)));
            assertEquals(e.getValue() + " (object not created or already destroyed)", thrown.getCause().getMessage());
        }
    }

    @Test
    void callsWithoutExceptionsReturnErrorCodesForZeroHandles() throws Exception {
        for (String name : List.of("_disconnect", "_destroyEventChannel", "_destroyCmId", "_destroyQP", "_destroyEp",
                "_pollCQ", "_reqNotifyCQ", "_ackCqEvent", "_destroyCompChannel", "_deallocPd", "_destroyCQ",
                "_getSrcAddr", "_getDstAddr", "_getCmEvent", "_queryOdpSupport")) {
            Method m = Arrays.stream(NativeDispatcher.class.getDeclaredMethods())
                    .filter(x -> x.getName().equals(name)).findFirst().orElseThrow();
            int result = (int) m.invoke(dispatcher, zeros(m));
            assertTrue(result < 0, name + " returned " + result);
        }
    }

    @Test
    void versionAndLayoutsAreTheOnesDisniExpects() throws Exception {
        NativeDispatcher d = (NativeDispatcher) dispatcher;
        assertEquals(32, d._getVersion());
        assertEquals(16, d._getSockAddrInSize(), "struct sockaddr_in");
        assertEquals(16, d._getIbvSgeSize(), "struct ibv_sge");
        assertEquals(32, d._getIbvRecvWRSize(), "struct ibv_recv_wr");
        assertEquals(48, d._getIbvWCSize(), "struct ibv_wc");
        assertEquals(40, d._getRemoteAddressOffset(), "ibv_send_wr.wr.rdma.remote_addr");
        assertEquals(48, d._getRKeyOffset(), "ibv_send_wr.wr.rdma.rkey");
        assertTrue(d._getIbvSendWRSize() >= 72, "struct ibv_send_wr grew since DiSNI 2.1, never shrank");
    }

    @Test
    void withoutRdmaDeviceFilesTheEventChannelFailsWithTheSystemsReason() {
        assumeTrue(!Files.exists(Path.of("/dev/infiniband/rdma_cm")), "this machine has RDMA device files");
        IOException e = assertThrows(IOException.class, () -> ((NativeDispatcher) dispatcher)._createEventChannel());
        assertTrue(e.getMessage().startsWith("rdma_create_event_channel failed: "), e.getMessage());
        assertTrue(e.getMessage().contains("errno"), e.getMessage());
    }

    @Test
    void affinityReadsAndSetsTheCallingThreadsCpus() throws Exception {
        long mask = NativeAffinity.getAffinity();
        assertNotEquals(0L, mask);
        NativeAffinity.setAffinity(Long.lowestOneBit(mask));
        assertEquals(Long.lowestOneBit(mask), NativeAffinity.getAffinity());
        NativeAffinity.setAffinity(mask);
        Method raw = NativeAffinity.class.getDeclaredMethod("_setAffinity", long.class);
        raw.setAccessible(true);
        InvocationTargetException e = assertThrows(InvocationTargetException.class, () -> raw.invoke(null, 0L));
        assertInstanceOf(IllegalArgumentException.class, e.getCause());
        assertTrue(e.getCause().getMessage().startsWith("sched_setaffinity(mask 0x0) failed"), e.getCause().getMessage());
        assertEquals(2, nativeMethods(NativeAffinity.class).size());
    }
}
