package io.creel.storage.nvmf.rdma;

import io.creel.storage.nvmf.NvmfException;
import io.creel.storage.nvmf.target.Fabric;
import io.creel.storage.nvmf.target.TargetAddress;
import io.creel.storage.nvmf.target.TargetConnector;
import io.creel.storage.nvmf.target.TargetController;
import io.creel.storage.nvmf.target.TargetOptions;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connects NVMe/RDMA controllers through jNVMf 1.6 (on DiSNI and Creel's libdisni.so). jNVMf's calls
 * block, so each connect runs on a thread of its own and completes the future from there.
 *
 * <p>jNVMf must run in its legacy mode against the Linux kernel target (it then fills in the SGL
 * fields and queue entry sizes that target insists on; SPDK accepts them too). jNVMf reads the switch
 * once, from the system property {@code jnvmf.legacy}; unless the JVM was started with it, this class
 * sets it to {@code true} before jNVMf loads.
 */
public final class JnvmfConnector implements TargetConnector {
    private static final Logger LOG = LoggerFactory.getLogger(JnvmfConnector.class);
    static final String LEGACY_PROPERTY = "jnvmf.legacy";

    static {
        if (System.getProperty(LEGACY_PROPERTY) == null) {
            System.setProperty(LEGACY_PROPERTY, "true");
        } else if (!Boolean.getBoolean(LEGACY_PROPERTY)) {
            LOG.info("jNVMf runs without its legacy mode (-D{}=false): the Linux kernel target will refuse its "
                    + "commands", LEGACY_PROPERTY);
        }
    }

    private final String name;

    /** A connector whose threads are named after {@code name}. */
    public JnvmfConnector(String name) {
        this.name = name;
    }

    @Override
    public Fabric fabric() {
        return Fabric.RDMA;
    }

    @Override
    public CompletableFuture<TargetController> connect(TargetAddress address, TargetOptions options) {
        if (address.fabric() != Fabric.RDMA) {
            throw new IllegalArgumentException("an NVMe/RDMA connector cannot reach " + address);
        }
        CompletableFuture<TargetController> result = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                result.complete(JnvmfController.connect(address, options, name));
            } catch (NvmfException e) {
                result.completeExceptionally(e);
            } catch (RuntimeException | LinkageError e) {
                // DiSNI without its library, or a device that vanished: say so as a connection failure.
                result.completeExceptionally(new NvmfException(NvmfException.Kind.CONNECTION, "connecting to "
                        + address + " over RDMA failed: " + e, e));
            }
        }, name + "-connect");
        t.setDaemon(true);
        t.start();
        return result;
    }

    /** Nothing of its own: each controller owns its threads and closes them. */
    @Override
    public void close() {
    }
}
