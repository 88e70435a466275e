package io.creel.storage.nvmf.tcp;

import io.creel.common.inflight.InFlightSlots;
import io.netty.channel.EventLoop;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The timeout sweep of a queue pair: a periodic check on the queue's event loop that finds an
 * ICResp that did not come within the connect timeout, or the first command in flight past its
 * command timeout, and tells the queue, which closes. The sweep ticks at a quarter of the shorter
 * timeout (5 to 100 ms), so a timeout is noticed at most one tick late. Confined to the event loop.
 */
final class CommandTimeouts {
    /** The queue the sweep watches. */
    interface Expiry {
        /** Whether the queue still waits for its ICResp. */
        boolean awaitingIcResp();

        /** No ICResp came within the connect timeout. */
        void icRespTimedOut();

        /** The command in {@code slot} is past its deadline. */
        void commandTimedOut(CommandSlot slot);
    }

    private final EventLoop loop;
    private final NvmeTcpOptions options;
    private final InFlightSlots<CommandSlot> cids;
    private final Expiry expiry;
    private long icDeadline;
    private ScheduledFuture<?> sweeper;

    CommandTimeouts(EventLoop loop, NvmeTcpOptions options, InFlightSlots<CommandSlot> cids, Expiry expiry) {
        this.loop = loop;
        this.options = options;
        this.cids = cids;
        this.expiry = expiry;
    }

    /** Starts the sweep, and the connect timeout for the ICResp, as the ICReq goes out. */
    void start() {
        icDeadline = System.nanoTime() + options.connectTimeout().toNanos();
        long tick = Math.max(5, Math.min(100, Math.min(options.commandTimeout().toMillis(),
                options.connectTimeout().toMillis()) / 4));
        sweeper = loop.scheduleAtFixedRate(this::sweep, tick, tick, TimeUnit.MILLISECONDS);
    }

    /** Stops the sweep (the queue closed); harmless when it never started. */
    void stop() {
        if (sweeper != null) {
            sweeper.cancel(false);
        }
    }

    private void sweep() {
        long now = System.nanoTime();
        if (expiry.awaitingIcResp() && now - icDeadline > 0) {
            expiry.icRespTimedOut();
            return;
        }
        CommandSlot overdue = cids.firstExpired(now);
        if (overdue != null) {
            expiry.commandTimedOut(overdue);
        }
    }
}
