package io.creel.storage.nvmf.rdma;

import com.ibm.jnvmf.Controller;
import com.ibm.jnvmf.ControllerStatus;
import com.ibm.jnvmf.IdentifyControllerData;
import com.ibm.jnvmf.IdentifyNamespaceData;
import com.ibm.jnvmf.IoQueuePair;
import com.ibm.jnvmf.Namespace;
import com.ibm.jnvmf.Nvme;
import com.ibm.jnvmf.NvmeQualifiedName;
import com.ibm.jnvmf.NvmfTransportId;
import io.creel.storage.nvmf.NvmfException;
import io.creel.storage.nvmf.io.SectorDevice;
import io.creel.storage.nvmf.target.TargetAddress;
import io.creel.storage.nvmf.target.TargetController;
import io.creel.storage.nvmf.target.TargetOptions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A controller reached over NVMe/RDMA through jNVMf. jNVMf is not thread-safe and completes
 * commands only when someone polls the queue, so each queue pair belongs to one thread: the admin
 * queue (and the controller itself) to an admin thread that also sends Keep Alive, each I/O queue to
 * its {@link JnvmfQueue}'s driver thread.
 *
 * <p>jNVMf asks for a keep-alive timeout of two minutes in its admin Connect; a Keep Alive goes every
 * 30 s. The association is taken as lost when a Keep Alive fails or an I/O queue fails (an RDMA error,
 * a command past its timeout): {@link #failure()} completes and every queue stops.
 */
final class JnvmfController implements TargetController {
    private static final Logger LOG = LoggerFactory.getLogger(JnvmfController.class);
    private static final long KEEP_ALIVE_MILLIS = 30_000;
    /** Bytes one command moves at most: staging memory is registered per slot, so keep it modest. */
    static final int MAX_TRANSFER = 256 * 1024;
    /** Commands in flight per queue at most (each has a staging slot of {@link #MAX_TRANSFER}). */
    static final int MAX_SLOTS = 32;
    /** The most jNVMf is given to connect a queue pair (see {@link #connect}). */
    static final long JNVMF_CONNECT_MILLIS = 10_000;
    private static final String HOST_NQN = "nqn.2014-08.org.nvmexpress:uuid:" + UUID.randomUUID();

    private final TargetAddress address;
    private final TargetOptions options;
    private final Controller controller;
    private final List<JnvmfQueue> queues;
    private final ScheduledThreadPoolExecutor admin;
    private final int maxTransfer;
    private final String model;
    private final CompletableFuture<NvmfException> failure = new CompletableFuture<>();
    private final AtomicInteger next = new AtomicInteger();
    private volatile boolean closing;

    private JnvmfController(TargetAddress address, TargetOptions options, Controller controller,
                            List<JnvmfQueue> queues, ScheduledThreadPoolExecutor admin, int maxTransfer, String model) {
        this.address = address;
        this.options = options;
        this.controller = controller;
        this.queues = List.copyOf(queues);
        this.admin = admin;
        this.maxTransfer = maxTransfer;
        this.model = model;
    }

    /** Connects, enables the controller, identifies it and connects the I/O queues; blocks, bounded by the timeouts. */
    static JnvmfController connect(TargetAddress address, TargetOptions options, String name) {
        String hostNqn = options.hostNqn().isEmpty() ? HOST_NQN : options.hostNqn();
        // jNVMf's connect timeout is also how long its connection-manager thread waits for each event,
        // which makes every close take that long: keep it short whatever the command timeouts are.
        long connectMillis = Math.min(options.connectTimeout().toMillis(), JNVMF_CONNECT_MILLIS);
        Controller c;
        try {
            // Dynamic controller ids: the Linux target has no static controllers.
            c = new Nvme(new NvmeQualifiedName(hostNqn)).connect(new NvmfTransportId(
                    new InetSocketAddress(address.host(), address.port()), new NvmeQualifiedName(address.nqn())),
                    connectMillis, TimeUnit.MILLISECONDS, true);
        } catch (IOException | RuntimeException e) {
            throw new NvmfException(NvmfException.Kind.CONNECTION, "connecting to " + address
                    + ": Fabrics Connect of the admin queue over RDMA failed: " + e, e);
        }
        List<JnvmfQueue> queues = new ArrayList<>();
        ScheduledThreadPoolExecutor admin = null;
        try {
            enable(c, address, connectMillis);
            IdentifyControllerData id = c.getIdentifyControllerData();
            long mdts = id.getMaximumDataTransferSize().toInt();
            int maxTransfer = (int) Math.min(MAX_TRANSFER, mdts <= 0 ? Long.MAX_VALUE : mdts);
            long mqes = c.getControllerCapabilities().getMaximumQueueEntriesSupported();
            int slots = (int) Math.min(Math.min(options.queueDepth(), MAX_SLOTS), Math.max(1, mqes - 1));
            for (int i = 0; i < options.ioQueues(); i++) {
                IoQueuePair qp = c.createIoQueuePair(slots + 1);
                queues.add(new JnvmfQueue(address, qp, slots, maxTransfer, options.commandTimeout(),
                        name + "-q" + (i + 1)));
            }
            admin = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, name + "-admin");
                t.setDaemon(true);
                return t;
            });
            String model = id.getModelNumber().trim() + " " + id.getSerialNumber().trim();
            JnvmfController controller = new JnvmfController(address, options, c, queues, admin, maxTransfer, model);
            controller.start();
            return controller;
        } catch (IOException | RuntimeException | java.util.concurrent.TimeoutException e) {
            queues.forEach(JnvmfQueue::stop);
            if (admin != null) {
                admin.shutdownNow();
            }
            free(c, address);
            NvmfException n = NvmfException.find(e);
            throw n != null ? n : new NvmfException(NvmfException.Kind.CONNECTION, "connecting to " + address
                    + " over RDMA failed: " + e, e);
        }
    }

    /** CC.EN = 1, then waits for CSTS.RDY (jNVMf's own wait gives up at once), bounded by CAP.TO. */
    private static void enable(Controller c, TargetAddress address, long connectMillis)
            throws IOException, java.util.concurrent.TimeoutException {
        c.getControllerConfiguration().setEnable(true);
        c.syncConfiguration();
        long limit = Math.max(connectMillis, TimeUnit.MILLISECONDS.convert(c.getControllerCapabilities().getTimeout(),
                com.ibm.jnvmf.ControllerCapabilities.getTimeoutUnit()));
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(limit);
        while (true) {
            ControllerStatus s = c.getControllerStatus();
            if (s.isFatalStatus()) {
                throw new NvmfException(NvmfException.Kind.PROTOCOL, "connecting to " + address
                        + ": the controller reports a fatal status (CSTS.CFS) after CC.EN = 1");
            }
            if (s.isReady()) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new java.util.concurrent.TimeoutException("connecting to " + address
                        + ": CSTS.RDY did not become 1 within " + limit + " ms");
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for " + address + " to become ready", e);
            }
        }
    }

    private void start() {
        for (JnvmfQueue q : queues) {
            q.start(this::queueFailed);
        }
        admin.scheduleWithFixedDelay(this::keepAlive, KEEP_ALIVE_MILLIS, KEEP_ALIVE_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void keepAlive() {
        if (closing || failure.isDone()) {
            return;
        }
        try {
            controller.keepAlive();
        } catch (IOException | RuntimeException e) {
            fail(new NvmfException(NvmfException.Kind.CONNECTION, "Keep Alive to " + address + " failed: " + e, e));
        }
    }

    private void queueFailed(NvmfException cause) {
        fail(cause);
    }

    /** The association is lost: every queue stops, the failure future says why. */
    private void fail(NvmfException cause) {
        if (failure.complete(cause)) {
            if (!closing) {
                LOG.warn("controller of {} lost: {}", address, cause.getMessage());
            }
            queues.forEach(JnvmfQueue::stop);
        }
    }

    @Override
    public TargetAddress address() {
        return address;
    }

    @Override
    public CompletableFuture<SectorDevice> namespace(int nsid) {
        CompletableFuture<SectorDevice> result = new CompletableFuture<>();
        try {
            admin.execute(() -> {
                try {
                    result.complete(identify(nsid));
                } catch (NvmfException e) {
                    result.completeExceptionally(e);
                } catch (IOException | RuntimeException e) {
                    result.completeExceptionally(new NvmfException(NvmfException.Kind.CONNECTION, "identifying "
                            + "namespace " + nsid + " of " + address + " failed: " + e, e));
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            result.completeExceptionally(new NvmfException(NvmfException.Kind.CONNECTION, "controller of " + address
                    + " is closed"));
        }
        return result.orTimeout(options.commandTimeout().toMillis() * 2, TimeUnit.MILLISECONDS)
                .exceptionallyCompose(e -> CompletableFuture.failedFuture(e instanceof java.util.concurrent.TimeoutException
                        ? new NvmfException(NvmfException.Kind.TIMEOUT, "identifying namespace " + nsid + " of "
                        + address + ": no answer within " + options.commandTimeout().toMillis() * 2 + " ms") : e));
    }

    private SectorDevice identify(int nsid) throws IOException {
        for (Namespace ns : controller.getActiveNamespaces()) {
            if (ns.getIdentifier().toInt() != nsid) {
                continue;
            }
            IdentifyNamespaceData data = ns.getIdentifyNamespaceData();
            int metadata = data.getFormattedLbaSize().getMetadataSize();
            if (metadata != 0) {
                throw new NvmfException(NvmfException.Kind.INVALID_ARGUMENT, "namespace " + nsid + " of " + address
                        + " uses an LBA format with " + metadata + " metadata bytes per block; only formats without "
                        + "metadata are supported");
            }
            long size = data.getNamespaceSize();
            int sector = data.getFormattedLbaSize().getLbaDataSize().toInt();
            if (size == 0) {
                throw new NvmfException(NvmfException.Kind.INVALID_ARGUMENT, "namespace " + nsid + " of " + address
                        + " is not active (size 0)");
            }
            int max = (int) Math.max(sector, Math.min((long) maxTransfer, 65536L * sector) / sector * sector);
            return new JnvmfNamespace(this, nsid, sector, size, max);
        }
        throw new NvmfException(NvmfException.Kind.INVALID_ARGUMENT, "namespace " + nsid + " is not an active "
                + "namespace of " + address);
    }

    /** Sends an I/O command to one of the queues, round-robin. */
    CompletableFuture<Void> io(JnvmfQueue.Op op) {
        int n = queues.size();
        int start = Math.floorMod(next.getAndIncrement(), n);
        return queues.get(start).submit(op);
    }

    @Override
    public CompletableFuture<NvmfException> failure() {
        return failure;
    }

    @Override
    public boolean isAlive() {
        return !closing && !failure.isDone();
    }

    @Override
    public String describe() {
        return "controller of " + address + ": " + model + ", " + queues.size() + " I/O queues over RDMA, "
                + "largest transfer " + maxTransfer + " bytes";
    }

    /**
     * Stops the I/O queues (each frees its queue pair on its own thread), then frees the controller on
     * the admin thread, the only one that touched it.
     */
    @Override
    public void close() {
        if (closing) {
            return;
        }
        closing = true;
        fail(new NvmfException(NvmfException.Kind.CONNECTION, "controller of " + address + " was closed"));
        long wait = options.commandTimeout().toMillis() + 1000;
        queues.forEach(q -> q.awaitStopped(wait));
        // Freeing closes each queue pair's endpoint, and jNVMf waits up to its connect timeout for each.
        long freeing = (queues.size() + 1) * (JNVMF_CONNECT_MILLIS + 1000);
        try {
            admin.submit(() -> free(controller, address)).get(freeing, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException
                 | java.util.concurrent.RejectedExecutionException e) {
            LOG.warn("freeing the controller of {} did not finish within {} ms: {}", address, freeing, e.toString());
        }
        admin.shutdownNow();
    }

    private static void free(Controller c, TargetAddress address) {
        try {
            c.free();
        } catch (IOException | RuntimeException e) {
            LOG.debug("freeing the jNVMf controller of {}: {}", address, e.toString());
        }
    }

    @Override
    public String toString() {
        return "controller of " + address;
    }
}
