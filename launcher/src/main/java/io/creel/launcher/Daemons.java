package io.creel.launcher;

import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Keeps a daemon command running until the process is interrupted, then closes what it started. */
final class Daemons {
    private static final Logger LOG = LoggerFactory.getLogger(Daemons.class);

    private Daemons() {
    }

    /** Blocks until SIGINT/SIGTERM, then closes {@code resource} (from the shutdown hook). */
    static int runUntilInterrupted(String what, AutoCloseable resource) {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            LOG.info("stopping {}", what);
            try {
                resource.close();
            } catch (Exception e) {
                LOG.warn("error while stopping {}: {}", what, e.toString());
            } finally {
                stopped.countDown();
            }
        }, "creel-shutdown"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }
}
