package io.creel.storage.runtime;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostIdentity;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.HeartbeatReply;
import io.creel.common.protocol.HeartbeatRequest;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.RegisterReply;
import io.creel.common.protocol.RegisterRequest;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.rpc.EventLoops;
import io.creel.common.rpc.RpcConnections;
import io.creel.storage.StorageKeys;
import io.creel.storage.server.StorageServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one storage server: finds its tier by name, starts it, registers it with every namenode and
 * keeps it registered with heartbeats (registering again when a namenode forgets it). It never
 * knows which tier it runs.
 */
public final class StorageServerRuntime implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StorageServerRuntime.class);
    /**
     * How long a restarted namenode has to claim the regions holding its data (it does so right
     * after registering, retrying refusals for a few seconds) before they are free for anyone; and
     * the longest a server restarted on a volume holding data grants nothing while its namenodes claim.
     */
    static final long RESTART_CLAIM_MILLIS = 10_000;

    private final StorageServer service;
    private final RegionArbiter regions;
    private final EventLoops loops;
    private final boolean ownLoops;
    private final RpcConnections connections;
    private final List<Registration> registrations = new ArrayList<>();
    private final ScheduledExecutorService timer;
    private volatile Runnable decommissionAction;
    /** Set by {@link #close()}: a heartbeat it cuts short is no news worth a warning. */
    private volatile boolean closed;

    private StorageServerRuntime(StorageServer service, RegionArbiter regions, EventLoops loops, boolean ownLoops,
                                 RpcConnections connections, ScheduledExecutorService timer) {
        this.service = service;
        this.regions = regions;
        this.loops = loops;
        this.ownLoops = ownLoops;
        this.connections = connections;
        this.timer = timer;
    }

    /**
     * Starts a storage server of tier {@code tierName}, with its own event loops.
     * Registration with the namenodes proceeds in the background and is retried until it succeeds.
     */
    public static StorageServerRuntime start(CreelConf conf, String tierName) {
        EventLoops loops = EventLoops.create(conf, "creel-" + tierName);
        try {
            return start(conf, tierName, loops, true);
        } catch (RuntimeException e) {
            loops.close();
            throw e;
        }
    }

    /** Starts a storage server on shared event loops (for in-process clusters). */
    public static StorageServerRuntime start(CreelConf conf, String tierName, EventLoops loops) {
        return start(conf, tierName, loops, false);
    }

    private static StorageServerRuntime start(CreelConf conf, String tierName, EventLoops loops, boolean ownLoops) {
        String host = conf.get(StorageKeys.ADVERTISE_HOST).isEmpty() ? HostIdentity.hostName()
                : conf.get(StorageKeys.ADVERTISE_HOST);
        StorageServer server = StorageServer.open(conf, tierName, loops, host, HostIdentity.machineId());
        try {
            StorageServerInfo info = server.describe();
            int regionBlocks = (int) Math.max(1, Math.min(Integer.MAX_VALUE,
                    conf.get(StorageKeys.REGION_SIZE) / info.blockSize()));
            RegionArbiter regions = new RegionArbiter(tierName + " storage " + info.address(), info.blockCount(),
                    regionBlocks, server.tags());
            if (regions.holdsData()) {
                // Reopened with data: which namenode held which region died with the last process.
                regions.holdGrantsForClaims(conf.get(ConfKeys.NAMENODE_ADDRESS).size(), RESTART_CLAIM_MILLIS);
            }
            server.route(Opcode.REGION_GRANT, regions);
            server.route(Opcode.REGION_RELEASE, regions);
            server.route(Opcode.REGION_SYNC, regions);
            server.serve();
            LOG.info("{} storage server at {}: {}; {} regions of {} blocks", tierName, info.address(), server.summary(),
                    regions.regionCount(), regionBlocks);
            ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, "creel-heartbeat-" + tierName);
                t.setDaemon(true);
                return t;
            });
            timer.setRemoveOnCancelPolicy(true);
            StorageServerRuntime rt = new StorageServerRuntime(server, regions, loops, ownLoops,
                    new RpcConnections(loops, conf), timer);
            long interval = Math.max(10, conf.get(StorageKeys.HEARTBEAT_INTERVAL).toMillis());
            for (HostPort nn : conf.get(ConfKeys.NAMENODE_ADDRESS)) {
                Registration r = new Registration(rt, nn);
                rt.registrations.add(r);
                timer.scheduleWithFixedDelay(r::tick, 0, interval, TimeUnit.MILLISECONDS);
            }
            return rt;
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /** The server as described to namenodes. */
    public StorageServerInfo info() {
        return service.describe();
    }

    /** Whether every namenode has accepted the registration. */
    public boolean isRegistered() {
        return registrations.stream().allMatch(r -> r.serverId != 0);
    }

    /** Waits until every namenode has accepted the registration, failing after {@code timeoutMillis}. */
    public void awaitRegistered(long timeoutMillis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (!isRegistered()) {
            if (System.nanoTime() > deadline) {
                throw new CreelException(ErrorCode.TIMEOUT, "storage server " + info().address()
                        + " was not registered with every namenode within " + timeoutMillis + " ms");
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CreelException(ErrorCode.INTERNAL, "interrupted while waiting for registration");
            }
        }
    }

    /**
     * Runs {@code action} once every namenode has decommissioned this server (the daemon uses it to
     * exit). Runs on the heartbeat thread.
     */
    public void onDecommissioned(Runnable action) {
        this.decommissionAction = action;
    }

    /** Whether every namenode has drained and decommissioned this server. */
    public boolean isDecommissioned() {
        return registrations.stream().allMatch(r -> r.decommissioned);
    }

    private void checkDecommissioned() {
        Runnable a = decommissionAction;
        if (a != null && isDecommissioned()) {
            a.run();
        }
    }

    /** Who holds this server's regions. */
    public RegionArbiter regions() {
        return regions;
    }

    /** The id a namenode gave this server (0 while unregistered). */
    public int serverId(int namenodeIndex) {
        return registrations.get(namenodeIndex).serverId;
    }

    @Override
    public void close() {
        closed = true;
        timer.shutdownNow();
        connections.close();
        service.close();
        if (ownLoops) {
            loops.close();
        }
    }

    /** Keeps this server registered with one namenode. */
    private static final class Registration {
        private final StorageServerRuntime rt;
        private final HostPort namenode;
        private volatile int serverId;
        private volatile long instance;
        private volatile boolean decommissioned;
        private volatile CompletableFuture<?> inFlight = CompletableFuture.completedFuture(null);
        private volatile boolean warned;
        /** Heartbeats are held back because the volume cannot serve. */
        private volatile boolean silent;

        Registration(StorageServerRuntime rt, HostPort namenode) {
            this.rt = rt;
            this.namenode = namenode;
        }

        void tick() {
            if (decommissioned || !inFlight.isDone()) {
                return; // the last attempt is still waiting for its timeout
            }
            StorageServerInfo info = rt.service.describe();
            String down = rt.service.unavailable();
            if (down != null) {
                // Silence is how a namenode learns that a server cannot serve: it stops allocating
                // here, fails reads of these blocks fast, and reports the server dead.
                if (!silent) {
                    LOG.warn("{}: sending no heartbeats to namenode {} while the volume cannot serve: {}",
                            info.address(), namenode, down);
                    silent = true;
                }
                return;
            }
            if (silent) {
                LOG.info("{}: the volume serves again; heartbeats to namenode {} resume", info.address(), namenode);
                silent = false;
            }
            if (serverId == 0) {
                inFlight = rt.connections.get(namenode)
                        .thenCompose(c -> c.call(Opcode.REGISTER, new RegisterRequest(info), RegisterReply::decode))
                        .whenComplete((reply, err) -> {
                            if (err != null) {
                                if (!warned) {
                                    LOG.warn("{}: cannot register with namenode {} yet ({}); retrying",
                                            info.address(), namenode, CreelException.unwrap(err).getMessage());
                                    warned = true;
                                }
                            } else {
                                serverId = reply.serverId();
                                warned = false;
                                if (instance != 0 && instance != reply.namenodeInstance()) {
                                    // The namenode restarted: what its old instance held waits for the new
                                    // instance to claim it back with a region sync (its restored data), and
                                    // is free after that; no other namenode gets it meanwhile.
                                    rt.regions.handOver(instance, reply.namenodeInstance(), RESTART_CLAIM_MILLIS);
                                }
                                instance = reply.namenodeInstance();
                                LOG.info("{}: registered with namenode {} as server {}", info.address(), namenode,
                                        serverId);
                            }
                        });
            } else {
                int id = serverId;
                inFlight = rt.connections.get(namenode)
                        .thenCompose(c -> c.call(Opcode.HEARTBEAT, new HeartbeatRequest(id, info.localToken()),
                                HeartbeatReply::decode))
                        .whenComplete((reply, err) -> {
                            if (err != null) {
                                if (!warned && !rt.closed) {
                                    LOG.warn("{}: heartbeat to namenode {} failed: {}", info.address(), namenode,
                                            CreelException.unwrap(err).getMessage());
                                    warned = true;
                                }
                            } else if (reply.decommissioned()) {
                                if (!decommissioned) {
                                    decommissioned = true;
                                    LOG.info("{}: namenode {} has drained and decommissioned this server", info.address(),
                                            namenode);
                                    rt.checkDecommissioned();
                                }
                            } else if (!reply.known()) {
                                LOG.info("{}: namenode {} does not know this server any more; registering again",
                                        info.address(), namenode);
                                serverId = 0;
                            } else {
                                warned = false;
                            }
                        });
            }
        }
    }
}
