package io.creel.storage.rdma.transport;

import io.creel.common.conf.CreelConf;
import io.creel.common.security.RpcSecurity;
import io.creel.storage.rdma.RdmaException;
import io.creel.storage.rdma.tier.RdmaExportLayout;
import io.creel.storage.rdma.tier.RdmaFabric;
import io.creel.storage.rdma.tier.RdmaTierKeys;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What every RDMA transport of one process shares: the device (through the fabric), the registered
 * buffer pool, and one {@link Endpoint} per storage server. Transports come and go with the
 * clients' transport selectors; the runtime lives while any transport is open and is released with
 * the last, so a process that stops using RDMA gives its pinned memory and connections back.
 * Settings come from the configuration of the first transport opened.
 */
final class RdmaClientRuntime {
    private static final Map<RdmaFabric, RdmaClientRuntime> RUNTIMES = new IdentityHashMap<>();

    private final RdmaFabric fabric;
    private final RdmaFabric.Lease lease;
    private final BufferPool pool;
    private final ScheduledExecutorService timer;
    /** What endpoints prove to exporters (the cluster secret), from the first transport's configuration. */
    private final RpcSecurity security;
    private final Map<EndpointKey, Endpoint> endpoints = new HashMap<>();
    private int users;

    /** A server's export, named by its RDMA address and its medium's token (new after a restart). */
    private record EndpointKey(InetSocketAddress address, long token) {
    }

    private RdmaClientRuntime(RdmaFabric fabric, RdmaFabric.Lease lease, BufferPool pool,
                              ScheduledExecutorService timer, RpcSecurity security) {
        this.fabric = fabric;
        this.security = security;
        this.lease = lease;
        this.pool = pool;
        this.timer = timer;
    }

    /** The process's runtime on {@code fabric}, started if there is none; release it when done. */
    static RdmaClientRuntime acquire(RdmaFabric fabric, CreelConf conf) throws RdmaException {
        synchronized (RUNTIMES) {
            RdmaClientRuntime r = RUNTIMES.get(fabric);
            if (r == null) {
                r = start(fabric, conf);
                RUNTIMES.put(fabric, r);
            }
            r.users++;
            return r;
        }
    }

    private static RdmaClientRuntime start(RdmaFabric fabric, CreelConf conf) throws RdmaException {
        RpcSecurity security = RpcSecurity.of(conf);
        RdmaFabric.Lease lease = fabric.acquire(fabric.localAddress(conf), RdmaTierKeys.settings(conf));
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "creel-rdma-client-timer");
            t.setDaemon(true);
            return t;
        });
        try {
            BufferPool pool = new BufferPool(lease.device(), (int) (long) conf.get(RdmaTierKeys.BUFFER_SIZE),
                    conf.get(RdmaTierKeys.BUFFER_COUNT), timer,
                    Duration.ofMillis(conf.get(RdmaTierKeys.OPERATION_TIMEOUT_MS)));
            return new RdmaClientRuntime(fabric, lease, pool, timer, security);
        } catch (RdmaException | RuntimeException e) {
            timer.shutdownNow();
            lease.close();
            throw e;
        }
    }

    BufferPool pool() {
        return pool;
    }

    /** Whether the client's device can compare-and-swap (so it can claim tags, so it can write). */
    boolean deviceHasAtomics() {
        return lease.device().atomics().available();
    }

    /** The shared endpoint of a server's export. */
    Endpoint endpoint(RdmaExportLayout layout, long token, String server) throws RdmaException {
        EndpointKey key = new EndpointKey(layout.endpoint(), token);
        synchronized (RUNTIMES) {
            Endpoint e = endpoints.get(key);
            if (e == null) {
                e = new Endpoint(lease.device(), layout, server, security.clientAuthentication());
                endpoints.put(key, e);
            }
            return e;
        }
    }

    /** Endpoints this runtime holds (tests). */
    int endpointCount() {
        synchronized (RUNTIMES) {
            return endpoints.size();
        }
    }

    /** One user is done; the last closes the endpoints, the buffers and its share of the device. */
    void release() {
        List<Endpoint> closing;
        synchronized (RUNTIMES) {
            if (--users > 0) {
                return;
            }
            RUNTIMES.remove(fabric, this);
            closing = List.copyOf(endpoints.values());
            endpoints.clear();
        }
        closing.forEach(Endpoint::close);
        pool.close();
        timer.shutdownNow();
        lease.close();
    }
}
