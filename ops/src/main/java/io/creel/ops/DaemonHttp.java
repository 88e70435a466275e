package io.creel.ops;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.net.HostPort;
import io.creel.namenode.NamenodeKeys;
import io.creel.namenode.NamenodeServer;
import io.creel.ops.health.DaemonReadiness;
import io.creel.ops.health.Readiness;
import io.creel.ops.http.OpsHttpServer;
import io.creel.storage.StorageKeys;
import io.creel.storage.runtime.StorageServerRuntime;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The HTTP side of one daemon process as {@code bin/creel} runs it: started from the daemon's
 * configuration ({@link OpsKeys}), off when {@code creel.http.port} is 0. A namenode's server starts
 * before the namenode itself, so probes get "live" and a 503 "starting" while it restores its
 * namespace; {@link #namenodeServing} then makes it ready.
 */
public final class DaemonHttp implements AutoCloseable {
    private final OpsHttpServer server;
    private final PrometheusRegistry registry;
    private final AtomicReference<NamenodeServer> namenode;

    private DaemonHttp(OpsHttpServer server, PrometheusRegistry registry, AtomicReference<NamenodeServer> namenode) {
        this.server = server;
        this.registry = registry;
        this.namenode = namenode;
    }

    /**
     * For {@code bin/creel namenode}: the HTTP server of a namenode about to start, or empty when
     * {@code creel.http.port} is 0.
     *
     * @param name how the namenode is called in reasons and logs ("namenode host:port")
     */
    public static Optional<DaemonHttp> namenode(CreelConf conf, String name) {
        int port = conf.get(OpsKeys.HTTP_PORT);
        if (port == 0) {
            return Optional.empty();
        }
        AtomicReference<NamenodeServer> nn = new AtomicReference<>();
        PrometheusRegistry registry = new PrometheusRegistry();
        OpsHttpServer s = OpsHttpServer.start(name, host(conf, conf.get(NamenodeKeys.BIND_HOST)), port,
                new OpsHttpServer.Endpoints(DaemonReadiness.namenode(name, nn::get), registry, null));
        return Optional.of(new DaemonHttp(s, registry, nn));
    }

    /** The namenode this server reports on now serves: readiness turns to ready. */
    public void namenodeServing(NamenodeServer nn) {
        if (namenode == null || !namenode.compareAndSet(null, nn)) {
            throw new IllegalStateException("this HTTP server is not a starting namenode's");
        }
    }

    /**
     * For {@code bin/creel datanode}: the HTTP server of a started storage server, or empty when
     * {@code creel.http.port} is 0.
     */
    public static Optional<DaemonHttp> storageServer(CreelConf conf, StorageServerRuntime server) {
        int port = conf.get(OpsKeys.HTTP_PORT);
        if (port == 0) {
            return Optional.empty();
        }
        PrometheusRegistry registry = new PrometheusRegistry();
        Readiness ready = DaemonReadiness.storageServer(server, conf.get(ConfKeys.NAMENODE_ADDRESS));
        OpsHttpServer s = OpsHttpServer.start(server.info().tier() + " storage server " + server.info().address(),
                host(conf, conf.get(StorageKeys.BIND_HOST)), port, new OpsHttpServer.Endpoints(ready, registry, null));
        return Optional.of(new DaemonHttp(s, registry, null));
    }

    /**
     * For {@code bin/creel local}: one HTTP server for a whole cluster in one process, ready when its
     * namenodes serve and every storage server is registered.
     *
     * @param port the port; 0 picks a free one
     */
    public static DaemonHttp localCluster(String host, int port, List<NamenodeServer> namenodes,
                                          List<HostPort> namenodeAddresses, List<StorageServerRuntime> servers) {
        List<Readiness> parts = new ArrayList<>();
        for (int i = 0; i < namenodes.size(); i++) {
            NamenodeServer nn = namenodes.get(i);
            parts.add(DaemonReadiness.namenode("namenode " + namenodeAddresses.get(i), () -> nn));
        }
        servers.forEach(s -> parts.add(DaemonReadiness.storageServer(s, namenodeAddresses)));
        PrometheusRegistry registry = new PrometheusRegistry();
        OpsHttpServer s = OpsHttpServer.start("local cluster", host, port,
                new OpsHttpServer.Endpoints(Readiness.allOf(parts), registry, null));
        return new DaemonHttp(s, registry, null);
    }

    private static String host(CreelConf conf, String daemonBindHost) {
        String h = conf.get(OpsKeys.HTTP_HOST);
        return h.isEmpty() ? daemonBindHost : h;
    }

    /** The port the HTTP server listens on. */
    public int port() {
        return server.port();
    }

    /** The registry {@code /metrics} shows. */
    PrometheusRegistry registry() {
        return registry;
    }

    @Override
    public void close() {
        server.close();
    }
}
