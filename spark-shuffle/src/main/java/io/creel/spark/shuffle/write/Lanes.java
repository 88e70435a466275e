package io.creel.spark.shuffle.write;

import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.client.Futures;
import io.creel.common.error.CreelException;
import io.creel.spark.shuffle.format.ShufflePaths;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An executor's lanes of one merged shuffle: a map task borrows an idle lane (or a new one) for its
 * whole run and gives it back at its end, so there are as many lanes as map tasks ever ran at once
 * in this executor (its cores), plus one for each lane a failure broke. That bounds the shuffle's
 * Files by lanes x reduce partitions, whatever the number of maps.
 */
public final class Lanes {
    private static final Logger LOG = LoggerFactory.getLogger(Lanes.class);

    private final CreelClient client;
    private final String shuffleDir;
    private final String executorId;
    private final CreateOptions placement;
    private final Duration timeout;
    private final Deque<Lane> idle = new ArrayDeque<>();
    private final List<Lane> all = new ArrayList<>();
    private boolean closed;

    /**
     * @param shuffleDir the shuffle's directory
     * @param executorId this executor's id (lane names carry it: a reader names the executor whose data is lost)
     * @param placement  how lane Files are created
     * @param timeout    the bound of every wait on Creel
     */
    public Lanes(CreelClient client, String shuffleDir, String executorId, CreateOptions placement, Duration timeout) {
        this.client = client;
        this.shuffleDir = shuffleDir;
        this.executorId = executorId;
        // A lane opens a File per partition at once, most of them staying inline: none takes a block up front.
        this.placement = placement.withBlocksOnDemand(true);
        this.timeout = timeout;
    }

    Duration timeout() {
        return timeout;
    }

    /** An idle lane, or a new one. */
    synchronized Lane borrow() {
        if (closed) {
            throw new IllegalStateException("the lanes of " + shuffleDir + " are closed (the shuffle was unregistered)");
        }
        Lane l = idle.pollFirst();
        if (l == null) {
            l = new Lane(client, shuffleDir, ShufflePaths.laneName(executorId, all.size()), placement);
            all.add(l);
        }
        return l;
    }

    /** A task is done with {@code lane}: it takes the next task unless a failure broke it (then it is closed). */
    void giveBack(Lane lane) {
        synchronized (this) {
            if (!lane.broken() && !closed) {
                idle.addFirst(lane);
                return;
            }
        }
        closeQuietly(lane);
    }

    /** Closes every lane: the shuffle is gone from this executor. */
    public void close() {
        List<Lane> lanes;
        synchronized (this) {
            closed = true;
            lanes = new ArrayList<>(idle);
            idle.clear();
        }
        for (Lane l : lanes) {
            closeQuietly(l);
        }
    }

    private void closeQuietly(Lane lane) {
        CompletableFuture<Void> closing = lane.close();
        try {
            Futures.await(closing, timeout, "closing lane " + lane.name() + " of " + shuffleDir);
        } catch (CreelException e) {
            // The shuffle's directory may be gone already (the driver removed it): nothing is lost.
            LOG.debug("closing lane {} of {}: {}", lane.name(), shuffleDir, e.getMessage());
        }
    }
}
