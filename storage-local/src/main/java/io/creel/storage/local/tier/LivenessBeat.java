package io.creel.storage.local.tier;

import io.creel.storage.format.ServerLiveness;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Keeps a serving volume's liveness words ({@link ServerLiveness}) in its tag file up to date: marks
 * it serving at start, beats every interval on a thread of its own, and marks it stopped at close,
 * before the medium is released, so same-host clients fail from that moment like remote ones.
 */
final class LivenessBeat implements AutoCloseable {
    private final ServerLiveness liveness;
    private final ScheduledThreadPoolExecutor timer;

    private LivenessBeat(ServerLiveness liveness, ScheduledThreadPoolExecutor timer) {
        this.liveness = liveness;
        this.timer = timer;
    }

    /** Marks the server of {@code tagFile} serving and beats every {@code intervalMillis}. */
    static LivenessBeat start(Path tagFile, long intervalMillis) throws IOException {
        ServerLiveness liveness = ServerLiveness.open(tagFile, true);
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "creel-liveness-" + tagFile.getFileName());
            t.setDaemon(true);
            return t;
        });
        long interval = Math.max(10, intervalMillis);
        liveness.serving(interval);
        timer.scheduleAtFixedRate(liveness::beat, interval, interval, TimeUnit.MILLISECONDS);
        return new LivenessBeat(liveness, timer);
    }

    /** Marks the server stopped and stops beating. */
    @Override
    public void close() {
        liveness.stopped();
        timer.shutdownNow();
        try {
            // A beat already running touches the mapping: let it finish before the unmap.
            timer.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        liveness.close();
    }
}
