package io.creel.storage.nvmf.tcp;

import io.creel.storage.nvmf.NvmfException;
import io.creel.storage.nvmf.nvme.ConnectData;
import io.creel.storage.nvmf.nvme.ControllerRegisters;
import io.creel.storage.nvmf.nvme.IdentifyController;
import io.creel.storage.nvmf.nvme.IdentifyNamespace;
import io.creel.storage.nvmf.nvme.NvmeCommand;
import io.creel.storage.nvmf.nvme.NvmeCommands;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A host's association with one NVMe-oF controller over NVMe/TCP: the admin queue, the I/O queues,
 * and the keep-alive that keeps the controller from timing us out.
 *
 * <p>{@link #connect} does, in order: admin queue connection and Fabrics Connect (dynamic controller,
 * KATO), Property Get CAP and VS, controller enable (CC.EN, wait for CSTS.RDY), Identify Controller,
 * Set Features Number of Queues, then connects the I/O queues, each on its own TCP connection, and
 * starts Keep Alive. Every step is bounded by the command or connect timeout.
 *
 * <p>The loss of the admin queue (keep-alive timeout, connection gone, protocol error) fails the
 * controller: {@link #failure()} completes with the reason, and the I/O queues are closed. A lost
 * I/O queue only takes that queue out of use; commands go to the remaining ones.
 */
public final class NvmeTcpController implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NvmeTcpController.class);
    /** Entries of the admin submission queue (at most 31 outstanding commands). */
    static final int ADMIN_QUEUE_ENTRIES = 32;
    /** In-capsule data the admin queue of an NVMe/TCP controller accepts (8 KiB by the transport binding). */
    static final int ADMIN_IN_CAPSULE_BYTES = 8192;
    private static final long READY_POLL_MILLIS = 10;

    private final NvmeTcpEndpoint endpoint;
    private final NvmeTcpOptions options;
    private final NvmeTcpQueue admin;
    private final int controllerId;
    private final ControllerRegisters.Capabilities capabilities;
    private final int version;
    private final IdentifyController identity;
    private final List<NvmeTcpQueue> ioQueues;
    private final int maxTransferBytes;
    private final CompletableFuture<NvmfException> failure = new CompletableFuture<>();
    private final AtomicInteger nextQueue = new AtomicInteger();
    private volatile boolean closing;
    private volatile ScheduledFuture<?> keepAliveTask;

    private NvmeTcpController(Setup s) {
        this.endpoint = s.endpoint;
        this.options = s.options;
        this.admin = s.admin;
        this.controllerId = s.controllerId;
        this.capabilities = s.capabilities;
        this.version = s.version;
        this.identity = s.identity;
        this.ioQueues = Collections.unmodifiableList(new ArrayList<>(s.ioQueues));
        long mdts = s.identity.maxTransferBytes(s.capabilities);
        this.maxTransferBytes = (int) Math.min(options.maxTransferBytes(), mdts);
    }

    /** What connecting has established so far; the steps fill it in. */
    private static final class Setup {
        final NvmeTcpEndpoint endpoint;
        final NvmeTcpOptions options;
        final NvmeTcpEventLoops loops;
        final List<NvmeTcpQueue> ioQueues = new ArrayList<>();
        NvmeTcpQueue admin;
        int controllerId;
        ControllerRegisters.Capabilities capabilities;
        int version;
        IdentifyController identity;

        Setup(NvmeTcpEndpoint endpoint, NvmeTcpOptions options, NvmeTcpEventLoops loops) {
            this.endpoint = endpoint;
            this.options = options;
            this.loops = loops;
        }

        void closeAll() {
            ioQueues.forEach(NvmeTcpQueue::close);
            if (admin != null) {
                admin.close();
            }
        }
    }

    /**
     * Connects to the controller of {@code endpoint}'s subsystem and brings it to the point where
     * namespaces can be read and written. Fails with a {@link NvmfException} naming the step.
     */
    public static CompletableFuture<NvmeTcpController> connect(NvmeTcpEndpoint endpoint, NvmeTcpOptions options,
            NvmeTcpEventLoops loops) {
        Setup s = new Setup(endpoint, options, loops);
        // The admin queue reads at most one Identify structure per C2HData PDU.
        CompletableFuture<NvmeTcpController> result = NvmeTcpQueue.open(endpoint, 0, ADMIN_QUEUE_ENTRIES - 1,
                        ADMIN_IN_CAPSULE_BYTES, NvmeCommands.IDENTIFY_LENGTH, options, loops)
                .thenCompose(q -> {
                    s.admin = q;
                    ByteBuffer data = ConnectData.encode(options.hostId(), ConnectData.ANY_CONTROLLER,
                            endpoint.subsystemNqn(), options.hostNqn());
                    return step(s, "Fabrics Connect of the admin queue", q.call(NvmeCommands.connect(0,
                            ADMIN_QUEUE_ENTRIES, 0, (int) options.keepAlive().toMillis(), data)));
                })
                .thenCompose(r -> {
                    s.controllerId = (int) (r & 0xFFFF);
                    return step(s, "Property Get CAP", s.admin.call(NvmeCommands.propertyGet(ControllerRegisters.CAP,
                            true)));
                })
                .thenCompose(cap -> {
                    s.capabilities = ControllerRegisters.Capabilities.decode(cap);
                    return step(s, "Property Get VS", s.admin.call(NvmeCommands.propertyGet(ControllerRegisters.VS,
                            false)));
                })
                .thenCompose(vs -> {
                    s.version = vs.intValue();
                    if (!s.capabilities.nvmCommandSet()) {
                        throw new NvmfException(NvmfException.Kind.INVALID_ARGUMENT, "controller of " + endpoint
                                + " does not support the NVM command set (CAP.CSS)");
                    }
                    if (s.capabilities.minPageSize() > 4096) {
                        throw new NvmfException(NvmfException.Kind.INVALID_ARGUMENT, "controller of " + endpoint
                                + " needs memory pages of at least " + s.capabilities.minPageSize() + " bytes");
                    }
                    return enable(s);
                })
                .thenCompose(v -> {
                    ByteBuffer id = ByteBuffer.allocate(NvmeCommands.IDENTIFY_LENGTH);
                    return step(s, "Identify Controller", s.admin.run(NvmeCommands.identifyController(id)))
                            .thenApply(x -> IdentifyController.parse(id));
                })
                .thenCompose(id -> {
                    s.identity = id;
                    return step(s, "Set Features Number of Queues",
                            s.admin.call(NvmeCommands.setNumberOfQueues(options.ioQueues())));
                })
                .thenCompose(granted -> openIoQueues(s, granted))
                .thenApply(v -> {
                    NvmeTcpController c = new NvmeTcpController(s);
                    c.start();
                    return c;
                });
        return result.whenComplete((c, e) -> {
            if (e != null) {
                s.closeAll();
            }
        }).exceptionallyCompose(e -> CompletableFuture.failedFuture(wrap(endpoint, e)));
    }

    private static NvmfException wrap(NvmeTcpEndpoint endpoint, Throwable e) {
        NvmfException n = NvmfException.find(e);
        if (n != null) {
            return n;
        }
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return new NvmfException(NvmfException.Kind.PROTOCOL, "connecting to " + endpoint + " failed: " + cause, cause);
    }

    /** Adds the step and the endpoint to a failure's message, keeping its kind and status. */
    private static <T> CompletableFuture<T> step(Setup s, String what, CompletableFuture<T> f) {
        return f.exceptionallyCompose(e -> {
            NvmfException n = NvmfException.find(e);
            String message = "connecting to " + s.endpoint + ": " + what + " failed: "
                    + (n != null ? n.getMessage() : String.valueOf(e));
            NvmfException out = n != null && n.status().isPresent() ? new NvmfException(n.status().get(), message)
                    : new NvmfException(n != null ? n.kind() : NvmfException.Kind.PROTOCOL, message, e);
            return CompletableFuture.failedFuture(out);
        });
    }

    private static CompletableFuture<Void> enable(Setup s) {
        NvmeTcpQueue a = s.admin;
        // A controller left enabled (CC.EN = 1) by an earlier host must be reset before it is enabled again.
        return step(s, "Property Get CC", a.call(NvmeCommands.propertyGet(ControllerRegisters.CC, false)))
                .thenCompose(cc -> (cc & ControllerRegisters.CC_ENABLE) == 0 ? CompletableFuture.completedFuture(null)
                        : step(s, "Property Set CC.EN = 0", a.run(NvmeCommands.propertySet(ControllerRegisters.CC,
                                false, 0))).thenCompose(v -> waitStatus(s, false)))
                .thenCompose(v -> step(s, "Property Set CC.EN = 1", a.run(NvmeCommands.propertySet(
                        ControllerRegisters.CC, false, ControllerRegisters.enableValue()))))
                .thenCompose(v -> waitStatus(s, true));
    }

    /** Polls CSTS until RDY equals {@code ready}, bounded by CAP.TO (at least 1 s). */
    private static CompletableFuture<Void> waitStatus(Setup s, boolean ready) {
        long limitMillis = Math.max(1000, s.capabilities.timeoutMillis());
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(limitMillis);
        CompletableFuture<Void> done = new CompletableFuture<>();
        pollStatus(s, ready, deadline, limitMillis, done);
        return done;
    }

    private static void pollStatus(Setup s, boolean ready, long deadline, long limitMillis,
            CompletableFuture<Void> done) {
        step(s, "Property Get CSTS", s.admin.call(NvmeCommands.propertyGet(ControllerRegisters.CSTS, false)))
                .whenComplete((csts, e) -> {
                    if (e != null) {
                        done.completeExceptionally(e);
                    } else if ((csts & ControllerRegisters.CSTS_FATAL) != 0) {
                        done.completeExceptionally(new NvmfException(NvmfException.Kind.PROTOCOL, "connecting to "
                                + s.endpoint + ": the controller reports a fatal status (CSTS.CFS) after CC.EN = "
                                + (ready ? 1 : 0) + " (CSTS " + String.format("%#x", csts) + ")"));
                    } else if (((csts & ControllerRegisters.CSTS_READY) != 0) == ready) {
                        done.complete(null);
                    } else if (System.nanoTime() - deadline > 0) {
                        done.completeExceptionally(new NvmfException(NvmfException.Kind.TIMEOUT, "connecting to "
                                + s.endpoint + ": CSTS.RDY did not become " + (ready ? 1 : 0) + " within "
                                + limitMillis + " ms (CAP.TO)"));
                    } else {
                        s.admin.eventLoop().schedule(() -> pollStatus(s, ready, deadline, limitMillis, done),
                                READY_POLL_MILLIS, TimeUnit.MILLISECONDS);
                    }
                });
    }

    private static CompletableFuture<Void> openIoQueues(Setup s, long granted) {
        int submission = (int) (granted & 0xFFFF) + 1;
        int completion = (int) ((granted >>> 16) & 0xFFFF) + 1;
        int count = Math.min(s.options.ioQueues(), Math.min(submission, completion));
        if (count < s.options.ioQueues()) {
            LOG.info("{}: the controller granted {} of the {} I/O queues asked for", s.endpoint, count,
                    s.options.ioQueues());
        }
        int entries = Math.min(s.options.queueDepth() + 1, s.capabilities.maxQueueEntries());
        int depth = entries - 1;
        if (s.identity.maxCommands() > 0) {
            depth = Math.min(depth, s.identity.maxCommands());
        }
        int inCapsule = (int) Math.min(Integer.MAX_VALUE, s.identity.inCapsuleDataBytes());
        long maxTransfer = Math.min(s.options.maxTransferBytes(), s.identity.maxTransferBytes(s.capabilities));
        int attributes = s.options.disableSqFlowControl() ? NvmeCommands.CONNECT_DISABLE_SQ_FLOW : 0;
        List<CompletableFuture<NvmeTcpQueue>> opening = new ArrayList<>();
        for (int qid = 1; qid <= count; qid++) {
            int id = qid;
            int queueDepth = depth;
            opening.add(NvmeTcpQueue.open(s.endpoint, id, queueDepth, inCapsule, maxTransfer, s.options, s.loops)
                    .thenCompose(q -> {
                        synchronized (s.ioQueues) {
                            s.ioQueues.add(q);
                        }
                        ByteBuffer data = ConnectData.encode(s.options.hostId(), s.controllerId,
                                s.endpoint.subsystemNqn(), s.options.hostNqn());
                        return step(s, "Fabrics Connect of I/O queue " + id, q.call(NvmeCommands.connect(id,
                                entries, attributes, 0, data))).thenApply(r -> q);
                    }));
        }
        return CompletableFuture.allOf(opening.toArray(CompletableFuture[]::new)).thenRun(() ->
                s.ioQueues.sort((a, b) -> Integer.compare(a.qid(), b.qid())));
    }

    private void start() {
        long kato = options.keepAlive().toMillis();
        if (kato > 0) {
            long interval = Math.max(100, kato / 2);
            keepAliveTask = admin.eventLoop().scheduleAtFixedRate(this::sendKeepAlive, interval, interval,
                    TimeUnit.MILLISECONDS);
        }
        admin.closeFuture().thenAccept(cause -> {
            ScheduledFuture<?> ka = keepAliveTask;
            if (ka != null) {
                ka.cancel(false);
            }
            if (!closing) {
                LOG.warn("controller {} of {} lost: {}", controllerId, endpoint, cause.getMessage());
            }
            ioQueues.forEach(NvmeTcpQueue::close);
            failure.complete(cause);
        });
        LOG.info("connected to controller {} of {}: {} {} (firmware {}, NVMe {}), {} I/O queues of depth {}, "
                        + "max transfer {} bytes, digests header {} data {}", controllerId, endpoint, identity.model(),
                identity.serial(), identity.firmware(), ControllerRegisters.version(version), ioQueues.size(),
                ioQueues.isEmpty() ? 0 : ioQueues.get(0).depth(), maxTransferBytes, admin.headerDigest(),
                admin.dataDigest());
    }

    private void sendKeepAlive() {
        if (closing || !admin.isOpen()) {
            return;
        }
        admin.run(NvmeCommands.keepAlive()).whenComplete((v, e) -> {
            if (e != null && !closing) {
                NvmfException n = NvmfException.find(e);
                LOG.warn("Keep Alive to controller {} of {} failed: {}", controllerId, endpoint,
                        n != null ? n.getMessage() : e.toString());
                // a controller that refuses Keep Alive will time us out: treat the association as lost
                admin.close();
            }
        });
    }

    public NvmeTcpEndpoint endpoint() {
        return endpoint;
    }

    /** The controller ID the subsystem assigned (CNTLID). */
    public int controllerId() {
        return controllerId;
    }

    public ControllerRegisters.Capabilities capabilities() {
        return capabilities;
    }

    /** The NVMe version the controller reports, as "major.minor.tertiary". */
    public String version() {
        return ControllerRegisters.version(version);
    }

    public IdentifyController identity() {
        return identity;
    }

    /** Largest data transfer of one Read or Write: the option, lowered to MDTS. */
    public int maxTransferBytes() {
        return maxTransferBytes;
    }

    /** I/O queues connected (some may have closed since; see {@link #liveIoQueues()}). */
    public int ioQueueCount() {
        return ioQueues.size();
    }

    /** I/O queues still open. */
    public int liveIoQueues() {
        int n = 0;
        for (NvmeTcpQueue q : ioQueues) {
            n += q.isOpen() ? 1 : 0;
        }
        return n;
    }

    /** Whether header digests are in use (negotiated at connection setup). */
    public boolean headerDigest() {
        return admin.headerDigest();
    }

    /** Whether data digests are in use. */
    public boolean dataDigest() {
        return admin.dataDigest();
    }

    /** Whether the controller is usable: the admin queue is open and {@link #close()} has not been called. */
    public boolean isAlive() {
        return !closing && admin.isOpen();
    }

    /**
     * Completes with the reason when the association is lost or closed: the admin queue's connection
     * closed, a Keep Alive failed or timed out, or the target broke the protocol.
     */
    public CompletableFuture<NvmfException> failure() {
        return failure;
    }

    /** Sends an admin command; completes with the CQE's command-specific result (DW0 | DW1 << 32). */
    public CompletableFuture<Long> adminCommand(NvmeCommand command) {
        return admin.call(command);
    }

    /** Identify Namespace of {@code nsid}. */
    public CompletableFuture<IdentifyNamespace> identifyNamespace(int nsid) {
        ByteBuffer data = ByteBuffer.allocate(NvmeCommands.IDENTIFY_LENGTH);
        return admin.run(NvmeCommands.identifyNamespace(nsid, data)).thenApply(v -> {
            try {
                return IdentifyNamespace.parse(nsid, data);
            } catch (IllegalArgumentException e) {
                throw new NvmfException(NvmfException.Kind.INVALID_ARGUMENT, "namespace " + nsid + " of " + endpoint
                        + ": " + e.getMessage(), e);
            }
        });
    }

    /** The active namespace IDs (the first 1024). */
    public CompletableFuture<List<Integer>> activeNamespaces() {
        ByteBuffer data = ByteBuffer.allocate(NvmeCommands.IDENTIFY_LENGTH);
        return admin.run(NvmeCommands.activeNamespaces(0, data)).thenApply(v -> {
            ByteBuffer b = data.order(ByteOrder.LITTLE_ENDIAN);
            List<Integer> ids = new ArrayList<>();
            for (int i = 0; i < NvmeCommands.IDENTIFY_LENGTH / 4; i++) {
                int id = b.getInt(i * 4);
                if (id == 0) {
                    break;
                }
                ids.add(id);
            }
            return ids;
        });
    }

    /**
     * Identifies namespace {@code nsid} and returns it ready for I/O. Fails with
     * {@link NvmfException.Kind#INVALID_ARGUMENT} for a namespace whose format carries metadata.
     */
    public CompletableFuture<NvmeNamespace> namespace(int nsid) {
        return identifyNamespace(nsid).thenApply(id -> {
            if (id.metadataSize() != 0) {
                throw new NvmfException(NvmfException.Kind.INVALID_ARGUMENT, "namespace " + nsid + " of " + endpoint
                        + " uses an LBA format with " + id.metadataSize() + " metadata bytes per block; only formats "
                        + "without metadata are supported");
            }
            if (id.size() == 0) {
                throw new NvmfException(NvmfException.Kind.INVALID_ARGUMENT, "namespace " + nsid + " of " + endpoint
                        + " is not active (size 0)");
            }
            return new NvmeNamespace(this, id);
        });
    }

    /** Runs an I/O command on one of the live I/O queues, preferring the one on the caller's event loop. */
    CompletableFuture<Void> io(NvmeCommand command) {
        return pickQueue(command).run(command);
    }

    private NvmeTcpQueue pickQueue(NvmeCommand command) {
        int n = ioQueues.size();
        for (NvmeTcpQueue q : ioQueues) {
            if (q.eventLoop().inEventLoop() && q.isOpen()) {
                return q;
            }
        }
        int startAt = Math.floorMod(nextQueue.getAndIncrement(), n);
        for (int i = 0; i < n; i++) {
            NvmeTcpQueue q = ioQueues.get((startAt + i) % n);
            if (q.isOpen()) {
                return q;
            }
        }
        // all closed: the queue's own error says why
        return ioQueues.get(startAt);
    }

    /**
     * Shuts the controller down (CC.SHN, waiting up to CAP.TO for CSTS.SHST) and closes every queue.
     * Commands still outstanding fail with {@link NvmfException.Kind#CONNECTION}.
     */
    public CompletableFuture<Void> closeAsync() {
        if (closing) {
            return failure.thenApply(x -> null);
        }
        closing = true;
        ScheduledFuture<?> ka = keepAliveTask;
        if (ka != null) {
            ka.cancel(false);
        }
        ioQueues.forEach(NvmeTcpQueue::close);
        CompletableFuture<Void> shutdown = new CompletableFuture<>();
        if (admin.isOpen()) {
            admin.run(NvmeCommands.propertySet(ControllerRegisters.CC, false,
                    ControllerRegisters.withShutdown(ControllerRegisters.enableValue())))
                    .thenCompose(v -> waitShutdown(System.nanoTime()
                            + TimeUnit.MILLISECONDS.toNanos(Math.max(1000, capabilities.timeoutMillis()))))
                    .whenComplete((v, e) -> {
                        if (e != null) {
                            LOG.debug("shutdown of controller {} of {} did not finish cleanly: {}", controllerId,
                                    endpoint, e.toString());
                        }
                        shutdown.complete(null);
                    });
        } else {
            shutdown.complete(null);
        }
        return shutdown.thenCompose(v -> {
            admin.close();
            return failure.thenApply(x -> null);
        });
    }

    private CompletableFuture<Void> waitShutdown(long deadline) {
        return admin.call(NvmeCommands.propertyGet(ControllerRegisters.CSTS, false)).thenCompose(csts -> {
            if (ControllerRegisters.shutdownComplete(csts.intValue()) || System.nanoTime() - deadline > 0) {
                return CompletableFuture.completedFuture(null);
            }
            CompletableFuture<Void> later = new CompletableFuture<>();
            admin.eventLoop().schedule(() -> waitShutdown(deadline).whenComplete((v, e) -> {
                if (e != null) {
                    later.completeExceptionally(e);
                } else {
                    later.complete(null);
                }
            }), READY_POLL_MILLIS, TimeUnit.MILLISECONDS);
            return later;
        });
    }

    /** {@link #closeAsync()}, waiting for it at most the connect timeout plus CAP.TO. */
    @Override
    public void close() {
        long waitMillis = options.connectTimeout().toMillis() + Math.max(1000, capabilities.timeoutMillis());
        try {
            closeAsync().get(waitMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            admin.close();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("closing controller {} of {} did not finish within {} ms: {}", controllerId, endpoint,
                    waitMillis, e.toString());
            admin.close();
        }
    }

    @Override
    public String toString() {
        return "controller " + controllerId + " of " + endpoint;
    }
}
