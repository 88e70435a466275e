package io.creel.storage.rdma.disni;

import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmEvent.EventType;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import io.creel.storage.rdma.ConnectionAdmission;
import io.creel.storage.rdma.RdmaException;
import io.creel.storage.rdma.RdmaException.Kind;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The active side of connection setup, as a state machine on the connection-manager loop:
 * bind to the device's address, resolve the peer's address, resolve the route, create the queue
 * pair, connect, wait for ESTABLISHED. Every failure event and the deadline end it with an error
 * that names the peer and the step.
 */
final class ConnectAttempt implements CmEventLoop.Handler {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectAttempt.class);
    /** rdma_cm retries of the transport and of receiver-not-ready; 7 is the protocol's maximum ("infinite" for RNR). */
    private static final byte RETRIES = 7;

    private enum Step {
        RESOLVING_ADDRESS("resolving the address"),
        RESOLVING_ROUTE("resolving the route"),
        CONNECTING("waiting for the peer to accept"),
        DONE("done");

        final String text;

        Step(String text) {
            this.text = text;
        }
    }

    private final DisniRdmaDevice device;
    private final CmEventLoop loop;
    private final InetSocketAddress peer;
    private final CompletableFuture<ConnectionAdmission.Setup> result;
    /** The connect's private data (null: none, through DiSNI's own connect). */
    private final byte[] privateData;
    private final long deadlineNanos;
    private Step step = Step.RESOLVING_ADDRESS;
    private RdmaCmId id;
    private DisniConnection connection;

    ConnectAttempt(DisniRdmaDevice device, CmEventLoop loop, InetSocketAddress peer,
            byte[] privateData, CompletableFuture<ConnectionAdmission.Setup> result, long deadlineNanos) {
        this.device = device;
        this.privateData = privateData;
        this.loop = loop;
        this.peer = peer;
        this.result = result;
        this.deadlineNanos = deadlineNanos;
    }

    /** Starts resolving (loop thread). */
    void start() {
        try {
            id = loop.createId();
            loop.register(id, this);
            id.bindAddr(new InetSocketAddress(device.address(), 0));
            id.resolveAddr(null, peer, timeoutMillis());
        } catch (IOException e) {
            fail(Kind.UNREACHABLE, "cannot start: " + e.getMessage(), e);
        }
    }

    private int timeoutMillis() {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, device.settings().connectTimeout().toMillis()));
    }

    @Override
    public void onEvent(EventType type, RdmaCmEvent event) {
        try {
            switch (type) {
                case RDMA_CM_EVENT_ADDR_RESOLVED -> {
                    step = Step.RESOLVING_ROUTE;
                    id.resolveRoute(timeoutMillis());
                }
                case RDMA_CM_EVENT_ROUTE_RESOLVED -> {
                    step = Step.CONNECTING;
                    connection = device.newConnection(id, peer);
                    if (privateData != null) {
                        CreelVerbs.connect(id, RETRIES, privateData);
                    } else {
                        RdmaConnParam param = new RdmaConnParam();
                        param.setRetry_count(RETRIES);
                        param.setRnr_retry_count(RETRIES);
                        id.connect(param);
                    }
                }
                case RDMA_CM_EVENT_ESTABLISHED -> established();
                case RDMA_CM_EVENT_ADDR_ERROR -> fail(Kind.UNREACHABLE,
                        "no route to it through an RDMA device (address resolution failed)", null);
                case RDMA_CM_EVENT_ROUTE_ERROR -> fail(Kind.UNREACHABLE, "route resolution failed", null);
                case RDMA_CM_EVENT_UNREACHABLE -> fail(Kind.UNREACHABLE, "the peer is unreachable", null);
                case RDMA_CM_EVENT_REJECTED -> rejected();
                case RDMA_CM_EVENT_CONNECT_ERROR -> fail(Kind.UNREACHABLE, "connection error", null);
                case RDMA_CM_EVENT_DISCONNECTED -> fail(Kind.UNREACHABLE, "the peer disconnected during setup", null);
                case RDMA_CM_EVENT_DEVICE_REMOVAL -> fail(Kind.NOT_AVAILABLE,
                        "RDMA device " + device.name() + " was removed", null);
                default -> {
                    // ADDR_CHANGE, TIMEWAIT_EXIT, multicast: not steps of connection setup.
                }
            }
        } catch (RdmaException e) {
            fail(e.kind(), e.getMessage(), e);
        } catch (IOException e) {
            fail(Kind.UNREACHABLE, e.getMessage(), e);
        }
    }

    private void established() {
        if (step != Step.CONNECTING) {
            return;
        }
        step = Step.DONE;
        DisniConnection c = connection;
        loop.register(id, (type, event) -> c.onCmEvent(type));
        device.attemptFinished(this);
        byte[] acceptData = CreelVerbs.missing() == null ? CreelVerbs.takePrivateData(id) : null;
        if (!result.complete(new ConnectionAdmission.Setup(c, acceptData))) {
            c.close(); // the caller gave up meanwhile
        }
    }

    /**
     * Rejected: with private data a listener's answer (a challenge, or why it refused), which the
     * caller reads; without, nothing listens there or it refused without saying why.
     */
    private void rejected() {
        byte[] data = CreelVerbs.missing() == null ? CreelVerbs.takePrivateData(id) : null;
        // The kernel's own rejects (nothing listens on the port) carry zeroes, not a listener's answer.
        if (data == null || isZero(data) || step != Step.CONNECTING) {
            fail(Kind.UNREACHABLE, "the connection was rejected (nothing listens on port " + peer.getPort()
                    + ", or the peer refused)", null);
            return;
        }
        step = Step.DONE;
        Throwable failedRelease = release();
        if (failedRelease != null) {
            LOG.debug("releasing a rejected connect to {}: {}", peer, failedRelease.toString());
        }
        result.complete(ConnectionAdmission.Setup.rejected(data));
    }

    private static boolean isZero(byte[] data) {
        for (byte b : data) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    /** Ends the attempt with TIMEOUT when its deadline passed (loop thread). */
    void checkDeadline(long nowNanos) {
        if (step != Step.DONE && nowNanos - deadlineNanos > 0) {
            fail(Kind.TIMEOUT, "no answer within " + device.settings().connectTimeout().toMillis() + " ms while "
                    + step.text, null);
        }
    }

    /** Ends the attempt because the device closes (loop thread). */
    void cancel(String why) {
        if (step != Step.DONE) {
            fail(Kind.CLOSED, why, null);
        }
    }

    private void fail(Kind kind, String why, Throwable cause) {
        if (step == Step.DONE) {
            return;
        }
        Step at = step;
        step = Step.DONE;
        Throwable failedRelease = release();
        cause = cause == null ? failedRelease : cause;
        String message = "connect to " + peer + " failed while " + at.text + ": " + why;
        result.completeExceptionally(cause == null ? new RdmaException(kind, peer, message)
                : new RdmaException(kind, peer, message, cause));
    }

    /** Frees the attempt's queue pair and id (loop thread); returns what failed, if anything. */
    private Throwable release() {
        device.attemptFinished(this);
        if (connection != null) {
            connection.close(); // destroys the queue pair and, through the device, the id
        } else if (id != null) {
            loop.unregister(id);
            try {
                id.destroyId();
            } catch (IOException e) {
                return e;
            }
        }
        return null;
    }
}
