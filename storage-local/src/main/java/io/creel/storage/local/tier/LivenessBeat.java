package io.creel.storage.local.tier;

import io.creel.storage.format.ServerLiveness;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a serving volume's liveness words ({@link ServerLiveness}) in its tag file up to date: marks
 * it serving at start, beats every interval on a thread of its own, and marks it stopped at close,
 * before the medium is released, so same-host clients fail from that moment like remote ones.
 */
final class LivenessBeat implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LivenessBeat.class);

    private final Path tagFile;
    private final ServerLiveness liveness;
    private final ScheduledThreadPoolExecutor timer;

    private LivenessBeat(Path tagFile, ServerLiveness liveness, ScheduledThreadPoolExecutor timer) {
        this.tagFile = tagFile;
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
        return new LivenessBeat(tagFile, liveness, timer);
    }

    /** Marks the server stopped and stops beating. */
    @Override
    public void close() {
        liveness.stopped();
        timer.shutdownNow();
        boolean stopped = false;
        try {
            // A beat already running touches the mapping: let it finish before the unmap.
            stopped = timer.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (stopped) {
            liveness.close();
        } else {
            // Unmapping under a running beat would crash the JVM: the garbage collector unmaps instead,
            // once the beat thread has let go of the header.
            LOG.warn("the liveness beat of {} did not stop within 1 s; its header is left to the garbage collector",
                    tagFile);
        }
    }
}
