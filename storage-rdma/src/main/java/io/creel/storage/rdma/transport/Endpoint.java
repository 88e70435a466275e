package io.creel.storage.rdma.transport;

import io.creel.common.security.ClientAuthentication;
import io.creel.storage.rdma.MemoryAccess;
import io.creel.storage.rdma.RdmaConnection;
import io.creel.storage.rdma.RdmaDevice;
import io.creel.storage.rdma.RdmaException;
import io.creel.storage.rdma.RegisteredMemory;
import io.creel.storage.rdma.tier.RdmaExportLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This process's RDMA connection to one storage server's export, shared by every transport that
 * reaches the server: connected on first use, connected again on the next use after it broke.
 * Connecting ends with one compare-and-swap of the server's probe word (see
 * {@link RdmaExportLayout#PROBE}): only when it returns the probe value do the two devices agree on
 * atomics, and only then do writes (which claim tags with compare-and-swap) go over this connection.
 */
final class Endpoint implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Endpoint.class);

    /** A connected link and whether it may write. */
    record Link(RdmaConnection connection, String notWritable) {
        boolean writable() {
            return notWritable == null;
        }
    }

    private final RdmaDevice device;
    private final RdmaExportLayout layout;
    private final String server;
    private final RegisteredMemory scratch;
    private final ClientAuthentication auth;
    private CompletableFuture<Link> link;
    private boolean closed;

    /**
     * @param server the server, for messages ("storage server h:p")
     * @param auth   proves the cluster secret to the exporter at each connect; null without one
     * @throws RdmaException when the probe's scratch word cannot be registered
     */
    Endpoint(RdmaDevice device, RdmaExportLayout layout, String server, ClientAuthentication auth)
            throws RdmaException {
        this.device = device;
        this.auth = auth;
        this.layout = layout;
        this.server = server;
        this.scratch = device.register(ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder()), MemoryAccess.LOCAL);
    }

    /** The peer's RDMA address. */
    InetSocketAddress peer() {
        return layout.endpoint();
    }

    /** The connection: the open one, or a new attempt if there is none or it broke. */
    synchronized CompletableFuture<Link> link() {
        if (closed) {
            return CompletableFuture.failedFuture(new RdmaException(RdmaException.Kind.CLOSED, peer(),
                    "the RDMA endpoint of " + server + " is closed"));
        }
        CompletableFuture<Link> current = link;
        if (current != null && (!current.isDone() || (!current.isCompletedExceptionally()
                && current.join().connection().isOpen()))) {
            return current;
        }
        CompletableFuture<Link> fresh = device.connect(peer(), auth).thenCompose(this::probe);
        fresh.whenComplete((l, t) -> {
            if (t != null) {
                RdmaException why = RdmaException.find(t);
                LOG.info("RDMA connection to {} failed: {}", server, why != null ? why.getMessage() : t.toString());
            } else if (!l.writable()) {
                LOG.info("RDMA to {}: reads only, writes use another transport: {}", server, l.notWritable());
            }
        });
        link = fresh;
        return fresh;
    }

    private CompletableFuture<Link> probe(RdmaConnection c) {
        if (layout.probe() == null || !layout.atomics().available()) {
            return CompletableFuture.completedFuture(new Link(c, "the server's RDMA device has no atomic operations"));
        }
        if (!device.atomics().available()) {
            return CompletableFuture.completedFuture(new Link(c, "this client's RDMA device " + device.name()
                    + " has no atomic operations"));
        }
        return c.compareAndSwap(scratch, 0, layout.probe(), 0, RdmaExportLayout.PROBE, RdmaExportLayout.PROBE, false)
                .thenApply(v -> {
                    long got = scratch.buffer().getLong(0);
                    return new Link(c, got == RdmaExportLayout.PROBE ? null
                            : "the devices disagree on compare-and-swap (the probe word read 0x" + Long.toHexString(got)
                                    + ", expected 0x" + Long.toHexString(RdmaExportLayout.PROBE) + ")");
                });
    }

    /** Closes the connection and the scratch registration. */
    @Override
    public void close() {
        CompletableFuture<Link> l;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            l = link;
        }
        if (l != null) {
            l.whenComplete((x, t) -> {
                if (x != null) {
                    x.connection().close();
                }
                closeScratch();
            });
        } else {
            closeScratch();
        }
    }

    private void closeScratch() {
        try {
            scratch.close();
        } catch (RdmaException e) {
            LOG.debug("{}", e.getMessage());
        }
    }
}
