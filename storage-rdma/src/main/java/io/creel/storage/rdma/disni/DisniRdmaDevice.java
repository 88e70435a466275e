package io.creel.storage.rdma.disni;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import io.creel.common.security.ClientAuthentication;
import io.creel.storage.rdma.AtomicSupport;
import io.creel.storage.rdma.ConnectionAdmission;
import io.creel.storage.rdma.MemoryAccess;
import io.creel.rdma.RdmaAvailability;
import io.creel.storage.rdma.RdmaConnection;
import io.creel.storage.rdma.RdmaDevice;
import io.creel.storage.rdma.RdmaException;
import io.creel.storage.rdma.RdmaException.Kind;
import io.creel.storage.rdma.RdmaListener;
import io.creel.storage.rdma.RdmaSettings;
import io.creel.storage.rdma.RegisteredMemory;
import io.creel.storage.rdma.inflight.WorkRequestTable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An RDMA device opened through DiSNI: an event channel and its {@link CmEventLoop}, an id bound to
 * the device's IP address (which gives the device context), one protection domain, one completion
 * queue with its {@link CompletionPoller}, and a timer thread that enforces deadlines.
 */
final class DisniRdmaDevice implements RdmaDevice {
    private static final Logger LOG = LoggerFactory.getLogger(DisniRdmaDevice.class);
    private static final long SETUP_TIMEOUT_MS = 10_000;
    private static final int ACCESS_LOCAL_WRITE = 1;
    private static final int ACCESS_REMOTE_WRITE = 1 << 1;
    private static final int ACCESS_REMOTE_READ = 1 << 2;
    private static final int ACCESS_REMOTE_ATOMIC = 1 << 3;

    private final InetAddress address;
    private final RdmaSettings settings;
    private final String name;
    private final RdmaEventChannel channel;
    private final CmEventLoop loop;
    private RdmaCmId anchor;
    private IbvContext context;
    private IbvPd pd;
    private IbvCompChannel completionChannel;
    private IbvCQ cq;
    private CompletionPoller poller;
    private volatile AtomicSupport atomics = AtomicSupport.NONE;
    private ScheduledExecutorService timer;
    private final AtomicBoolean open = new AtomicBoolean(true);
    private final AtomicInteger nextConnectionId = new AtomicInteger(1);
    private final AtomicInteger reservedCompletions = new AtomicInteger();
    private final Map<Integer, DisniConnection> connections = new ConcurrentHashMap<>();
    private final Set<DisniListener> listeners = ConcurrentHashMap.newKeySet();
    private final Set<ConnectAttempt> attempts = ConcurrentHashMap.newKeySet();
    private final Set<DisniRegisteredMemory> registrations = ConcurrentHashMap.newKeySet();

    private DisniRdmaDevice(InetAddress address, RdmaSettings settings, RdmaEventChannel channel) {
        this.address = address;
        this.settings = settings;
        this.channel = channel;
        this.name = RdmaAvailability.deviceFor(address).map(RdmaAvailability.Device::name)
                .orElse("rdma@" + address.getHostAddress());
        this.loop = new CmEventLoop(channel, "creel-rdma-cm-" + address.getHostAddress());
    }

