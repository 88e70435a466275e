package io.creel.storage.nvmf.tier;

import io.creel.common.conf.ConfValues;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.storage.nvmf.NvmfException;
import io.creel.storage.nvmf.NvmfKeys;
import io.creel.storage.nvmf.connect.Connectors;
import io.creel.storage.nvmf.format.VolumeHeader;
import io.creel.storage.nvmf.format.VolumeLayout;
import io.creel.storage.nvmf.io.ByteRangeIo;
import io.creel.storage.nvmf.io.SectorDevice;
import io.creel.storage.nvmf.target.TargetConnector;
import io.creel.storage.nvmf.target.TargetController;
import io.creel.storage.nvmf.volume.VolumeIo;
import io.creel.storage.nvmf.volume.Waits;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An nvmf storage server's hold on its target: the controller, the namespace, and the volume on it.
 * When the association is lost (the target went away, keep alive failed) the session says why
 * ({@link #problem()}), fails every use with UNAVAILABLE, and tries to reconnect every
 * {@code creel.storage.nvmf.reconnect.interval}. A reconnected namespace is used again only if its
 * header still names this volume; otherwise its blocks are gone and the session stays down for good.
 */
final class TargetSession implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TargetSession.class);

    /** A connected controller and the volume reached through it. */
    private record Attached(TargetController controller, VolumeIo io) {
    }

    private final NvmfSettings settings;
    private final TargetConnector connector;
    private final VolumeLayout layout;
    private final long token;
    private final ScheduledThreadPoolExecutor timer;
    /**
     * The controller now connected, or why there is none: one value, so a reader never sees the
     * controller gone without its reason (two fields read apart once told a test "the session is
     * closed" in the instant between a lost controller and the reason it was lost).
     */
    private volatile Link link;
    private volatile boolean closed;

    /** Exactly one of the two is set. */
    private record Link(Attached attached, String problem) {
        static Link to(Attached a) {
            return new Link(a, null);
        }

        static Link down(String why) {
            return new Link(null, why);
        }
    }

    private TargetSession(NvmfSettings settings, TargetConnector connector, VolumeLayout layout, long token,
                          Attached first) {
        this.settings = settings;
        this.connector = connector;
        this.layout = layout;
        this.token = token;
        this.link = Link.to(first);
        this.timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "creel-nvmf-reconnect");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
    }

    /**
     * Connects to the target, identifies the namespace, lays out a volume of {@code blockSize} blocks on
     * it and writes its header with {@code token}. Fails (UNAVAILABLE, TIMEOUT or CONFIGURATION) with a
     * message naming the target and the step.
     */
    static TargetSession open(NvmfSettings settings, int blockSize, long token) {
        TargetConnector connector = Connectors.create(settings.target().fabric(), settings.options().ioQueues(),
                "creel-nvmf-" + settings.target().fabric().text());
        TargetController controller = null;
        try {
            controller = connect(settings, connector);
            SectorDevice device = Waits.await(controller.namespace(settings.nsid()), settings.connectWait(),
                    "identifying namespace " + settings.nsid() + " of " + settings.target());
            VolumeLayout layout = plan(settings, device, blockSize);
            Optional<VolumeHeader> previous = Waits.await(VolumeIo.readHeader(device), settings.connectWait(),
                    "reading the volume header of " + device.describe());
            previous.ifPresent(h -> LOG.info("{} held Creel volume {} (written {}); it is replaced by volume {}",
                    device.describe(), Long.toHexString(h.token()), Instant.ofEpochMilli(h.writtenAtMillis()),
                    Long.toHexString(token)));
            Waits.await(VolumeIo.writeHeader(device, new VolumeHeader(layout, token, System.currentTimeMillis())),
                    settings.connectWait(), "writing the volume header of " + device.describe());
            Attached first = new Attached(controller, new VolumeIo(new ByteRangeIo(device), layout, token));
            TargetSession session = new TargetSession(settings, connector, layout, token, first);
            session.watch(first);
            LOG.info("{}", controller.describe());
            return session;
        } catch (RuntimeException e) {
            if (controller != null) {
                controller.close();
            }
            connector.close();
            throw e;
        }
    }

    private static TargetController connect(NvmfSettings settings, TargetConnector connector) {
        var pending = connector.connect(settings.target(), settings.options());
        try {
            return Waits.await(pending, settings.connectWait(), "connecting to the NVMe-oF target "
                    + settings.target());
        } catch (CreelException e) {
            // A connect that finishes after we gave up must not leave a controller behind.
            pending.thenAccept(TargetController::close);
            throw e;
        }
    }

    private static VolumeLayout plan(NvmfSettings settings, SectorDevice device, int blockSize) {
        long sectors = device.sectorCount();
        long limit = settings.sizeLimit();
        if (limit > 0) {
            long wanted = limit / device.sectorSize();
            if (wanted > sectors) {
                throw new CreelException(ErrorCode.CONFIGURATION, NvmfKeys.SIZE.name() + " is "
                        + ConfValues.formatSize(limit) + " but " + device.describe() + " holds only "
                        + ConfValues.formatSize(sectors * device.sectorSize()));
            }
            sectors = wanted;
        }
        try {
            return VolumeLayout.plan(device.sectorSize(), sectors, blockSize);
        } catch (IllegalArgumentException e) {
            throw new CreelException(ErrorCode.CONFIGURATION, device.describe() + " cannot hold the nvmf tier: "
                    + e.getMessage(), e);
        }
    }

    /** The volume, through the controller now connected; UNAVAILABLE saying why when there is none. */
    VolumeIo io() {
        Link l = link;
        if (l.attached() == null) {
            throw new CreelException(ErrorCode.UNAVAILABLE, l.problem());
        }
        return l.attached().io();
    }

    /** Why the volume cannot be reached now, or {@code null} while it can. */
    String problem() {
        return link.problem();
    }

    VolumeLayout layout() {
        return layout;
    }

    long token() {
        return token;
    }

    /** The target, for messages. */
    String describe() {
        return "namespace " + settings.nsid() + " of " + settings.target();
    }

    private void watch(Attached a) {
        a.controller().failure().thenAccept(cause -> lost(a, cause));
    }

    private void lost(Attached a, NvmfException cause) {
        String why = "lost the NVMe-oF target " + settings.target() + " at " + Instant.now() + ": "
                + cause.getMessage() + "; reconnecting every " + settings.reconnectInterval().toMillis() + " ms";
        synchronized (this) {
            if (closed || link.attached() != a) {
                return;
            }
            link = Link.down(why);
        }
        LOG.error("{}", why);
        a.controller().close();
        schedule();
    }

    private void schedule() {
        if (!closed) {
            timer.schedule(this::reconnect, settings.reconnectInterval().toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void reconnect() {
        if (closed) {
            return;
        }
        TargetController controller = null;
        try {
            controller = connect(settings, connector);
            SectorDevice device = Waits.await(controller.namespace(settings.nsid()), settings.connectWait(),
                    "identifying namespace " + settings.nsid() + " of " + settings.target());
            Optional<VolumeHeader> header = device.sectorSize() != layout.sectorSize()
                    || device.sectorCount() < layout.usedSectors() ? Optional.empty()
                    : Waits.await(VolumeIo.readHeader(device), settings.connectWait(), "reading the volume header of "
                    + device.describe());
            if (header.isEmpty() || header.get().token() != token || !header.get().layout().equals(layout)) {
                String found = header.map(h -> "volume " + Long.toHexString(h.token())).orElse("no Creel volume");
                controller.close();
                String lost = device.describe() + " no longer holds this server's volume " + Long.toHexString(token)
                        + " (it holds " + found + "): the blocks stored there are lost. Restart the storage server "
                        + "to offer the namespace afresh";
                synchronized (this) {
                    if (!closed) {
                        link = Link.down(lost);
                    }
                }
                LOG.error("{}", lost);
                return; // for good: reconnecting again cannot bring the blocks back
            }
            Attached a = new Attached(controller, new VolumeIo(new ByteRangeIo(device), layout, token));
            synchronized (this) {
                if (closed) {
                    controller.close();
                    return;
                }
                link = Link.to(a);
            }
            watch(a);
            LOG.info("reconnected to the NVMe-oF target {}: {}", settings.target(), controller.describe());
        } catch (RuntimeException e) {
            if (controller != null) {
                controller.close();
            }
            String why = "lost the NVMe-oF target " + settings.target() + "; reconnecting every "
                    + settings.reconnectInterval().toMillis() + " ms, the last attempt at " + Instant.now()
                    + " failed: " + e.getMessage();
            synchronized (this) {
                if (!closed) {
                    link = Link.down(why);
                }
            }
            LOG.debug("{}", why);
            schedule();
        }
    }

    @Override
    public void close() {
        Attached a;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            a = link.attached();
            link = Link.down("the storage server stopped");
        }
        timer.shutdownNow();
        try {
            // A reconnect already running finishes its bounded steps and sees the session closed.
            timer.awaitTermination(settings.connectWait().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (a != null) {
            a.controller().close();
        }
        connector.close();
    }
}
