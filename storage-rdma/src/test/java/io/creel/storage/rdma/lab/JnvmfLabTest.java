package io.creel.storage.rdma.lab;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.ibm.jnvmf.CommandFuture;
import com.ibm.jnvmf.Controller;
import com.ibm.jnvmf.GenericStatusCode;
import com.ibm.jnvmf.IdentifyControllerData;
import com.ibm.jnvmf.IdentifyNamespaceData;
import com.ibm.jnvmf.IoQueuePair;
import com.ibm.jnvmf.KeyedNativeBuffer;
import com.ibm.jnvmf.Namespace;
import com.ibm.jnvmf.NamespaceIdentifier;
import com.ibm.jnvmf.NvmIoCommand;
import com.ibm.jnvmf.NvmIoCommandCapsule;
import com.ibm.jnvmf.NvmIoCommandSqe;
import com.ibm.jnvmf.NvmReadCommand;
import com.ibm.jnvmf.NvmResponseCapsule;
import com.ibm.jnvmf.NvmWriteCommand;
import com.ibm.jnvmf.Nvme;
import com.ibm.jnvmf.NvmeQualifiedName;
import com.ibm.jnvmf.NvmfTransportId;
import com.ibm.jnvmf.ResponseFuture;
import com.ibm.jnvmf.StatusCode;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * jNVMf 1.6, unchanged, over Creel's libdisni.so against the guest's Linux kernel NVMe-oF target on
 * rdma :4421 (legacy mode, which the Linux target needs): connect, identify, write and read blocks.
 */
@RdmaLab
class JnvmfLabTest {
    private static final long WAIT_SECONDS = 60;
    /**
     * jNVMf's connect timeout is also how long its connection-manager thread waits for one event,
     * so closing a controller takes up to this long: keep it short.
     */
    private static final long CONNECT_SECONDS = 5;
    private static InetSocketAddress target;
    private static String nqn;
    private Controller controller;

    @BeforeAll
    static void inTheLab() {
        InetAddress address = LabEnvironment.requireRdma();
        nqn = LabEnvironment.variable("CREEL_LAB_NVMF_NQN");
        target = new InetSocketAddress(address, Integer.parseInt(LabEnvironment.variable("CREEL_LAB_NVMF_RDMA_PORT")));
        // The Linux target refuses commands without SGL data descriptors unless jNVMf runs in legacy mode.
        assertTrue(Boolean.getBoolean("jnvmf.legacy"), "the lab runs the JVM with -Djnvmf.legacy=true");
    }

    @AfterEach
    void disconnect() throws Exception {
        if (controller != null) {
            controller.free();
        }
    }

    private Controller enabledController() throws Exception {
        Nvme nvme = new Nvme();
        // Dynamic controller ids: the Linux target has no static controllers.
        controller = nvme.connect(new NvmfTransportId(target, new NvmeQualifiedName(nqn)), CONNECT_SECONDS,
                TimeUnit.SECONDS, true);
        controller.getControllerConfiguration().setEnable(true);
        controller.syncConfiguration();
        controller.waitUntilReady();
        return controller;
    }

    @Test
    void identifiesTheControllerAndItsNamespace() throws Exception {
        Controller c = enabledController();
        IdentifyControllerData id = c.getIdentifyControllerData();
        assertEquals(c.getControllerId(), id.getControllerId());
        assertFalse(id.getModelNumber().isBlank(), "the kernel target reports a model: " + id.getModelNumber());
        List<Namespace> namespaces = c.getActiveNamespaces();
        assertEquals(1, namespaces.size(), "the lab exports one namespace");
        assertEquals(new NamespaceIdentifier(1), namespaces.get(0).getIdentifier());
        IdentifyNamespaceData ns = namespaces.get(0).getIdentifyNamespaceData();
        assertTrue(ns.getNamespaceSize() > 0, "namespace size " + ns.getNamespaceSize());
        int sector = ns.getFormattedLbaSize().getLbaDataSize().toInt();
        assertTrue(sector == 512 || sector == 4096, "sector size " + sector);
    }

    @Test
    void writesBlocksAndReadsThemBack() throws Exception {
        Controller c = enabledController();
        Namespace namespace = c.getActiveNamespaces().get(0);
        int sector = namespace.getIdentifyNamespaceData().getFormattedLbaSize().getLbaDataSize().toInt();
        boolean keepsData = !"null".equals(System.getenv("CREEL_LAB_NVMF_NS"));
        IoQueuePair queue = c.createIoQueuePair(16);
        int blocks = 8;
        ByteBuffer out = ByteBuffer.allocateDirect(blocks * sector);
        ByteBuffer in = ByteBuffer.allocateDirect(blocks * sector);
        KeyedNativeBuffer outRegistered = queue.registerMemory(out);
        KeyedNativeBuffer inRegistered = queue.registerMemory(in);
        byte[] data = new byte[blocks * sector];
        new Random(42).nextBytes(data);
        out.put(0, data);

        for (long lba : new long[] {0, 1, 1000, namespace.getIdentifyNamespaceData().getNamespaceSize() - blocks}) {
            NvmWriteCommand write = new NvmWriteCommand(queue);
            execute(write, outRegistered, lba, blocks);
            NvmReadCommand read = new NvmReadCommand(queue);
            in.put(0, new byte[blocks * sector]);
            execute(read, inRegistered, lba, blocks);
            byte[] got = new byte[blocks * sector];
            in.get(0, got);
            if (keepsData) {
                assertArrayEquals(data, got, "blocks " + lba + ".." + (lba + blocks - 1) + " read back");
            } else {
                assertArrayEquals(new byte[got.length], got, "null_blk reads zeroes");
            }
        }
    }

    private static <C extends NvmIoCommandCapsule> void execute(NvmIoCommand<C> command, KeyedNativeBuffer buffer,
            long lba, int blocks) throws Exception {
        command.getCommandCapsule().setSglDescriptor(buffer);
        NvmIoCommandSqe sqe = command.getCommandCapsule().getSubmissionQueueEntry();
        sqe.setStartingLba(lba);
        sqe.setNumberOfLogicalBlocks(blocks);
        sqe.setNamespaceIdentifier(new NamespaceIdentifier(1));
        CommandFuture<C, NvmResponseCapsule> sent = command.newCommandFuture(); // also the command's callback
        ResponseFuture<NvmResponseCapsule> response = command.newResponseFuture();
        command.execute(response);
        StatusCode.Value status = response.get(WAIT_SECONDS, TimeUnit.SECONDS).getCompletionQueueEntry()
                .getStatusCode();
        assertEquals(GenericStatusCode.getInstance().SUCCESS, status, "status of the command at LBA " + lba);
        sent.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }
}
