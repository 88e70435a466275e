package io.creel.client;

import io.creel.client.rpc.NamenodeRouter;
import io.creel.common.error.CreelException;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the expiring nodes a client owns ({@link io.creel.common.protocol.Expiry}): every
 * {@code creel.client.session.heartbeat} it sends a SESSION_BEAT to each namenode partition where it
 * created one (or to all, once asked for its session id, since nodes may be handed to it on any).
 * A client that never uses expiry sends nothing.
 *
 * <p>A beat is sent once and not retried: a namenode out of reach (restarting, a cut link) misses
 * beats until it is back, and the next beat after that renews everything the client owns there —
 * in time as long as the outage is shorter than the session timeout. Beats run on the client's
 * event loops, so they go on while the application is busy or idle, and end with {@link #close}.
 */
final class SessionHeartbeats implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SessionHeartbeats.class);

    private final NamenodeRouter router;
    private final EventExecutorGroup timer;
    private final long intervalMillis;
    /** Per partition: 1 once this client beats it. */
    private final AtomicIntegerArray beating;
    /** Per partition: consecutive beats that failed (logged on the first, and when they succeed again). */
    private final AtomicIntegerArray failures;
    /** Whether the namenode's timeout was found too short for the interval (warned once). */
    private final java.util.concurrent.atomic.AtomicBoolean warnedTimeout = new java.util.concurrent.atomic.AtomicBoolean();
    private ScheduledFuture<?> task;
    private boolean closed;

    SessionHeartbeats(NamenodeRouter router, EventExecutorGroup timer, Duration interval) {
        this.router = router;
        this.timer = timer;
        this.intervalMillis = interval.toMillis();
        this.beating = new AtomicIntegerArray(router.partitions());
        this.failures = new AtomicIntegerArray(router.partitions());
    }

    /** The heartbeat interval. */
    long intervalMillis() {
        return intervalMillis;
    }

    /** Beats {@code partition} from now on (where this client now owns an expiring node). */
    void keepAlive(int partition) {
        if (beating.getAndSet(partition, 1) == 0) {
            start();
        }
    }

    /** Beats every partition from now on. */
    void keepAliveEverywhere() {
        for (int p = 0; p < beating.length(); p++) {
            keepAlive(p);
        }
    }

    private synchronized void start() {
        if (task != null || closed) {
            return;
        }
        try {
            task = timer.next().scheduleAtFixedRate(this::beat, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            LOG.debug("the client is closing: no session heartbeats");
        }
    }

    private void beat() {
        for (int p = 0; p < beating.length(); p++) {
            if (beating.get(p) == 0) {
                continue;
            }
            int partition = p;
            router.sessionBeat(partition).whenComplete((reply, err) -> {
                if (err == null) {
                    if (failures.getAndSet(partition, 0) > 0) {
                        LOG.info("namenode {} hears this client's session heartbeats again", router.address(partition));
                    }
                    if (reply.timeoutMillis() < 2 * intervalMillis && !warnedTimeout.getAndSet(true)) {
                        LOG.warn("creel.client.session.heartbeat ({} ms) is too long for namenode {}'s session timeout "
                                + "({} ms): this client's nodes may expire while it lives", intervalMillis,
                                router.address(partition), reply.timeoutMillis());
                    }
                } else if (failures.getAndIncrement(partition) == 0) {
                    LOG.warn("session heartbeat to namenode {} failed ({}); its expiring nodes of this client go if "
                            + "this lasts its session timeout", router.address(partition),
                            CreelException.unwrap(err).getMessage());
                }
            });
        }
    }

    /** Stops beating (the client closes): its nodes expire after their grace unless handed over. */
    @Override
    public synchronized void close() {
        closed = true;
        if (task != null) {
            task.cancel(false);
        }
    }
}
