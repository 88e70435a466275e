package io.creel.spark.common;

import io.creel.client.CreelClient;
import io.creel.client.Futures;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.net.HostIdentity;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's sign of life: the KeyValue {@code {root}/_live/{app}} holds the time of its last
 * beat, rewritten every interval. The shuffle and the broadcasts each keep one under their root;
 * the stale-application cleaner ({@code io.creel.spark.shuffle.cleanup.StaleShuffleCleaner})
 * removes the data of applications whose beat is old (their driver crashed or was killed before it
 * could remove its data).
 */
public final class ApplicationHeartbeat {
    /** Name of the Table of application heartbeats under a root. */
    public static final String LIVE_TABLE = "_live";

    private static final Logger LOG = LoggerFactory.getLogger(ApplicationHeartbeat.class);

    private final CreelClient client;
    private final String table;
    private final String app;
    private final Duration timeout;
    private final ScheduledExecutorService timer;

    private ApplicationHeartbeat(CreelClient client, String table, String app, ScheduledExecutorService timer) {
        this.client = client;
        this.table = table;
        this.app = app;
        this.timeout = client.requestTimeout();
        this.timer = timer;
    }

    /** Writes the first beat now (failing if Creel cannot be written) and the next ones every {@code interval}. */
    public static ApplicationHeartbeat start(CreelClient client, String root, String app, Duration interval) {
        String table = table(root);
        try {
            Futures.await(client.create(table, NodeType.TABLE), client.requestTimeout(), "creating " + table);
        } catch (CreelException e) {
            if (e.code() != ErrorCode.ALREADY_EXISTS) {
                throw e;
            }
        }
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "creel-app-heartbeat");
            t.setDaemon(true);
            return t;
        });
        ApplicationHeartbeat hb = new ApplicationHeartbeat(client, table, app, timer);
        hb.beat();
        timer.scheduleWithFixedDelay(hb::beatLogged, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
        return hb;
    }

    /** The Table of heartbeats under {@code root}. */
    public static String table(String root) {
        return root + "/" + LIVE_TABLE;
    }

    /** The value of a beat taken at {@code millis}. */
    public static ByteBuffer encode(long millis) {
        return ByteBuffer.wrap(("beat=" + millis + "\nhost=" + HostIdentity.hostName() + "\n")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** The time of a beat, or -1 if the value is not one. */
    public static long decode(ByteBuffer value) {
        String text = java.nio.charset.StandardCharsets.UTF_8.decode(value.duplicate()).toString();
        for (String line : text.split("\n")) {
            if (line.startsWith("beat=")) {
                try {
                    return Long.parseLong(line.substring(5).trim());
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        }
        return -1;
    }

    private void beat() {
        Futures.await(client.putValue(table, app, encode(System.currentTimeMillis())), timeout,
                "writing the heartbeat " + table + "/" + app);
    }

    private void beatLogged() {
        try {
            beat();
        } catch (CreelException e) {
            LOG.warn("could not write the application heartbeat {}/{}: {}", table, app, e.getMessage());
        }
    }

    /** Stops beating and removes the beat. */
    public void stop() {
        timer.shutdownNow();
        try {
            if (!timer.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("the heartbeat of {} did not stop within {} ms", app, timeout.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            Futures.await(client.delete(table + "/" + app, false), timeout, "removing the heartbeat");
        } catch (CreelException e) {
            if (e.code() != ErrorCode.NOT_FOUND) {
                LOG.warn("could not remove the application heartbeat {}/{}: {}", table, app, e.getMessage());
            }
        }
    }
}