    /** Opens the device behind {@code address}; {@link Kind#NOT_AVAILABLE} names what failed. */
    static DisniRdmaDevice open(InetAddress address, RdmaSettings settings) throws RdmaException {
        RdmaEventChannel channel;
        try {
            channel = RdmaEventChannel.createEventChannel();
        } catch (IOException e) {
            throw new RdmaException(Kind.NOT_AVAILABLE, null, "cannot open RDMA on " + address.getHostAddress() + ": "
                    + e.getMessage(), e);
        }
        DisniRdmaDevice device = new DisniRdmaDevice(address, settings, channel);
        try {
            device.loop.call(() -> {
                device.setUp();
                return null;
            }).get(SETUP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            device.poller = new CompletionPoller(device.completionChannel, device.cq, device::completion,
                    "creel-rdma-cq-" + address.getHostAddress());
        } catch (ExecutionException | TimeoutException | IOException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            device.close();
            throw new RdmaException(Kind.NOT_AVAILABLE, null, "cannot open the RDMA device behind "
                    + address.getHostAddress() + ": " + (e instanceof TimeoutException
                            ? "no answer within " + SETUP_TIMEOUT_MS + " ms" : cause.getMessage()), cause);
        }
        long period = Math.max(10, Math.min(250,
                Math.min(settings.operationTimeout().toMillis(), settings.connectTimeout().toMillis()) / 4));
        device.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "creel-rdma-timer-" + address.getHostAddress());
            t.setDaemon(true);
            return t;
        });
        device.timer.scheduleWithFixedDelay(device::sweep, period, period, TimeUnit.MILLISECONDS);
        LOG.debug("opened RDMA device {} at {}", device.name, address.getHostAddress());
        return device;
    }

    /** Binds an id to the address to find the device, then allocates its resources (loop thread). */
    private void setUp() throws IOException {
        anchor = loop.createId();
        try {
            anchor.bindAddr(new InetSocketAddress(address, 0));
        } catch (IOException e) {
            throw new IOException(address.getHostAddress() + " is not the address of an RDMA interface: "
                    + e.getMessage(), e);
        }
        context = anchor.getVerbs();
        pd = context.allocPd();
        completionChannel = context.createCompChannel();
        cq = context.createCQ(completionChannel, settings.completionQueueSize(), 0);
        atomics = CreelVerbs.atomicSupport(context);
        if (!atomics.available()) {
            LOG.info("RDMA device {}: no atomic operations{}", name, CreelVerbs.missing() == null ? ""
                    : " (" + CreelVerbs.missing() + ")");
        }
    }

    @Override
    public AtomicSupport atomics() {
        return atomics;
    }

    RdmaSettings settings() {
        return settings;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public InetAddress address() {
        return address;
    }

    @Override
    public boolean isOpen() {
        return open.get();
    }

    @Override
    public RegisteredMemory register(ByteBuffer buffer, MemoryAccess access) throws RdmaException {
        requireOpen();
        if (buffer == null || !buffer.isDirect() || buffer.capacity() == 0) {
            throw new RdmaException(Kind.INVALID_ARGUMENT, null,
                    "only a non-empty direct ByteBuffer can be registered, got " + buffer);
        }
        if (access.remoteAtomic() && !atomics.available()) {
            throw new RdmaException(Kind.INVALID_ARGUMENT, null, "device " + name
                    + " has no atomic operations: memory cannot be registered for remote atomics");
        }
        long addr;
        try {
            addr = MemoryUtils.getAddress(buffer);
        } catch (IllegalAccessError e) {
            throw new RdmaException(Kind.NOT_AVAILABLE, null, "DiSNI cannot read buffer addresses: start the JVM with "
                    + RdmaAvailability.JVM_FLAG, e);
        }
        int flags = ACCESS_LOCAL_WRITE | (access.remoteRead() ? ACCESS_REMOTE_READ : 0)
                | (access.remoteWrite() ? ACCESS_REMOTE_WRITE : 0) | (access.remoteAtomic() ? ACCESS_REMOTE_ATOMIC : 0);
        IbvMr mr;
        try {
            var call = pd.regMr(addr, buffer.capacity(), flags);
            mr = call.execute().getMr();
            call.free();
        } catch (IOException e) {
            throw new RdmaException(Kind.NOT_AVAILABLE, null, "registering " + buffer.capacity() + " bytes on "
                    + name + " failed: " + e.getMessage()
                    + (e.getMessage() != null && e.getMessage().contains("errno 12")
                            ? " (locked-memory limit: raise ulimit -l / LimitMEMLOCK)" : ""), e);
        }
        DisniRegisteredMemory m = new DisniRegisteredMemory(this, buffer, access, mr, addr);
        registrations.add(m);
        return m;
    }

    void forget(DisniRegisteredMemory m) {
        registrations.remove(m);
    }

    @Override
    public RdmaListener listen(int port) throws RdmaException {
        return listen(port, null);
    }

    @Override
    public RdmaListener listen(int port, ConnectionAdmission.Gate gate) throws RdmaException {
        requireOpen();
        if (gate != null && gate.authenticates() && CreelVerbs.missing() != null) {
            throw new RdmaException(Kind.NOT_AVAILABLE, null, "cannot admit RDMA connections by the cluster secret: "
                    + CreelVerbs.missing());
        }
        try {
            DisniListener l = loop.call(() -> new DisniListener(this, loop, port, gate))
                    .get(SETUP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            listeners.add(l);
            return l;
        } catch (ExecutionException e) {
            throw new RdmaException(Kind.NOT_AVAILABLE, null, "cannot listen on " + address.getHostAddress() + ":"
                    + port + ": " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new RdmaException(Kind.TIMEOUT, null, "listening on " + address.getHostAddress() + ":" + port
                    + " did not complete within " + SETUP_TIMEOUT_MS + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RdmaException(Kind.CLOSED, null, "interrupted while starting to listen", e);
        }
    }

    void forget(DisniListener listener) {
        listeners.remove(listener);
    }

    @Override
    public CompletableFuture<RdmaConnection> connect(InetSocketAddress peer) {
        return connect(peer, null);
    }

    @Override
    public CompletableFuture<RdmaConnection> connect(InetSocketAddress peer, ClientAuthentication auth) {
        if (auth != null && CreelVerbs.missing() != null) {
            return CompletableFuture.failedFuture(new RdmaException(Kind.NOT_AVAILABLE, peer, "cannot prove the "
                    + "cluster secret to " + peer + ": " + CreelVerbs.missing()));
        }
        return ConnectionAdmission.connect(peer, auth, data -> connectOnce(peer, data));
    }

    /** One connection-manager connect carrying {@code privateData} (null: none). */
    private CompletableFuture<ConnectionAdmission.Setup> connectOnce(InetSocketAddress peer, byte[] privateData) {
        CompletableFuture<ConnectionAdmission.Setup> result = new CompletableFuture<>();
        if (!open.get()) {
            result.completeExceptionally(new RdmaException(Kind.CLOSED, peer, "connect to " + peer
                    + " refused: device " + name + " is closed"));
            return result;
        }
        ConnectAttempt attempt = new ConnectAttempt(this, loop, peer, privateData, result,
                System.nanoTime() + settings.connectTimeout().toNanos());
        attempts.add(attempt);
        loop.execute(attempt::start);
        return result;
    }

    void attemptFinished(ConnectAttempt attempt) {
        attempts.remove(attempt);
    }

    /** Creates the queue pair of an outgoing connection (loop thread). */
    DisniConnection newConnection(RdmaCmId id, InetSocketAddress peer) throws IOException {
        int depth = settings.queueDepth();
        if (reservedCompletions.addAndGet(depth) > settings.completionQueueSize()) {
            reservedCompletions.addAndGet(-depth);
            throw new RdmaException(Kind.NOT_AVAILABLE, peer, "device " + name + " has no room for another connection: "
                    + connections.size() + " connections x queue depth " + depth + " fill the completion queue ("
                    + RdmaSettings.CQ_SIZE + " = " + settings.completionQueueSize() + ")");
        }
        try {
            requireSameContext(id);
            IbvQP qp = id.createQP(pd, queuePairAttributes(depth, 1));
            DisniConnection c = new DisniConnection(this, nextConnectionId.getAndIncrement(), id, qp, peer);
            connections.put(c.connectionId(), c);
            return c;
        } catch (IOException | RuntimeException e) {
            reservedCompletions.addAndGet(-depth);
            throw e;
        }
    }

    /** Creates the queue pair of an accepted connection, which posts nothing (loop thread). */
    IbvQP passiveQueuePair(RdmaCmId id) throws IOException {
        requireSameContext(id);
        return id.createQP(pd, queuePairAttributes(1, 1));
    }

    private void requireSameContext(RdmaCmId id) throws IOException {
        IbvContext other = id.getVerbs();
        if (other == null || other.getCmd_fd() != context.getCmd_fd()) {
            throw new IOException("the peer is reached through another RDMA device than " + name + " at "
                    + address.getHostAddress());
        }
    }

    private IbvQPInitAttr queuePairAttributes(int sendDepth, int receiveDepth) {
        IbvQPInitAttr attr = new IbvQPInitAttr();
        attr.cap().setMax_send_wr(sendDepth);
        attr.cap().setMax_recv_wr(receiveDepth);
        attr.cap().setMax_send_sge(1);
        attr.cap().setMax_recv_sge(1);
        attr.cap().setMax_inline_data(0);
        attr.setQp_type(IbvQP.IBV_QPT_RC);
        attr.setSend_cq(cq);
        attr.setRecv_cq(cq);
        return attr;
    }

    /** A connection gave its queue pair back: free its id on the loop and its completion entries. */
    void released(DisniConnection c) {
        if (connections.remove(c.connectionId(), c)) {
            reservedCompletions.addAndGet(-settings.queueDepth());
        }
        RdmaCmId id = c.cmId();
        loop.execute(() -> {
            loop.unregister(id);
            try {
                id.destroyId();
            } catch (IOException e) {
                LOG.debug("destroying the RDMA id of the connection to {}: {}", c.peer(), e.getMessage());
            }
        });
    }

    /** A work completion from the poller thread. */
    private void completion(long wrId, int status) {
        DisniConnection c = connections.get(WorkRequestTable.connectionIdOf(wrId));
        if (c == null) {
            return; // a connection that is gone: its operations were failed when it broke
        }
        c.completion(wrId, status);
    }

    private void sweep() {
        long now = System.nanoTime();
        for (DisniConnection c : List.copyOf(connections.values())) {
            c.expire(now);
        }
        if (!attempts.isEmpty()) {
            for (ConnectAttempt a : List.copyOf(attempts)) {
                loop.execute(() -> a.checkDeadline(now));
            }
        }
    }

    private void requireOpen() throws RdmaException {
        if (!open.get()) {
            throw new RdmaException(Kind.CLOSED, null, "device " + name + " is closed");
        }
    }

    @Override
    public void close() {
        if (!open.compareAndSet(true, false)) {
            return;
        }
        if (timer != null) {
            timer.shutdownNow();
        }
        for (DisniConnection c : List.copyOf(connections.values())) {
            c.close();
        }
        try {
            loop.call(() -> {
                for (ConnectAttempt a : List.copyOf(attempts)) {
                    a.cancel("device " + name + " was closed");
                }
                for (DisniListener l : List.copyOf(listeners)) {
                    l.closeOnLoop();
                }
                return null;
            }).get(SETUP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("closing the connections of RDMA device {} did not finish: {}", name, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        boolean pollerStopped = poller == null || poller.stop();
        for (DisniRegisteredMemory m : List.copyOf(registrations)) {
            try {
                m.close();
            } catch (RdmaException e) {
                LOG.warn("{}", e.getMessage());
            }
        }
        if (pollerStopped) {
            releaseVerbs();
        }
        // The anchor id, then the channel, as the loop's very last steps: rdma_destroy_id uses its
        // channel, so no id may outlive it (destroying them in the other order made librdmacm write
        // a command to whatever descriptor the freed channel's memory then held).
        loop.stop(this::releaseChannel, SETUP_TIMEOUT_MS);
    }

    /** Destroys the anchor id and the event channel (loop thread, after every other task). */
    private void releaseChannel() {
        try {
            if (anchor != null) {
                anchor.destroyId();
            }
        } catch (IOException e) {
            LOG.warn("releasing the RDMA id of device {} failed: {}", name, e.getMessage());
        }
        try {
            channel.destroyEventChannel();
        } catch (IOException e) {
            LOG.warn("destroying the RDMA event channel of {} failed: {}", name, e.getMessage());
        }
    }

    private void releaseVerbs() {
        try {
            if (cq != null) {
                cq.destroyCQ();
            }
            if (completionChannel != null) {
                completionChannel.destroyCompChannel();
            }
            if (pd != null) {
                pd.deallocPd();
            }
        } catch (Exception e) {
            LOG.warn("releasing the verbs resources of RDMA device {} failed: {}", name, e.toString());
        }
    }

    @Override
    public String toString() {
        return "RDMA device " + name + " at " + address.getHostAddress();
    }
}
