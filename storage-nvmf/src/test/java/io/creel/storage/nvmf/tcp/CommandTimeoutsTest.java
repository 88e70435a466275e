package io.creel.storage.nvmf.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.inflight.InFlightSlots;
import io.creel.storage.nvmf.nvme.NvmeCommand;
import io.netty.channel.DefaultEventLoop;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CommandTimeoutsTest {
    private static final NvmeCommand FLUSH = NvmeCommand.of(0x00, 1, 0, 0, 0, 0, 0, 0);

    private final DefaultEventLoop loop = new DefaultEventLoop();

    /** Records what the sweep reports; the first report ends the wait. */
    private static final class Recorder implements CommandTimeouts.Expiry {
        volatile boolean awaiting;
        final CompletableFuture<Object> reported = new CompletableFuture<>();

        @Override
        public boolean awaitingIcResp() {
            return awaiting;
        }

        @Override
        public void icRespTimedOut() {
            reported.complete("ICResp");
        }

        @Override
        public void commandTimedOut(CommandSlot slot) {
            reported.complete(slot);
        }
    }

    @AfterEach
    void stop() {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    private static NvmeTcpOptions options() {
        return NvmeTcpOptions.defaults().withTimeouts(Duration.ofMillis(100), Duration.ofMillis(100));
    }

    @Test
    void anIcRespThatDoesNotComeWithinTheConnectTimeoutIsReported() throws Exception {
        Recorder r = new Recorder();
        r.awaiting = true;
        CommandTimeouts t = new CommandTimeouts(loop, options(), new InFlightSlots<>(2), r);
        long start = System.nanoTime();
        loop.submit(t::start).get();
        assertEquals("ICResp", r.reported.get(5, TimeUnit.SECONDS));
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(100), "not before the timeout");
        loop.submit(t::stop).get();
    }

    @Test
    void theFirstCommandPastItsDeadlineIsReported() throws Exception {
        Recorder r = new Recorder();
        InFlightSlots<CommandSlot> cids = new InFlightSlots<>(2);
        IntFunction<CommandSlot> slotOfCid = CommandSlot.madeOncePerCid(2);
        CommandTimeouts t = new CommandTimeouts(loop, options(), cids, r);
        CommandSlot overdue = loop.submit(() -> {
            cids.get(cids.add(slotOfCid)).begin(FLUSH, new CompletableFuture<>(), false,
                    System.nanoTime() + TimeUnit.HOURS.toNanos(1));
            CommandSlot s = cids.get(cids.add(slotOfCid));
            s.begin(FLUSH, new CompletableFuture<>(), false, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50));
            t.start();
            return s;
        }).get();
        assertSame(overdue, r.reported.get(5, TimeUnit.SECONDS));
        loop.submit(t::stop).get();
    }

    @Test
    void aStoppedSweepReportsNothing() throws Exception {
        Recorder r = new Recorder();
        r.awaiting = true;
        CommandTimeouts t = new CommandTimeouts(loop, options(), new InFlightSlots<>(1), r);
        loop.submit(() -> {
            t.start();
            t.stop();
        }).get();
        Thread.sleep(300);
        assertFalse(r.reported.isDone(), "nothing after stop");
    }
}
