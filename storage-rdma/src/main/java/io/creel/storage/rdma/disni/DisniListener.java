package io.creel.storage.rdma.disni;

import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmEvent.EventType;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import io.creel.storage.rdma.ConnectionAdmission;
import io.creel.storage.rdma.RdmaListener;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accepts connections on the connection-manager loop and keeps their queue pairs. An accepted queue
 * pair posts nothing: peers read and write this side's registered memory one-sidedly. With a
 * {@link ConnectionAdmission.Gate} a connect request is decided before its queue pair exists: a
 * rejected one never gets one.
 */
final class DisniListener implements RdmaListener, CmEventLoop.Handler {
    private static final Logger LOG = LoggerFactory.getLogger(DisniListener.class);

    private final DisniRdmaDevice device;
    private final CmEventLoop loop;
    private final RdmaCmId id;
    private final InetSocketAddress address;
    private final Map<RdmaCmId, Accepted> accepted = new HashMap<>(); // loop thread only
    private final AtomicInteger established = new AtomicInteger();
    private volatile boolean open = true;
    private boolean released; // loop thread only
    /** Decides connect requests; null admits every one. */
    private final ConnectionAdmission.Gate gate;

    /** One accepted peer: its id and queue pair, and whether ESTABLISHED arrived. */
    private static final class Accepted {
        final RdmaCmId id;
        boolean established;

        Accepted(RdmaCmId id) {
            this.id = id;
        }
    }

    /** Binds and listens (loop thread). */
    DisniListener(DisniRdmaDevice device, CmEventLoop loop, int port, ConnectionAdmission.Gate gate)
            throws IOException {
        this.device = device;
        this.gate = gate;
        this.loop = loop;
        this.id = loop.createId();
        try {
            id.bindAddr(new InetSocketAddress(device.address(), port));
            id.listen(device.settings().listenBacklog());
            InetSocketAddress bound = (InetSocketAddress) id.getSource();
            this.address = bound != null ? bound : new InetSocketAddress(device.address(), port);
        } catch (IOException e) {
            id.destroyId();
            throw e;
        }
        loop.register(id, this);
    }

    @Override
    public InetSocketAddress localAddress() {
        return address;
    }

    @Override
    public int connectionCount() {
        return established.get();
    }

    @Override
    public void onEvent(EventType type, RdmaCmEvent event) {
        if (type == EventType.RDMA_CM_EVENT_CONNECT_REQUEST) {
            accept(event.getConnIdPriv());
        } else if (type == EventType.RDMA_CM_EVENT_DEVICE_REMOVAL) {
            LOG.error("RDMA device {} was removed; the listener at {} stops", device.name(), address);
            close();
        }
    }

    private void accept(RdmaCmId child) {
        if (!open) {
            destroy(child);
            return;
        }
        byte[] answer = null;
        if (gate != null) {
            byte[] request = CreelVerbs.missing() == null ? CreelVerbs.takePrivateData(child) : null;
            ConnectionAdmission.Verdict v = gate.admit(request, peerOf(child));
            if (!v.accept()) {
                try {
                    CreelVerbs.reject(child, v.privateData());
                } catch (IOException e) {
                    LOG.warn("rejecting an RDMA connection on {} failed: {}", address, e.getMessage());
                }
                destroy(child);
                return;
            }
            answer = v.privateData();
        }
        try {
            IbvQP qp = device.passiveQueuePair(child);
            if (qp == null) {
                destroy(child);
                return;
            }
            Accepted a = new Accepted(child);
            accepted.put(child, a);
            loop.register(child, (type, event) -> onChildEvent(a, type));
            if (answer != null) {
                CreelVerbs.accept(child, answer);
            } else {
                child.accept(new RdmaConnParam());
            }
        } catch (IOException e) {
            LOG.warn("accepting an RDMA connection on {} failed: {}", address, e.getMessage());
            forget(child);
        }
    }

    private void onChildEvent(Accepted a, EventType type) {
        switch (type) {
            case RDMA_CM_EVENT_ESTABLISHED -> {
                a.established = true;
                established.incrementAndGet();
            }
            case RDMA_CM_EVENT_DISCONNECTED, RDMA_CM_EVENT_CONNECT_ERROR, RDMA_CM_EVENT_UNREACHABLE,
                    RDMA_CM_EVENT_REJECTED -> forget(a.id);
            default -> LOG.debug("listener {}: ignoring {}", address, type);
        }
    }

    private static String peerOf(RdmaCmId child) {
        try {
            return String.valueOf(child.getDestination());
        } catch (IOException e) {
            return "a peer";
        }
    }

    /** Disconnects an accepted peer and frees its queue pair and id (loop thread). */
    private void forget(RdmaCmId child) {
        Accepted a = accepted.remove(child);
        if (a != null && a.established) {
            established.decrementAndGet();
        }
        loop.unregister(child);
        try {
            child.disconnect();
        } catch (IOException e) {
            LOG.debug("disconnecting an accepted peer of {}: {}", address, e.getMessage());
        }
        if (child.getQp() != null && child.getQp().isOpen()) {
            try {
                child.destroyQP();
            } catch (IOException e) {
                LOG.warn("destroying an accepted queue pair of {} failed: {}", address, e.getMessage());
            }
        }
        destroy(child);
    }

    private void destroy(RdmaCmId child) {
        try {
            child.destroyId();
        } catch (IOException e) {
            LOG.warn("destroying an accepted RDMA id of {} failed: {}", address, e.getMessage());
        }
    }

    @Override
    public void close() {
        if (!open) {
            return;
        }
        open = false;
        loop.execute(this::closeOnLoop);
    }

    /** Releases everything (loop thread); also called when the device closes. */
    void closeOnLoop() {
        open = false;
        if (released) {
            return;
        }
        released = true;
        for (RdmaCmId child : Map.copyOf(accepted).keySet()) {
            forget(child);
        }
        loop.unregister(id);
        try {
            id.destroyId();
        } catch (IOException e) {
            LOG.debug("destroying the listening id of {}: {}", address, e.getMessage());
        }
        device.forget(this);
    }
}
