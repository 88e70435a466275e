package io.creel.namenode.replication;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.BlockCopy;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.ReplicationProgress;
import io.creel.namenode.allocation.RegionBroker;
import io.creel.namenode.allocation.RegionShortage;
import io.creel.namenode.namespace.Namespace;
import io.creel.namenode.namespace.RepairTask;
import io.creel.namenode.namespace.ReplicationScan;
import io.creel.storage.transport.BlockLocator;
import io.creel.storage.transport.BlockTransfers;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restores the replication factor of blocks that lost a copy, on one thread of its own: it walks
 * the namespace when the cluster changed (a server died, came back or started draining; a writer
 * dropped a copy), then for each block found reserves new copies on servers of other hosts, reads
 * the block from a live copy, writes it to the new ones and installs them (dropping the copies on
 * dead or draining servers). All copying together stays under {@code bytesPerSecond}, so a repair
 * never starves clients. A draining server is left this way too: its blocks get copies elsewhere
 * and then leave it, so it can be decommissioned.
 *
 * <p>The namenode copies rather than its storage servers so that no new server-to-server request
 * is needed; its copies go through the same {@link BlockTransfers} as its directory records.
 */
public final class ReplicaRepair implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaRepair.class);
    /** Blocks taken from one walk of the namespace. */
    static final int TASKS_PER_SCAN = 256;
    /** The longest pause between walks while blocks stay short and nothing changes. */
    static final long MAX_BACKOFF_MILLIS = 30_000;
    /** Failed repairs are logged at most once per this many seconds. */
    static final long WARN_EVERY_SECONDS = 60;
        /** How long one copy may take before it counts as failed. */
    static final long COPY_TIMEOUT_MILLIS = 30_000;

    private final Namespace namespace;
    private final RegionBroker regions;
    private final BlockTransfers transfers;
    private final Supplier<Object> clusterState;
    private final Pacer pacer;
    private final long idleMillis;
    private final Thread worker;
    private volatile boolean running = true;

    private volatile ReplicationProgress progress = ReplicationProgress.NONE;
    private long repaired;
    private long copiedBytes;
    private long failures;
    private String lastProblem = "";
    /** When a failed repair was last logged, and how many failed since without a line of their own. */
    private long warnedAt;
    private long unwarned;
    /** Why the last repair failed, without the block: a new reason is logged at once. */
    private String lastReason = "";

    /**
     * @param clusterState   what the walk depends on besides the namespace (dead and draining
     *                       servers): a walk happens when it or {@link Namespace#copiesDropped} changes
     * @param bytesPerSecond the most bytes copied per second
     * @param idleMillis     how long to wait between checks when nothing is to be done
     */
    public ReplicaRepair(Namespace namespace, RegionBroker regions, BlockTransfers transfers,
                         Supplier<Object> clusterState, long bytesPerSecond, long idleMillis, LongSupplier nanos) {
        this.namespace = namespace;
        this.regions = regions;
        this.transfers = transfers;
        this.clusterState = clusterState;
        this.pacer = new Pacer(bytesPerSecond, nanos);
        this.idleMillis = idleMillis;
        this.worker = new Thread(this::run, "creel-replica-repair");
        this.worker.setDaemon(true);
    }

    /** Starts the repair thread. */
    public void start() {
        worker.start();
    }

    /** What the repair found and did so far. */
    public ReplicationProgress progress() {
        return progress;
    }

    private void run() {
        Object lastState = null;
        long lastDropped = -1;
        boolean more = true;
        long backoff = idleMillis;
        while (running) {
            try {
                Object state = clusterState.get();
                long dropped = namespace.copiesDropped();
                boolean changed = !Objects.equals(state, lastState) || dropped != lastDropped;
                // A walk costs a pass over the namespace under its lock: only when something may be short.
                if (!more && !changed) {
                    sleep(idleMillis);
                    continue;
                }
                lastState = state;
                lastDropped = dropped;
                ReplicationScan scan = namespace.replicationWork(TASKS_PER_SCAN);
                publish(scan);
                int progressed = 0;
                for (RepairTask t : scan.tasks()) {
                    if (!running) {
                        return;
                    }
                    if (repair(t)) {
                        progressed++;
                    }
                }
                // Blocks of nodes still being written are looked at again until they close; blocks that
                // cannot be repaired now (no host left for a copy, no space) are looked at less and less
                // often while nothing changes, so a degraded cluster is not walked in a loop.
                more = !scan.tasks().isEmpty() || scan.waitingForWriter() > 0;
                if (progressed > 0) {
                    backoff = idleMillis;
                } else if (more) {
                    sleepUnlessChanged(backoff, state, dropped);
                    backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
                }
            } catch (RuntimeException e) {
                // The thread must outlive any one failure: the next walk finds what is still short.
                LOG.warn("restoring the replication factor failed: {}", e.toString(), e);
                synchronized (this) {
                    failures++;
                    lastProblem = e.toString();
                }
                sleep(idleMillis);
            }
        }
    }

    /** Sleeps {@code millis}, waking early (at the idle period's pace) when the cluster changes. */
    private void sleepUnlessChanged(long millis, Object state, long dropped) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (running && System.nanoTime() < end) {
            sleep(Math.min(idleMillis, millis));
            if (!Objects.equals(clusterState.get(), state) || namespace.copiesDropped() != dropped) {
                return;
            }
        }
    }

    private void publish(ReplicationScan scan) {
        synchronized (this) {
            progress = new ReplicationProgress(scan.underReplicated(), scan.waitingForWriter(), scan.lost(), repaired,
                    copiedBytes, failures, lastProblem);
        }
    }

    /**
     * Repairs one block: reserve, copy, install; every failure leaves the block as it was. Returns
     * whether the block got its copies (or shed its dead ones).
     */
    boolean repair(RepairTask t) {
        List<BlockCopy> made;
        try {
            made = namespace.reserveCopies(t);
        } catch (RegionShortage e) {
            regions.acquire(e.storageClass(), e.blockSize()); // the next walk finds the block again
            return false;
        } catch (CreelException e) {
            problem(t, e.getMessage());
            return false;
        }
        if (made.isEmpty() && t.missing() > 0) {
            return false; // the node changed since the walk
        }
        if (!made.isEmpty()) {
            pacer.take(t.bytes() * made.size());
            try {
                copy(t, made);
            } catch (CreelException e) {
                namespace.abandonCopies(made);
                problem(t, e.getMessage());
                return false;
            }
        }
        if (namespace.installCopies(t, made)) {
            synchronized (this) {
                repaired++;
                copiedBytes += t.bytes() * made.size();
            }
            LOG.info("{}: block {} has {} new cop{}{}", t.path(), t.index(), made.size(), made.size() == 1 ? "y" : "ies",
                    made.isEmpty() ? " (copies on dead or draining servers dropped)" : "");
            return true;
        }
        return false;
    }

    /** Reads the block from a live copy and writes it to every new one. */
    private void copy(RepairTask t, List<BlockCopy> made) {
        ByteBuffer bytes = ByteBuffer.allocate((int) t.bytes());
        CreelException readFailure = null;
        boolean read = false;
        for (BlockLocation source : t.sources()) {
            try {
                await(transfers.read(t.path(), t.index(), BlockLocator.at(source), 0, bytes.duplicate()));
                read = true;
                break;
            } catch (CreelException e) {
                readFailure = e;
            }
        }
        if (!read) {
            throw readFailure != null ? readFailure : new CreelException(ErrorCode.UNAVAILABLE, t.path()
                    + ": block " + t.index() + " has no live copy to copy from");
        }
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (BlockCopy c : made) {
            BlockLocation to = new BlockLocation(t.nodeId(), t.index(), c.server(), c.blockNumber(), c.tag());
            writes.add(transfers.write(t.path(), t.index(), BlockLocator.at(to), 0, bytes.duplicate()));
        }
        await(CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)));
    }

    private static void await(CompletableFuture<?> f) {
        try {
            f.get(COPY_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CreelException(ErrorCode.UNAVAILABLE, "the namenode is stopping");
        } catch (java.util.concurrent.TimeoutException e) {
            f.cancel(false);
            throw new CreelException(ErrorCode.TIMEOUT, "a copy took longer than " + COPY_TIMEOUT_MILLIS + " ms");
        } catch (java.util.concurrent.ExecutionException e) {
            throw CreelException.unwrap(e.getCause());
        }
    }

    private void problem(RepairTask t, String why) {
        long now = System.nanoTime();
        long before = -1;
        synchronized (this) {
            failures++;
            boolean newReason = !why.equals(lastReason);
            lastReason = why;
            lastProblem = t.path() + ": block " + t.index() + ": " + why;
            if (newReason || warnedAt == 0 || now - warnedAt >= TimeUnit.SECONDS.toNanos(WARN_EVERY_SECONDS)) {
                warnedAt = now;
                before = unwarned;
                unwarned = 0;
            } else {
                unwarned++;
            }
        }
        // A degraded cluster fails the same repairs over and over: a new reason is logged at once, the
        // same one a line a minute (fsck and report count them all).
        if (before >= 0) {
            LOG.warn("{}: block {} stays short of copies for now: {}{}", t.path(), t.index(), why,
                    before == 0 ? "" : " (and " + before + " other repairs failed since the last warning)");
        } else {
            LOG.debug("{}: block {} stays short of copies for now: {}", t.path(), t.index(), why);
        }
    }

    private void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    /** Stops the thread (a copy under way is abandoned with the namenode). */
    @Override
    public void close() {
        running = false;
        worker.interrupt();
        try {
            worker.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
