package io.creel.namenode;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.StatusReply;
import io.creel.common.net.HostPort;
import io.creel.common.rpc.EventLoops;
import io.creel.common.rpc.RpcConnections;
import io.creel.common.rpc.RpcListener;
import io.creel.common.rpc.RpcServer;
import io.creel.common.rpc.RpcTransport;
import io.creel.common.rpc.RpcTransports;
import io.creel.namenode.allocation.BlockAllocator;
import io.creel.namenode.allocation.ReplicationFactors;
import io.creel.namenode.replication.ReplicaRepair;
import io.creel.storage.spi.TransportContext;
import io.creel.storage.transport.BlockTransfers;
import io.creel.storage.transport.TransportSelector;
import io.creel.namenode.allocation.RegionBroker;
import io.creel.namenode.namespace.Namespace;
import io.creel.namenode.persistence.NamenodePersistence;
import io.creel.namenode.retry.RetryCache;
import io.creel.namenode.records.DataPlaneRecordStore;
import io.creel.namenode.records.RecordStore;
import io.creel.namenode.registry.ServerRegistry;
import io.creel.namenode.service.NamenodeService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running namenode: the namespace, block allocator and storage-server registry, served over
 * the frame protocol on one TCP port, and over another RPC transport at the same port number when
 * its address names one ({@code rdma://}; see {@link RpcTransport}). Directory records are written
 * through the data plane.
 */
public final class NamenodeServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NamenodeServer.class);

    private final RpcServer rpc;
    private final RpcListener alsoOver;
    private final RecordStore records;
    private final RpcConnections controlConnections;
    private final Namespace namespace;
    private final NamenodeService service;
    private final ScheduledFuture<?> releaser;
    /** Removes expiring nodes whose owners have been silent too long. */
    private final ScheduledFuture<?> expirer;
    private final EventLoops ownLoops;
    private final NamenodePersistence persistence;
    private final ReplicaRepair repair;

    private NamenodeServer(RpcServer rpc, RpcListener alsoOver, RecordStore records, RpcConnections controlConnections,
                           Namespace namespace, NamenodeService service, ScheduledFuture<?> releaser,
                           ScheduledFuture<?> expirer, EventLoops ownLoops, NamenodePersistence persistence,
                           ReplicaRepair repair) {
        this.expirer = expirer;
        this.persistence = persistence;
        this.repair = repair;
        this.rpc = rpc;
        this.alsoOver = alsoOver;
        this.records = records;
        this.controlConnections = controlConnections;
        this.namespace = namespace;
        this.service = service;
        this.releaser = releaser;
        this.ownLoops = ownLoops;
    }

    /**
     * Starts a namenode on shared event loops (not closed by {@link #close}).
     *
     * @param conf     configuration (block size, storage classes, reuse delay, server timeout)
     * @param bindHost interface to listen on
     * @param port     port to listen on; 0 picks a free one (see {@link #port()})
     * @param loops    event loops to serve on
     */
    public static NamenodeServer start(CreelConf conf, String bindHost, int port, EventLoops loops) {
        return start(conf, bindHost, port, loops, HostPort.SCHEME);
    }

    /**
     * Starts a namenode on shared event loops that also serves over the RPC transport of
     * {@code scheme} (its address's: "rdma" for {@code rdma://host:port}), on the port number TCP
     * got; {@link HostPort#SCHEME} serves TCP alone.
     */
    public static NamenodeServer start(CreelConf conf, String bindHost, int port, EventLoops loops, String scheme) {
        return start(conf, bindHost, port, loops, null, scheme);
    }

    /** Starts a namenode with its own event loops, closed by {@link #close}. */
    public static NamenodeServer start(CreelConf conf, String bindHost, int port) {
        return start(conf, bindHost, port, HostPort.SCHEME);
    }

    /** Starts a namenode with its own event loops that also serves over the transport of {@code scheme}. */
    public static NamenodeServer start(CreelConf conf, String bindHost, int port, String scheme) {
        EventLoops loops = EventLoops.create(conf, "creel-namenode");
        try {
            return start(conf, bindHost, port, loops, loops, scheme);
        } catch (RuntimeException e) {
            loops.close();
            throw e;
        }
    }

    private static NamenodeServer start(CreelConf conf, String bindHost, int port, EventLoops loops,
                                        EventLoops ownLoops, String scheme) {
        long blockSize = conf.get(ConfKeys.BLOCK_SIZE);
        long reuseDelay = conf.get(NamenodeKeys.REUSE_DELAY).toMillis();
        ServerRegistry registry = new ServerRegistry(conf.get(ConfKeys.STORAGE_CLASSES), blockSize,
                conf.get(NamenodeKeys.SERVER_TIMEOUT).toMillis(), System::currentTimeMillis);
        BlockAllocator allocator = new BlockAllocator(conf.get(ConfKeys.STORAGE_CLASSES), registry, reuseDelay,
                System::currentTimeMillis);
        allocator.useReplication(ReplicationFactors.parse(conf.get(NamenodeKeys.REPLICATION),
                conf.get(NamenodeKeys.REPLICATION_CLASSES)));
        allocator.useFirstBlockSize(conf.get(NamenodeKeys.FIRST_BLOCK_SIZE));
        RecordStore records = new DataPlaneRecordStore(conf, loops);
        long inlineMax = conf.get(NamenodeKeys.INLINE_MAX);
        if (inlineMax > Integer.MAX_VALUE) {
            throw new CreelException(ErrorCode.CONFIGURATION,
                    "creel.namenode.inline.max must be at most 64k: " + inlineMax);
        }
        Namespace namespace = new Namespace(allocator, records, blockSize, reuseDelay, (int) inlineMax,
                System::currentTimeMillis);
        long sessionTimeout = conf.get(NamenodeKeys.SESSION_TIMEOUT).toMillis();
        namespace.setSessionTimeout(sessionTimeout);
        if (!conf.get(io.creel.common.security.SecurityKeys.SECRET_FILE).isEmpty()) {
            // Identities are proven only with a cluster secret: without one, everyone may do anything.
            namespace.ownership().enforce(conf.get(NamenodeKeys.PERMISSIONS_UMASK));
        }
        RpcConnections controlConnections = new RpcConnections(loops, conf);
        RegionBroker regions = new RegionBroker(allocator, controlConnections);
        RetryCache answers = new RetryCache(conf.get(NamenodeKeys.RETRY_CACHE_SIZE),
                conf.get(NamenodeKeys.RETRY_CACHE_EXPIRY).toMillis(), System::currentTimeMillis);
        NamenodeService service = new NamenodeService(namespace, registry, allocator, regions, answers,
                conf.get(NamenodeKeys.RETRY_LEASE_HOLD).toMillis(), conf.maxFrameSize());
        NamenodePersistence persistence = null;
        RpcServer rpc = null;
        RpcListener alsoOver = null;
        try {
            if (!conf.get(NamenodeKeys.LOG_DIR).isEmpty()) {
                // Restored before serving: no call sees a namespace that is still being rebuilt.
                persistence = NamenodePersistence.open(conf, namespace, registry, allocator);
                answers.restore(persistence.restoredAnswers());
            }
            rpc = RpcServer.start("namenode", bindHost, port, loops, conf, service);
            if (!HostPort.SCHEME.equals(scheme)) {
                alsoOver = RpcTransports.forScheme(scheme).listen("namenode", bindHost, rpc.port(), service,
                        new RpcTransport.Context(conf, loops, conf.maxFrameSize(),
                                conf.get(ConfKeys.CLIENT_CONNECT_TIMEOUT), conf.get(ConfKeys.CLIENT_REQUEST_TIMEOUT)));
            }
        } catch (RuntimeException e) {
            if (rpc != null) {
                rpc.close();
            }
            if (persistence != null) {
                persistence.close();
            }
            records.close();
            controlConnections.close();
            throw e;
        }
        // Retirements are also ended lazily by every call; the timer returns blocks when the namenode is idle.
        long period = Math.max(50, Math.min(1000, reuseDelay / 2));
        long idleMillis = conf.get(NamenodeKeys.REGION_IDLE).toMillis();
        ScheduledFuture<?> releaser = loops.group().next().scheduleAtFixedRate(() -> {
            namespace.releaseDue();
            regions.releaseIdle(idleMillis);
            service.checkDrained();
            try {
                service.moveRecordsOffDeadServers();
            } catch (RuntimeException e) {
                // Never end the timer: the next write into each container still moves its records.
                LOG.warn("moving directory records off dead storage servers failed: {}", e.toString(), e);
            }
        }, period, period, TimeUnit.MILLISECONDS);
        // Expired nodes go within a tenth of the timeout after it (at most a second): a test or an
        // operator waits the timeout plus about one client heartbeat.
        long expiryPeriod = Math.max(20, Math.min(1000, sessionTimeout / 10));
        ScheduledFuture<?> expirer = loops.group().next().scheduleAtFixedRate(() -> {
            try {
                namespace.expireDue();
            } catch (RuntimeException e) {
                // Never end the timer: the next tick tries again.
                LOG.warn("removing expired nodes failed: {}", e.toString(), e);
            }
        }, expiryPeriod, expiryPeriod, TimeUnit.MILLISECONDS);
        LOG.info("namenode serving on {}:{}{} (block size {}, storage classes {})", bindHost, rpc.port(),
                alsoOver == null ? "" : " and over " + scheme + "://", blockSize, String.join(",", allocator.classes()));
        // Copies go through transports of their own: a slow repair never queues behind directory records.
        BlockTransfers repairTransfers = new BlockTransfers(new TransportSelector(TransportSelector.loadProviders(),
                new TransportContext(conf, controlConnections)));
        ReplicaRepair repair = new ReplicaRepair(namespace, regions, repairTransfers,
                () -> java.util.List.of(registry.declaredDead(), registry.draining()),
                conf.get(NamenodeKeys.REPLICATION_BANDWIDTH), REPAIR_IDLE_MILLIS, System::nanoTime);
        service.useRepair(repair);
        repair.start();
        return new NamenodeServer(rpc, alsoOver, records, controlConnections, namespace, service, releaser, expirer,
                ownLoops, persistence, repair);
    }

    /** How often the replica repair looks for work when it found none (it looks at once when a server dies). */
    static final long REPAIR_IDLE_MILLIS = 500;

    /** What the replica repair found and did so far. */
    public io.creel.common.protocol.ReplicationProgress replication() {
        return repair.progress();
    }

    /** The port the namenode listens on. */
    public int port() {
        return rpc.port();
    }

    /** Requests answered from the retry cache so far: retries that were not applied again. */
    public long retriesAnswered() {
        return service.retryCache().replays();
    }

    /** Answers the retry cache keeps now (requests still running included). */
    public int retryCacheSize() {
        return service.retryCache().size();
    }

    /** Nodes in the namespace, the root included. */
    public long nodeCount() {
        return namespace.nodeCount();
    }

    /** Nodes in the namespace per type, by {@link io.creel.common.namespace.NodeType#ordinal()}, the root included. */
    public long[] nodeCountsByType() {
        return namespace.nodeCountsByType();
    }

    /** Nodes that expire with their owner's session or a time to live (their subtrees not counted). */
    public long expiringNodes() {
        return namespace.expiringNodes();
    }

    /** Expiring nodes removed since this namenode started because their owner stopped heartbeating. */
    public long expiredNodes() {
        return namespace.expiredNodes();
    }

    /** The cluster as this namenode sees it (the same answer as a STATUS call). */
    public StatusReply status() {
        return service.status();
    }

    /** The last fsck this namenode answered since it started, if any (the status page shows its lost blocks). */
    public java.util.Optional<NamenodeService.LastFsck> lastFsck() {
        return java.util.Optional.ofNullable(service.lastFsck());
    }

    /** The namespace's persistence, if {@code creel.namenode.log.dir} is set. */
    public java.util.Optional<NamenodePersistence> persistence() {
        return java.util.Optional.ofNullable(persistence);
    }

    /** Stops serving; closes the event loops only if this server created them. */
    @Override
    public void close() {
        releaser.cancel(false);
        expirer.cancel(false);
        repair.close();
        if (alsoOver != null) {
            alsoOver.close();
        }
        rpc.close();
        if (persistence != null) {
            persistence.close();
        }
        records.close();
        controlConnections.close();
        if (ownLoops != null) {
            ownLoops.close();
        }
    }
}
