package io.creel.ops;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.net.HostPort;
import io.creel.common.rpc.RpcProbes;
import io.creel.namenode.NamenodeKeys;
import io.creel.namenode.NamenodeServer;
import io.creel.ops.health.DaemonReadiness;
import io.creel.ops.health.Readiness;
import io.creel.ops.http.OpsHttpServer;
import io.creel.ops.metrics.BuildMetrics;
import io.creel.ops.metrics.CreelMetrics;
import io.creel.ops.metrics.NamenodeMetrics;
import io.creel.ops.metrics.RpcMetrics;
import io.creel.ops.metrics.StorageServerMetrics;
import io.creel.ops.metrics.TransferMetrics;
import io.creel.ops.status.StatusPage;
import io.creel.storage.StorageKeys;
import io.creel.storage.runtime.StorageServerRuntime;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The HTTP side of one daemon process as {@code bin/creel} runs it: started from the daemon's
 * configuration ({@link OpsKeys}), off when {@code creel.http.port} is 0. A namenode's (and a local
 * cluster's) server starts before the daemon itself, so probes get "live" and a 503 "starting"
 * while it restores its namespace, and the RPC metrics see every connection;
 * {@link #namenodeServing} / {@link #clusterServing} then attach the daemon.
 */
public final class DaemonHttp implements AutoCloseable {
    private final OpsHttpServer server;
    private final PrometheusRegistry registry;
    /** The daemon's readiness once it is up; null while it starts. */
    private final AtomicReference<Readiness> serving;
    private final AtomicReference<StatusPage.Source> pageSource;
    private final RpcMetrics rpc;
    /** The partitions (creel.namenode.address) and which one this namenode is; null for a storage server. */
    private final List<HostPort> partitions;
    private final int self;

    private DaemonHttp(OpsHttpServer server, PrometheusRegistry registry, AtomicReference<Readiness> serving,
                       AtomicReference<StatusPage.Source> pageSource, RpcMetrics rpc, List<HostPort> partitions,
                       int self) {
        this.partitions = partitions;
        this.self = self;
        this.server = server;
        this.registry = registry;
        this.serving = serving;
        this.pageSource = pageSource;
        this.rpc = rpc;
    }

    /**
     * For {@code bin/creel namenode}: the HTTP server of a namenode about to start, or empty when
     * {@code creel.http.port} is 0.
     *
     * @param self which entry of creel.namenode.address (its partition) this namenode is
     */
    public static Optional<DaemonHttp> namenode(CreelConf conf, int self) {
        int port = conf.get(OpsKeys.HTTP_PORT);
        if (port == 0) {
            return Optional.empty();
        }
        List<HostPort> partitions = conf.get(ConfKeys.NAMENODE_ADDRESS);
        String name = "namenode " + partitions.get(self);
        return Optional.of(starting(name, host(conf, conf.get(NamenodeKeys.BIND_HOST)), port,
                name + " is starting: restoring its namespace or binding its RPC port", partitions, self));
    }

    /** The namenode this server reports on now serves: it is ready, its metrics and page appear. */
    public void namenodeServing(NamenodeServer nn) {
        if (partitions == null) {
            throw new IllegalStateException("this HTTP server is a storage server's, not a namenode's");
        }
        attach(DaemonReadiness.namenode("namenode", () -> nn), nn, partitions);
        NamenodeMetrics.register(registry, nn);
    }

    /**
     * For {@code bin/creel local}: one HTTP server for a whole cluster in one process, started before
     * the cluster.
     *
     * @param port the port; 0 picks a free one
     */
    public static DaemonHttp localCluster(String host, int port) {
        return starting("local cluster", host, port, "local cluster is starting", List.of(), 0);
    }

    /**
     * The local cluster is up: ready when its namenodes serve and every storage server is
     * registered with each; the metrics and the status page are the first namenode's view.
     */
    public void clusterServing(List<NamenodeServer> namenodes, List<HostPort> namenodeAddresses,
                               List<StorageServerRuntime> servers) {
        List<Readiness> parts = new ArrayList<>();
        for (int i = 0; i < namenodes.size(); i++) {
            NamenodeServer nn = namenodes.get(i);
            parts.add(DaemonReadiness.namenode("namenode " + namenodeAddresses.get(i), () -> nn));
        }
        servers.forEach(s -> parts.add(DaemonReadiness.storageServer(s, namenodeAddresses)));
        attach(Readiness.allOf(parts), namenodes.get(0), namenodeAddresses);
        NamenodeMetrics.register(registry, namenodes.get(0));
        StorageServerMetrics.register(registry, servers, namenodeAddresses);
    }

    /**
     * For {@code bin/creel datanode}: the HTTP server of a started storage server, or empty when
     * {@code creel.http.port} is 0. It is ready once every namenode accepted the server.
     */
    public static Optional<DaemonHttp> storageServer(CreelConf conf, StorageServerRuntime server) {
        int port = conf.get(OpsKeys.HTTP_PORT);
        if (port == 0) {
            return Optional.empty();
        }
        List<HostPort> namenodes = conf.get(ConfKeys.NAMENODE_ADDRESS);
        DaemonHttp http = starting(server.info().tier() + " storage server " + server.info().address(),
                host(conf, conf.get(StorageKeys.BIND_HOST)), port, "storage server is starting", null, 0);
        http.serving.set(DaemonReadiness.storageServer(server, namenodes));
        StorageServerMetrics.register(http.registry, List.of(server), namenodes);
        return Optional.of(http);
    }

    /**
     * Starts a server whose readiness is {@code startingReason} until a daemon is attached. Every
     * daemon process reports its build, its RPC servers, its data-plane transfers and its JVM; a namenode's (one with
     * {@code partitions}) serves the status page.
     */
    private static DaemonHttp starting(String name, String host, int port, String startingReason,
                                       List<HostPort> partitions, int self) {
        PrometheusRegistry registry = new PrometheusRegistry();
        BuildMetrics.register(registry);
        TransferMetrics.register(registry);
        // Heap, direct buffers (the transports' pools), GC pauses, threads, process CPU and memory.
        JvmMetrics.builder().register(registry);
        AtomicReference<Readiness> serving = new AtomicReference<>();
        AtomicReference<StatusPage.Source> pageSource = new AtomicReference<>();
        Readiness ready = () -> {
            Readiness r = serving.get();
            return r == null ? startingReason : r.whyNotReady();
        };
        OpsHttpServer.Page statusPage = partitions == null ? null : () -> StatusPage.render(name, pageSource.get());
        RpcMetrics rpc = CreelMetrics.rpcServers(registry);
        try {
            return new DaemonHttp(OpsHttpServer.start(name, host, port,
                    new OpsHttpServer.Endpoints(ready, registry, statusPage)), registry, serving, pageSource, rpc,
                    partitions, self);
        } catch (RuntimeException e) {
            RpcProbes.uninstall(rpc);
            throw e;
        }
    }

    private void attach(Readiness ready, NamenodeServer page, List<HostPort> pagePartitions) {
        if (!serving.compareAndSet(null, ready)) {
            throw new IllegalStateException("this HTTP server already reports on a running daemon");
        }
        pageSource.set(new StatusPage.Source(page, pagePartitions, self, rpc.recentErrors()));
    }

    private static String host(CreelConf conf, String daemonBindHost) {
        String h = conf.get(OpsKeys.HTTP_HOST);
        return h.isEmpty() ? daemonBindHost : h;
    }

    /** The port the HTTP server listens on. */
    public int port() {
        return server.port();
    }

    @Override
    public void close() {
        server.close();
        RpcProbes.uninstall(rpc);
    }
}
